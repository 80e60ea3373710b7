import { Countdown } from './countdown.js';
import { countdownConfirm } from './countdown-confirm.js';
import { countdownInput } from './countdown-input.js';
import { countdownSelect } from './countdown-select.js';
import type { PromptResult, Prompter, Question } from './prompter.js';
import type { TerminalStyle } from './terminal-style.js';

/** Where an {@link InquirerPrompter} draws its prompts. */
export interface InquirerPrompterOptions {
  /** The terminal keys are read from. */
  input: NodeJS.ReadableStream;
  /** Where prompts are drawn (standard error under `--json`, so standard output stays JSON). */
  output: NodeJS.WritableStream;
  style: TerminalStyle;
}

/**
 * Asks questions in a terminal with inquirer prompts: a text field, a yes/no confirm, a
 * list to pick from, or a text field that accepts only JSON; a question with a deadline
 * counts it down in its prompt. Ctrl+C gives `interrupted`; the engine's abort signal
 * (answered elsewhere, timed out) closes the prompt.
 */
export class InquirerPrompter implements Prompter {
  constructor(private readonly options: InquirerPrompterOptions) {}

  async ask(question: Question, signal: AbortSignal): Promise<PromptResult> {
    try {
      return { status: 'answered', value: await this.prompt(question, signal) };
    } catch (error) {
      if (hasName(error, 'ExitPromptError')) return { status: 'interrupted' };
      if (hasName(error, 'AbortPromptError') || signal.aborted) return { status: 'aborted' };
      throw error;
    }
  }

  close(): void {
    // Each prompt releases the terminal when it ends; nothing stays open.
  }

  private prompt(question: Question, signal: AbortSignal): Promise<unknown> {
    const { kind } = question;
    const { input: terminal, output, style } = this.options;
    const context = { input: terminal, output, signal };
    // The first line is the prompt; the rest (a plan, a diff) is printed above it, so the
    // answer shows after the question rather than after the last line of the body.
    const [first = '', ...body] = question.message.split('\n');
    for (const line of body) output.write(`  ${line}\n`);
    // A deadline shows as a countdown; without a terminal to redraw, as a hint.
    const message =
      question.hint === undefined || question.deadline !== undefined
        ? first
        : `${first} ${style.dim(`(${question.hint})`)}`;
    const countdown = question.deadline === undefined ? undefined : new Countdown(question.deadline, style);
    switch (kind.kind) {
      case 'text': {
        const placeholder = kind.placeholder === undefined ? '' : ` ${style.dim(`(${kind.placeholder})`)}`;
        return countdownInput({ message: message + placeholder, default: kind.default, countdown }, context);
      }
      case 'confirm':
        return countdownConfirm({ message, default: kind.default ?? true, countdown }, context);
      case 'choice':
        return countdownSelect(
          {
            message,
            choices: kind.options.map((option) =>
              typeof option === 'string'
                ? { value: option, name: option }
                : { value: option.value, name: option.label },
            ),
            default: kind.default,
            countdown,
          },
          context,
        );
      case 'json':
        return countdownInput({ message, validate: validateJson, countdown }, context);
    }
  }
}

function validateJson(text: string): true | string {
  try {
    JSON.parse(text);
    return true;
  } catch (error) {
    return `enter valid JSON: ${error instanceof Error ? error.message : String(error)}`;
  }
}

/** Inquirer's errors are matched by name: its error classes are not exported by @inquirer/prompts. */
function hasName(error: unknown, name: string): boolean {
  return error instanceof Error && error.name === name;
}
