import { input, select } from '@inquirer/prompts';
import type { ToolApprovalDetails, ToolApprovalResponse, UserInteractionRequest } from '@interlock/sdk-types';
import { Countdown } from '../countdown.js';
import { countdownSelect } from '../countdown-select.js';
import type { TerminalStyle } from '../terminal-style.js';
import { describeResponse } from './describe-response.js';
import { editArguments } from './edit-arguments.js';
import {
  describeBatch,
  describeToolCall,
  describeWholeResult,
  resultWasCut,
  type BatchPosition,
} from './tool-call-view.js';
import type { ApprovalResult, BatchChoice, ResponseChecker, ToolApprover } from './tool-approver.js';

/** Where an {@link InteractiveToolApprover} draws its prompts. */
export interface InteractiveToolApproverOptions {
  input: NodeJS.ReadableStream;
  output: NodeJS.WritableStream;
  style: TerminalStyle;
  checkResponse?: ResponseChecker;
  /** Where `VISUAL` and `EDITOR` are read. Default `process.env`. */
  environment?: NodeJS.ProcessEnv;
}

type Action = 'approve' | 'remember' | 'edit' | 'reject' | 'instruct';

/**
 * Asks about tool calls in a terminal with inquirer prompts. It shows the call (tool,
 * description, category, risk, the rule that asked, stage, the exact arguments), then offers:
 * approve; approve and remember for this session (where offered); edit the arguments
 * (re-asked until valid, or abandoned back to the choices); reject with an optional reason;
 * or add an instruction for the model, approving or rejecting with it. At the result stage
 * it shows the result and offers approve or reject; for a call whose outcome is unknown (the
 * recovery stage) it offers done, retry or failed. A call with a deadline counts it down
 * in its choice. Ctrl+C gives `interrupted`.
 */
export class InteractiveToolApprover implements ToolApprover {
  constructor(private readonly options: InteractiveToolApproverOptions) {}

  async chooseForBatch(requests: readonly UserInteractionRequest[], signal: AbortSignal): Promise<BatchChoice> {
    const { output, style } = this.options;
    output.write(`${describeBatch(requests, style).join('\n')}\n`);
    const deadlines = requests.flatMap((request) => (request.deadline === null ? [] : [Date.parse(request.deadline)]));
    const deadline = deadlines.length === 0 ? undefined : Math.min(...deadlines);
    return this.guard(signal, async () => {
      const choice = await countdownSelect(
        {
          message: 'How do you want to answer them?',
          choices: [
            { value: 'one-by-one', name: 'One by one (see each call in full)' },
            { value: 'approve-all', name: `Approve all ${requests.length}` },
            { value: 'reject-all', name: `Reject all ${requests.length}` },
          ],
          countdown: deadline === undefined ? undefined : new Countdown(deadline, style),
        },
        this.context(signal),
      );
      if (choice === 'approve-all') return { status: 'approve-all' };
      if (choice === 'one-by-one') return { status: 'one-by-one' };
      const reason = await this.askReason(signal);
      return reason === undefined ? { status: 'reject-all' } : { status: 'reject-all', denyReason: reason };
    });
  }

  async approve(
    request: UserInteractionRequest,
    position: BatchPosition,
    signal: AbortSignal,
  ): Promise<ApprovalResult> {
    const details = request.toolApproval;
    if (!details) throw new Error(`interaction ${request.interactionId} is not a tool approval`);
    this.options.output.write(`${describeToolCall(details, this.options.style, position).join('\n')}\n`);
    return this.guard(signal, async () => {
      const response =
        details.stage === 'result'
          ? await this.askResult(request, signal)
          : details.stage === 'recovery'
            ? await this.askRecovery(request, signal)
            : await this.askExecution(request, details, signal);
      return { status: 'answered', response };
    });
  }

  reportBatchAnswer(request: UserInteractionRequest, response: ToolApprovalResponse): void {
    const { output, style } = this.options;
    const paint = response.approved ? style.green : style.red;
    output.write(
      `  ${request.toolApproval?.toolName ?? request.interactionId}: ${paint(describeResponse(response))}\n`,
    );
  }

