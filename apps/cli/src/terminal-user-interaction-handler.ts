import type {
  InputKind,
  IUserInteractionHandler,
  UserInteractionContext,
  UserInteractionHandlerResult,
  UserInteractionRequest,
} from '@interlock/sdk-types';
import { APPROVAL_LINE_SYNTAX, RECOVERY_LINE_SYNTAX } from './approval/approval-line.js';
import { InteractiveToolApprover } from './approval/interactive-tool-approver.js';
import { PipedToolApprover } from './approval/piped-tool-approver.js';
import { callLabel, type BatchPosition } from './approval/tool-call-view.js';
import {
  INTERRUPTED_RESPONSE,
  type BatchChoice,
  type ResponseChecker,
  type ToolApprover,
} from './approval/tool-approver.js';
import { deadlineHint } from './format-duration.js';
import { InquirerPrompter } from './inquirer-prompter.js';
import { LinePrompter } from './line-prompter.js';
import { LineReader } from './line-reader.js';
import type { Prompter, Question } from './prompter.js';
import { QuestionQueue, type QueuedQuestion } from './question-queue.js';
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
  /** Checks an approval answer before it is given (wire it to `interlock.checkResponse`). */
  checkResponse?: ResponseChecker;
  /** Where `VISUAL` and `EDITOR` are read for editing arguments. Default `process.env`. */
  environment?: NodeJS.ProcessEnv;
  /**
   * Called when Ctrl+C at an approval prompt rejected that call: the app should stop the run
   * once the rejection is recorded (the CLI closes the Interlock, leaving the thread resumable).
   */
  onApprovalInterrupted?: (request: UserInteractionRequest) => void;
  /** How the advice for piped input names the command, e.g. `interlock demo coding-agent`. Default `interlock run <workflow>`. */
  commandLine?: string;
}

const DEFERRED: UserInteractionHandlerResult = { outcome: 'deferred' };

/**
 * The `cli` channel's handler: asks a person in the terminal.
 *
 * In a terminal it draws prompts (text, yes/no, a list, JSON, tool approvals with their
 * arguments). Otherwise it reads one line per question from standard input, so answers
 * can be piped in. Questions are asked one at a time: when a model proposes several calls
 * at once, the person first sees them all and may approve or reject them all together.
 *
 * It never approves on the person's behalf. Ctrl+C at a tool approval rejects that call
 * (`denyReason: "interrupted"`); Ctrl+C at another question, an aborted wait or exhausted
 * input return `deferred`, and the thread is left waiting. After Ctrl+C, the thread's other
 * questions are deferred too.
 *
 * @example
 * const handler = new TerminalUserInteractionHandler({ checkResponse: (id, answer) => interlock.checkResponse(id, answer) });
 * const interlock = await createInterlock({ handlers: { cli: handler } });
 */
export class TerminalUserInteractionHandler implements IUserInteractionHandler {
  private readonly prompter: Prompter;
  private readonly approver: ToolApprover;
  private readonly queue = new QuestionQueue((batch) => this.answerBatch(batch));
  private readonly errorOutput: NodeJS.WritableStream & { isTTY?: boolean };
  private readonly interruptedThreads = new Set<string>();
  private reader: LineReader | undefined;
  private approvalAdviceGiven = false;

  constructor(private readonly options: TerminalUserInteractionHandlerOptions = {}) {
    const input = options.input ?? process.stdin;
    const output = options.output ?? process.stdout;
    this.errorOutput = options.errorOutput ?? process.stderr;
    const style = createTerminalStyle(colourWanted(output));
    const checker = options.checkResponse === undefined ? {} : { checkResponse: options.checkResponse };
    if (options.interactive ?? input.isTTY === true) {
      this.prompter = new InquirerPrompter({ input, output, style });
      this.approver = new InteractiveToolApprover({
        input,
        output,
        style,
        ...checker,
        ...(options.environment ? { environment: options.environment } : {}),
      });
    } else {
      // One reader for every question: two readline interfaces over one stdin would race for its lines.
      const lines = (): LineReader => (this.reader ??= new LineReader(input));
      this.prompter = new LinePrompter({ lines, output, errorOutput: this.errorOutput, style });
      this.approver = new PipedToolApprover({ lines, output, errorOutput: this.errorOutput, style, ...checker });
    }
  }

  /** True when the person pressed Ctrl+C at a question of this thread. */
  wasInterrupted(threadId: string): boolean {
    return this.interruptedThreads.has(threadId);
  }

  async handle(
    request: UserInteractionRequest,
    context: UserInteractionContext,
  ): Promise<UserInteractionHandlerResult> {
    if (context.signal.aborted || this.interruptedThreads.has(request.threadId)) return DEFERRED;
    return this.queue.enqueue(request, context.signal);
  }

  /** Stops reading standard input so the process can exit. */
  close(): void {
    this.prompter.close();
    this.reader?.close();
  }

