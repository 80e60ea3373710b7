import type { ToolApprovalDetails, ToolApprovalResponse, UserInteractionRequest } from '@interlock/sdk-types';
import { deadlineHint } from '../format-duration.js';
import type { LineReader } from '../line-reader.js';
import type { TerminalStyle } from '../terminal-style.js';
import { APPROVAL_LINE_SYNTAX, parseApprovalLine, RECOVERY_LINE_SYNTAX, type ApprovalLine } from './approval-line.js';
import { describeResponse } from './describe-response.js';
import { describeBatch, describeToolCall, type BatchPosition } from './tool-call-view.js';
import type { ApprovalResult, BatchChoice, ResponseChecker, ToolApprover } from './tool-approver.js';

/** Where a {@link PipedToolApprover} reads and writes. */
export interface PipedToolApproverOptions {
  /** The one reader of standard input, shared with the other questions. */
  lines: () => LineReader;
  /** Where questions and the answers read are echoed. */
  output: NodeJS.WritableStream;
  /** Where lines that are not an answer are reported. */
  errorOutput: NodeJS.WritableStream;
  style: TerminalStyle;
  checkResponse?: ResponseChecker;
}

/**
 * Answers tool approvals from piped standard input, one line per pending call (see
 * {@link parseApprovalLine}: `y`, `n: reason`, `edit {json}`, `i: instruction`; `done`, `retry`
 * or `failed` for a call whose outcome is unknown). It echoes
 * each question and the answer, reports a line that is not an answer (or that the engine
 * would refuse) and reads the next one, and returns `no-input` when input runs out: it
 * never approves on anybody's behalf.
 */
export class PipedToolApprover implements ToolApprover {
  constructor(private readonly options: PipedToolApproverOptions) {}

  async chooseForBatch(requests: readonly UserInteractionRequest[]): Promise<BatchChoice> {
    const { output, style } = this.options;
    output.write(`${describeBatch(requests, style).join('\n')}\n`);
    output.write(`${style.dim('  one line per call, in this order')}\n`);
    return { status: 'one-by-one' };
  }

  async approve(
    request: UserInteractionRequest,
    position: BatchPosition,
    signal: AbortSignal,
  ): Promise<ApprovalResult> {
    const { output, errorOutput, style } = this.options;
    const details = request.toolApproval;
    if (!details) throw new Error(`interaction ${request.interactionId} is not a tool approval`);
    output.write(`${style.cyan('?')} ${style.bold(request.prompt)}\n`);
    output.write(
      `${describeToolCall(details, style, position)
        .map((line) => `  ${line}`)
        .join('\n')}\n`,
    );
    const syntax =
      details.stage === 'result'
        ? 'y | n[: reason]'
        : details.stage === 'recovery'
          ? RECOVERY_LINE_SYNTAX
          : details.rememberable
            ? APPROVAL_LINE_SYNTAX
            : APPROVAL_LINE_SYNTAX.replace(' | remember', '');
    const hint = deadlineHint(request);
    output.write(style.dim(`  answer: ${syntax}${hint === undefined ? '' : ` · ${hint}`}`) + '\n');
    for (;;) {
      const read = await this.options.lines().next(signal);
      if (read.status === 'ended') return { status: 'no-input' };
      if (read.status === 'aborted') return { status: 'aborted' };
      const answer = await this.interpret(request, read.text, details);
      if (answer.status === 'invalid') {
        errorOutput.write(
          style.yellow(`  ${JSON.stringify(read.text)} is not an answer: ${answer.problem}. Reading the next line.`) +
            '\n',
        );
        continue;
      }
      const { response } = answer;
      output.write(`${style.cyan('>')} ${read.text}\n`);
      output.write(`  ${(response.approved ? style.green : style.red)(`→ ${describeResponse(response)}`)}\n`);
      return { status: 'answered', response };
    }
  }

  reportBatchAnswer(request: UserInteractionRequest, response: ToolApprovalResponse): void {
    this.options.output.write(
      `  ${request.toolApproval?.toolName ?? request.interactionId}: ${describeResponse(response)}\n`,
    );
  }

  /** The response a line stands for, or why it is not one (by its syntax, or because the engine would refuse it). */
  private async interpret(
    request: UserInteractionRequest,
    line: string,
    details: ToolApprovalDetails,
  ): Promise<ApprovalLine> {
    const parsed = parseApprovalLine(line, details);
    if (parsed.status === 'invalid') return parsed;
    const check = await this.options.checkResponse?.(request.interactionId, parsed.response);
    if (check !== undefined && !check.ok) return { status: 'invalid', problem: check.message };
    return parsed;
  }
}
