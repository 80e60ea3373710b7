import type {
  InputKind,
  IUserInteractionHandler,
  ToolApprovalResponse,
  UserInteractionContext,
  UserInteractionHandlerResult,
  UserInteractionRequest,
} from '@interlock/sdk-types';
import { InquirerPrompter } from './inquirer-prompter.js';
import { LinePrompter } from './line-prompter.js';
import type { Prompter, Question } from './prompter.js';
import { colourWanted, createTerminalStyle } from './terminal-style.js';

/** Streams and mode of a {@link TerminalUserInteractionHandler}; every field has a default. */
export interface TerminalUserInteractionHandlerOptions {
  /** Where answers come from. Default `process.stdin`. */
  input?: NodeJS.ReadableStream & { isTTY?: boolean };
  /** Where questions are shown. Default `process.stdout`. */
  output?: NodeJS.WritableStream & { isTTY?: boolean };
  /** Where problems and the "how to answer" advice go. Default `process.stderr`. */
  errorOutput?: NodeJS.WritableStream & { isTTY?: boolean };
  /** Ask with interactive prompts. Default: when `input` is a terminal. */
  interactive?: boolean;
}

const DEFERRED: UserInteractionHandlerResult = { outcome: 'deferred' };

/**
 * The `cli` channel's handler: asks a person in the terminal.
 *
 * In a terminal it draws prompts (text, yes/no, a list, JSON). Otherwise it reads one line
 * per question from standard input, so answers can be piped in. It never answers on the
 * person's behalf: Ctrl+C, an aborted wait or exhausted input all return `deferred`, and
 * the thread is left waiting.
 *
 * @example
 * const handler = new TerminalUserInteractionHandler();
 * const interlock = await createInterlock({ handlers: { cli: handler } });
 */
export class TerminalUserInteractionHandler implements IUserInteractionHandler {
  private readonly prompter: Prompter;
  private readonly errorOutput: NodeJS.WritableStream & { isTTY?: boolean };
  private readonly interruptedThreads = new Set<string>();

  constructor(options: TerminalUserInteractionHandlerOptions = {}) {
    const input = options.input ?? process.stdin;
    const output = options.output ?? process.stdout;
    this.errorOutput = options.errorOutput ?? process.stderr;
    const style = createTerminalStyle(colourWanted(output));
    this.prompter =
      (options.interactive ?? input.isTTY === true)
        ? new InquirerPrompter({ input, output, style })
        : new LinePrompter({ input, output, errorOutput: this.errorOutput, style });
  }

  /** True when the person pressed Ctrl+C at a question of this thread. */
  wasInterrupted(threadId: string): boolean {
    return this.interruptedThreads.has(threadId);
  }

  async handle(request: UserInteractionRequest, context: UserInteractionContext): Promise<UserInteractionHandlerResult> {
    if (context.signal.aborted) return DEFERRED;
    const result = await this.prompter.ask(questionOf(request), context.signal);
    switch (result.status) {
      case 'answered':
        return { outcome: 'responded', input: answerOf(request, result.value), responder: 'terminal' };
      case 'interrupted':
        this.interruptedThreads.add(request.threadId);
        return DEFERRED;
      case 'no-input':
        this.errorOutput.write(noInputAdvice(request));
        return DEFERRED;
      case 'aborted':
        return DEFERRED;
    }
  }

  /** Stops reading standard input so the process can exit. */
  close(): void {
    this.prompter.close();
  }
}

function questionOf(request: UserInteractionRequest): Question {
  const hint = request.deadline === null ? undefined : `answer within ${formatDuration(request.timeout)}`;
  const approval = request.toolApproval;
  if (approval) {
    const parameters = JSON.stringify(approval.toolParameters);
    const message =
      `${request.prompt}\nAllow tool "${approval.toolName}" (${approval.category}, risk ${approval.riskLevel}, rule ${approval.rule})` +
      ` with ${parameters}?`;
    // A tool call is refused unless the person says yes.
    return withHint({ message, kind: { kind: 'confirm', default: false } }, hint);
  }
  const kind: InputKind = request.input ?? { kind: 'text' };
  return withHint({ message: request.prompt, kind }, hint);
}

function withHint(question: Question, hint: string | undefined): Question {
  return hint === undefined ? question : { ...question, hint };
}

function answerOf(request: UserInteractionRequest, value: unknown): unknown {
  if (!request.toolApproval) return value;
  const response: ToolApprovalResponse = { approved: value === true };
  return response;
}

function noInputAdvice(request: UserInteractionRequest): string {
  return [
    `interlock: no answer for the question at node "${request.nodeId}": standard input has no more lines.`,
    `To answer from a pipe, give one line per question, in order, for example:`,
    `  printf 'yes\\n' | interlock run <workflow>`,
    `or run the command in a terminal to answer interactively.`,
    '',
  ].join('\n');
}

function formatDuration(milliseconds: number): string {
  if (milliseconds % 60_000 === 0) return `${milliseconds / 60_000} min`;
  if (milliseconds % 1000 === 0) return `${milliseconds / 1000} s`;
  return `${milliseconds} ms`;
}