  private async answerBatch(batch: QueuedQuestion[]): Promise<void> {
    const approvals = batch.filter((question) => question.request.toolApproval !== undefined);
    // A call whose outcome is unknown is answered on its own: done, retry or failed (F40).
    const approvable = approvals.filter((question) => question.request.toolApproval?.stage !== 'recovery');
    if (approvable.length > 1) await this.answerAllAtOnce(approvable);
    let position = 0;
    for (const question of batch) {
      if (question.request.toolApproval) position += 1;
      if (question.settled) continue;
      if (question.signal.aborted || this.interruptedThreads.has(question.request.threadId)) {
        question.settle(DEFERRED);
        continue;
      }
      if (isOverdue(question.request)) {
        // Not drawn: the engine is timing it out, and says so.
        await abortOf(question.signal);
        question.settle(DEFERRED);
        continue;
      }
      question.settle(
        question.request.toolApproval
          ? await this.askApproval(question, { index: position, total: approvals.length })
          : await this.askQuestion(question),
      );
    }
  }

  /** Shows every call of the batch and, if the person wants, answers them all together. */
  private async answerAllAtOnce(approvals: QueuedQuestion[]): Promise<void> {
    const signal = AbortSignal.any(approvals.map((question) => question.signal));
    const choice: BatchChoice = await this.approver.chooseForBatch(
      approvals.map((question) => question.request),
      signal,
    );
    if (choice.status === 'one-by-one' || choice.status === 'aborted') return;
    for (const question of approvals) {
      if (question.settled || question.signal.aborted) continue;
      if (choice.status === 'interrupted') {
        question.settle(this.interrupt(question.request));
        continue;
      }
      const response =
        choice.status === 'approve-all'
          ? { approved: true }
          : { approved: false, ...(choice.denyReason === undefined ? {} : { denyReason: choice.denyReason }) };
      this.approver.reportBatchAnswer(question.request, response);
      question.settle({ outcome: 'responded', input: response, responder: 'terminal' });
    }
  }

  private async askApproval(question: QueuedQuestion, position: BatchPosition): Promise<UserInteractionHandlerResult> {
    const { request } = question;
    const result = await this.approver.approve(request, position, question.signal);
    switch (result.status) {
      case 'answered':
        return { outcome: 'responded', input: result.response, responder: 'terminal' };
      case 'interrupted':
        if (request.toolApproval?.stage !== 'recovery') return this.interrupt(request);
        // Ctrl+C does not say whether the call ran: it stays pending, and the thread waits.
        this.interruptedThreads.add(request.threadId);
        return DEFERRED;
      case 'no-input':
        this.errorOutput.write(this.approvalNoInputAdvice(request));
        return DEFERRED;
      case 'aborted':
        return DEFERRED;
    }
  }

  private async askQuestion(question: QueuedQuestion): Promise<UserInteractionHandlerResult> {
    const { request } = question;
    const result = await this.prompter.ask(questionOf(request), question.signal);
    switch (result.status) {
      case 'answered':
        return { outcome: 'responded', input: result.value, responder: 'terminal' };
      case 'interrupted':
        this.interruptedThreads.add(request.threadId);
        return DEFERRED;
      case 'no-input':
        this.errorOutput.write(this.noInputAdvice(request));
        return DEFERRED;
      case 'aborted':
        return DEFERRED;
    }
  }

  /** Ctrl+C at an approval: that call is rejected, the thread's other questions are deferred. */
  private interrupt(request: UserInteractionRequest): UserInteractionHandlerResult {
    this.interruptedThreads.add(request.threadId);
    this.options.onApprovalInterrupted?.(request);
    return { outcome: 'responded', input: INTERRUPTED_RESPONSE, responder: 'terminal' };
  }

  private noInputAdvice(request: UserInteractionRequest): string {
    return [
      `interlock: no answer for the question at node "${request.nodeId}": standard input has no more lines.`,
      `To answer from a pipe, give one line per question, in order, for example:`,
      `  printf 'yes\\n' | ${this.options.commandLine ?? 'interlock run <workflow>'}`,
      `or run the command in a terminal to answer interactively.`,
      '',
    ].join('\n');
  }

  private approvalNoInputAdvice(request: UserInteractionRequest): string {
    const details = request.toolApproval;
    const call = details ? callLabel(details.toolName, details.toolParameters) : request.interactionId;
    const first = `interlock: no answer for the tool call ${call}: standard input has no more lines; it stays pending.`;
    if (details?.stage === 'recovery')
      return `${first}\nIts outcome is unknown: answer it with one line, ${RECOVERY_LINE_SYNTAX}.\n`;
    if (this.approvalAdviceGiven) return `${first}\n`;
    this.approvalAdviceGiven = true;
    return [
      first,
      `To answer from a pipe, give one line per tool call that waits, in order: ${APPROVAL_LINE_SYNTAX}, for example:`,
      `  printf 'y\\nn: not now\\n' | ${this.options.commandLine ?? 'interlock run <workflow>'}`,
      `or run the command in a terminal to answer interactively.`,
      '',
    ].join('\n');
  }
}

function isOverdue(request: UserInteractionRequest): boolean {
  return request.deadline !== null && Date.parse(request.deadline) <= Date.now();
}

function abortOf(signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
}

function questionOf(request: UserInteractionRequest): Question {
  const hint = deadlineHint(request);
  const kind: InputKind = request.input ?? { kind: 'text' };
  if (hint === undefined || request.deadline === null) return { message: request.prompt, kind };
  return { message: request.prompt, kind, hint, deadline: Date.parse(request.deadline) };
}
