import type { Interlock } from '@interlock/core';
import type { UserInteractionRequest } from '@interlock/sdk-types';

/** Where a tool approval shown in a chat stands. */
export type ChatApprovalStatus = 'pending' | 'approved' | 'rejected' | 'expired' | 'cancelled';

/**
 * One line of a chat as a person sees it.
 * - `user`: a message someone sent (also a yes/no the channel consumed: it is shown, never delivered).
 * - `assistant`: the agent's reply.
 * - `approval`: a tool call waiting for (or given) a yes or no; `approval` says which and how it ended.
 * - `notice`: what the channel or a tool reports: a question back ("which one?"), a refusal,
 *   "expired", "already answered", a tool's outcome.
 */
export interface ChatEntry {
  /** Stable while the chat lives: the same line keeps its id from one transcript to the next. */
  id: string;
  role: 'user' | 'assistant' | 'approval' | 'notice';
  text: string;
  /** ISO 8601. */
  at: string;
  author?: string;
  interactionId?: string;
  approval?: {
    toolName: string;
    arguments: Record<string, unknown>;
    status: ChatApprovalStatus;
    answeredBy?: string;
  };
  /** A user message the agent has not taken yet (it is busy); it is delivered when it next asks. */
  queued?: boolean;
  /** A user message the channel kept from the agent: a yes or no it took as an approval reply, or one it refused or asked about. */
  consumed?: boolean;
}

/** Why a message was answered by a notice instead of being acted on. */
export type ChatNoticeReason = 'not_allowed' | 'expired' | 'already_answered' | 'cancelled' | 'chat_ended';

/** What `receive` did with a message. */
export type ReceiveResult =
  /** A yes or no that answered approval(s); it never reaches the agent. `interactionIds` lists every one it answered ("yes all"). */
  | { kind: 'approval'; interactionId: string; decision: 'approve' | 'reject'; interactionIds: string[] }
  /** Several approvals pending and the reply did not say which, or an unclear reply: the channel asked which / asked again. Nothing changed. */
  | { kind: 'clarify'; text: string }
  /** Delivered to the agent, or `queued` until the agent next asks for a message. */
  | { kind: 'agent'; queued: boolean }
  /** A yes or no the channel refused (the author may not approve, the approval expired or was already answered, the chat ended). Nothing changed. */
  | { kind: 'notice'; reason: ChatNoticeReason; text: string };

export interface ChatChannelOptions {
  interlock: Interlock;
  /** The id of the chat workflow, already loaded or registered (e.g. {@link chatDemoWorkflow}). */
  workflow: string;
  /** The channel the chat threads run on; register {@link ChatChannel.handler} for it. Default `chat`. */
  channel?: string;
  /** Whether `author` may answer tool approvals of threads of `workflowId`. Default: everyone may. */
  canApprove?: (author: string, workflowId: string) => boolean;
  /**
   * Why `author` may not answer this one request, past `canApprove` (undefined: they may):
   * separation of duties — the person who opened the chat (`request.session.requestedBy`)
   * and `askedBy`, the person whose message led the agent to the call (in a shared channel,
   * whoever wrote), may not approve the levels it covers. Default: everyone may.
   */
  mayAnswer?: (author: string, request: UserInteractionRequest, askedBy: string | undefined) => string | undefined;
  /** Time source for the channel's own entries, for tests. Default `Date.now`. */
  now?: () => number;
  /**
   * Runs before a chat is opened: makes sure `workflow` is registered (a deployment's web
   * server registers what its live workers serve), or throws WORKFLOW_NOT_FOUND saying why.
   */
  beforeOpen?: () => Promise<void>;
}