  private async askExecution(
    request: UserInteractionRequest,
    details: ToolApprovalDetails,
    signal: AbortSignal,
  ): Promise<ToolApprovalResponse> {
    for (;;) {
      const action = await countdownSelect<Action>(
        {
          message: request.prompt,
          choices: [
            { value: 'approve', name: 'Approve' },
            ...(details.rememberable
              ? [{ value: 'remember' as const, name: 'Approve and remember for this session' }]
              : []),
            { value: 'edit', name: 'Edit arguments' },
            { value: 'reject', name: 'Reject' },
            { value: 'instruct', name: 'Add an instruction for the model' },
          ],
          countdown: this.countdown(request),
        },
        this.context(signal),
      );
      switch (action) {
        case 'approve':
          return { approved: true };
        case 'remember':
          return { approved: true, remember: true };
        case 'reject': {
          const reason = await this.askReason(signal);
          return reason === undefined ? { approved: false } : { approved: false, denyReason: reason };
        }
        case 'edit': {
          const edited = await editArguments(request, {
            ...this.options,
            signal,
            environment: this.options.environment ?? process.env,
          });
          if (edited !== undefined) return { approved: true, editedParameters: edited };
          continue;
        }
        case 'instruct': {
          const answer = await this.askInstruction(signal);
          if (answer !== undefined) return answer;
          continue;
        }
      }
    }
  }

  private async askResult(request: UserInteractionRequest, signal: AbortSignal): Promise<ToolApprovalResponse> {
    const cut = resultWasCut(request.toolApproval?.result);
    let verdict: 'approve' | 'reject' | 'expand';
    for (;;) {
      verdict = await countdownSelect<'approve' | 'reject' | 'expand'>(
        {
          message: request.prompt,
          choices: [
            { value: 'approve', name: 'Approve: the model sees the result' },
            { value: 'reject', name: 'Reject: the model is told the result was withheld' },
            ...(cut ? [{ value: 'expand' as const, name: 'Show the whole result' }] : []),
          ],
          countdown: this.countdown(request),
        },
        this.context(signal),
      );
      if (verdict !== 'expand') break;
      this.options.output.write(`${describeWholeResult(request.toolApproval?.result).join('\n')}\n`);
    }
    if (verdict === 'approve') return { approved: true };
    const reason = await this.askReason(signal);
    return reason === undefined ? { approved: false } : { approved: false, denyReason: reason };
  }

  /**
   * A call that started before the process stopped, its outcome unknown (F40): it ran (done),
   * run it again (retry), or it failed. Nothing else answers it: approve does not say which.
   */
  private async askRecovery(request: UserInteractionRequest, signal: AbortSignal): Promise<ToolApprovalResponse> {
    const resolution = await countdownSelect<'done' | 'retry' | 'fail'>(
      {
        message: request.prompt,
        choices: [
          { value: 'done', name: 'Done: it ran, go on without running it again' },
          { value: 'retry', name: 'Retry: run it again' },
          { value: 'fail', name: 'Failed: report to the model that it failed' },
        ],
        countdown: this.countdown(request),
      },
      this.context(signal),
    );
    if (resolution !== 'fail') return { approved: true, resolution };
    const reason = await this.askReason(signal);
    return { approved: false, resolution, ...(reason === undefined ? {} : { denyReason: reason }) };
  }

  /** The instruction and whether to approve or reject with it; undefined goes back to the choices. */
  private async askInstruction(signal: AbortSignal): Promise<ToolApprovalResponse | undefined> {
    const { style } = this.options;
    const text = await input(
      { message: `Instruction for the model ${style.dim('(an empty line goes back)')}` },
      this.context(signal),
    );
    const instruction = text.trim();
    if (instruction === '') return undefined;
    const verdict = await select(
      {
        message: 'Approve or reject the call together with the instruction?',
        choices: [
          { value: 'approve', name: 'Approve the call, and tell the model' },
          { value: 'reject', name: 'Reject the call, and tell the model' },
        ],
      },
      this.context(signal),
    );
    return { approved: verdict === 'approve', userInstruction: instruction };
  }

  private async askReason(signal: AbortSignal): Promise<string | undefined> {
    const { style } = this.options;
    const reason = await input(
      { message: `Reason, for the model ${style.dim('(optional; Enter to skip)')}` },
      this.context(signal),
    );
    return reason.trim() === '' ? undefined : reason.trim();
  }

  /** The choice of a call with a deadline counts down the time left. */
  private countdown(request: UserInteractionRequest): Countdown | undefined {
    return request.deadline === null ? undefined : new Countdown(Date.parse(request.deadline), this.options.style);
  }

  private context(signal: AbortSignal) {
    return { input: this.options.input, output: this.options.output, signal };
  }

  /** Runs a prompt sequence; Ctrl+C becomes `interrupted`, an aborted wait `aborted`. */
  private async guard<T>(
    signal: AbortSignal,
    ask: () => Promise<T>,
  ): Promise<T | { status: 'interrupted' } | { status: 'aborted' }> {
    try {
      return await ask();
    } catch (error) {
      if (hasName(error, 'ExitPromptError')) return { status: 'interrupted' };
      if (hasName(error, 'AbortPromptError') || signal.aborted) return { status: 'aborted' };
      throw error;
    }
  }
}

/** Inquirer's errors are matched by name: its error classes are not exported by @inquirer/prompts. */
function hasName(error: unknown, name: string): boolean {
  return error instanceof Error && error.name === name;
}
