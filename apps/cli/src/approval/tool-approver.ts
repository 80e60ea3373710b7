import type { ToolApprovalResponse, UserInteractionRequest } from '@interlock/sdk-types';
import type { BatchPosition } from './tool-call-view.js';

/** How asking about one tool call ended. */
export type ApprovalResult =
  /** The person decided; `response` is what the handler returns to the engine. */
  | { status: 'answered'; response: ToolApprovalResponse }
  /** The person pressed Ctrl+C at the prompt: the call is rejected and the run stops. */
  | { status: 'interrupted' }
  /** Standard input ended before an answer was read: the call stays pending. */
  | { status: 'no-input' }
  /** The engine stopped waiting (answered elsewhere, timed out, shut down). */
  | { status: 'aborted' };

/** How the person wants to answer several calls that wait at once. */
export type BatchChoice =
  | { status: 'one-by-one' }
  | { status: 'approve-all' }
  | { status: 'reject-all'; denyReason?: string }
  | { status: 'interrupted' }
  | { status: 'aborted' };

/**
 * Asks the engine whether it would accept an answer, without recording it: the CLI wires
 * this to `interlock.checkResponse`, so an edit can be re-asked until it is valid.
 */
export type ResponseChecker = (
  interactionId: string,
  response: ToolApprovalResponse,
) => Promise<{ ok: true } | { ok: false; message: string }>;

/** Asks a person about tool calls: interactively in a terminal, or line by line from a pipe. */
export interface ToolApprover {
  /** Shows every call of a batch and asks how to answer them; `signal` ends the question. */
  chooseForBatch(requests: readonly UserInteractionRequest[], signal: AbortSignal): Promise<BatchChoice>;
  /** Asks about one call (a request whose `toolApproval` is set). */
  approve(request: UserInteractionRequest, position: BatchPosition, signal: AbortSignal): Promise<ApprovalResult>;
  /** Shows the answer given to a call when the batch was answered at once. */
  reportBatchAnswer(request: UserInteractionRequest, response: ToolApprovalResponse): void;
}

/** The answer of a call rejected by Ctrl+C at its prompt. */
export const INTERRUPTED_RESPONSE: ToolApprovalResponse = { approved: false, denyReason: 'interrupted' };
