import { describeAnswer, interpretLine } from './line-answer.js';
import type { LineReader } from './line-reader.js';
import type { PromptResult, Prompter, Question } from './prompter.js';
import type { TerminalStyle } from './terminal-style.js';

/** Where a {@link LinePrompter} reads and writes. */
export interface LinePrompterOptions {
  /** The one reader of standard input (one line per question), shared with the tool approvals. */
  lines: () => LineReader;
  /** Where questions and the answers read are echoed. */
  output: NodeJS.WritableStream;
  /** Where lines that are not an answer are reported. */
  errorOutput: NodeJS.WritableStream;
  style: TerminalStyle;
}

/**
 * Asks questions when standard input is not a terminal: each question reads the next line
 * (so `printf 'no\nyes\n' | interlock demo` answers two questions). The question and the
 * answer read are echoed, so a log shows who decided what. A line that is not an answer is
 * reported and the next line is read; when input ends, the result is `no-input`, never a
 * guessed answer.
 */
export class LinePrompter implements Prompter {
  constructor(private readonly options: LinePrompterOptions) {}

  async ask(question: Question, signal: AbortSignal): Promise<PromptResult> {
    const { output, errorOutput, style } = this.options;
    const [first = '', ...rest] = question.message.split('\n');
    output.write(`${style.cyan('?')} ${style.bold(first)}\n`);
    for (const line of rest) output.write(`  ${line}\n`);
    output.write(
      style.dim(`  answer: ${describeAnswer(question.kind)}${question.hint ? ` · ${question.hint}` : ''}`) + '\n',
    );
    for (;;) {
      const read = await this.options.lines().next(signal);
      if (read.status === 'ended') return { status: 'no-input' };
      if (read.status === 'aborted') return { status: 'aborted' };
      const answer = interpretLine(question.kind, read.text);
      if (answer.status === 'valid') {
        output.write(`${style.cyan('>')} ${read.text}\n`);
        return { status: 'answered', value: answer.value };
      }
      errorOutput.write(
        style.yellow(`  ${JSON.stringify(read.text)} is not an answer: ${answer.problem}. Reading the next line.`) +
          '\n',
      );
    }
  }

  close(): void {
    // The reader belongs to the handler, which closes it.
  }
}
