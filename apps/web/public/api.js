// The page's side of the HTTP API: JSON in and out, the session's CSRF token on every state change.

// What the routes answer (apps/web/src/server/routes), for the type check only: built from
// @interlock/sdk-types where the contract lives there, and written out where it is the web
// server's own (timeline.ts, live-updates.ts), the chat package's (packages/chat/src/chat-types.ts) or core's (the audit trail).

/** @typedef {import('@interlock/sdk-types').UserInteractionRequest} UserInteractionRequest */
/** @typedef {import('@interlock/sdk-types').ToolApprovalDetails} ToolApprovalDetails */
/** @typedef {import('@interlock/sdk-types').ToolApprovalResponse} ToolApprovalResponse */
/** @typedef {import('@interlock/sdk-types').InteractionStatus} InteractionStatus */
/** @typedef {import('@interlock/sdk-types').InteractionFailureReason} InteractionFailureReason */
/** @typedef {import('@interlock/sdk-types').ApprovalStage} ApprovalStage */
/** @typedef {import('@interlock/sdk-types').ThreadError} ThreadError */
/** @typedef {import('@interlock/sdk-types').Message} Message */

/** @typedef {{ code?: string, message?: string, details?: unknown }} ErrorBody The body of every error response. */
/** @typedef {{ approver: string, csrfToken?: string }} Session GET and POST /api/session. */

/** @typedef {{ serverTime: string, interactions: Array<UserInteractionRequest & { mayAnswer: boolean, mayApprove: boolean, why?: string }> }} PendingInteractions GET /api/interactions. */
/**
 * GET /api/interactions/:id: where one interaction stands.
 * @typedef {{ request: UserInteractionRequest, status: InteractionStatus, response?: { input: unknown, responder?: string, respondedAt: string }, failureReason?: InteractionFailureReason, failureMessage?: string }} InteractionState
 */
/**
 * The body of POST /api/interactions/:id/respond (AnswerBody in src/server/answer-body.ts).
 * @typedef {{ action: 'approve' | 'edit' | 'reject' | 'answer', arguments?: Record<string, unknown>, reason?: string, instruction?: string, remember?: boolean, resolution?: 'done' | 'retry' | 'failed' | 'fail', value?: unknown }} AnswerBody
 */
/**
 * POST /api/interactions/approve-batch: one result per interaction.
 * What an answer the server stored came to (AnswerAccepted in src/server/answer-outcome.ts).
 * @typedef {{ result: 'accepted', interactionId: string, threadId: string, continuation: 'continued' | 'scheduled' | 'elsewhere' | 'stalled' | 'finished' | 'awaiting-approvals', continued: boolean, repeated?: true, served?: boolean, error?: { code: string, message: string }, approvals?: { given: number, required: number }, message: string }} AnswerAccepted
 */

/**
 * @typedef {{ results: Array<AnswerAccepted | { result: 'refused', interactionId: string, code: string, message: string }> }} BatchResults
 */

/** @typedef {'running' | 'waiting' | 'completed' | 'failed' | 'cancelled'} ThreadStatus */
/**
 * A thread as listed (ThreadSummary in src/server/timeline.ts).
 * @typedef {{ threadId: string, workflowId: string, status: ThreadStatus, channel: string, pendingInteractionIds: string[], createdAt: string, updatedAt: string, error?: ThreadError }} ThreadSummary
 */
/**
 * One line of a thread's history (TimelineEntry in src/server/timeline.ts).
 * @typedef {{ at: string, kind: 'thread' | 'question' | 'answer' | 'decision' | 'tool', title: string, actor?: string, interactionId?: string, toolCallId?: string, detail?: unknown }} TimelineEntry
 */
/** @typedef {{ thread: ThreadSummary, entries: TimelineEntry[], conversation: Message[] }} ThreadTimeline GET /api/threads/:id. */
/** @typedef {{ id: string, name: string, version: string, description?: string }} WorkflowSummary One of GET /api/workflows. */

/**
 * One decision of the audit trail (AuditEntry of @interlock/core).
 * @typedef {{ sequence: number, at: string, threadId: string, toolCallId: string, toolName: string, outcome: 'allow' | 'deny', decidedBy: string, rule: string, reason: string, responder?: string, stage: ApprovalStage, originalArguments: Record<string, unknown>, editedArguments?: Record<string, unknown>, toolDefinitionHash?: string, interactionId?: string, previousHash: string, hash: string }} AuditEntry
 */
/** @typedef {{ valid: true, entries: number } | { valid: false, brokenAt: number, reason: string }} AuditVerification GET /api/audit/verify. */

/** @typedef {{ chatId: string, threadId: string, status: ThreadStatus, createdAt: string }} ChatSummary One of GET /api/chats. */
/**
 * One line of a chat (ChatEntry in packages/chat/src/chat-types.ts).
 * @typedef {{ id: string, role: 'user' | 'assistant' | 'approval' | 'notice', text: string, at: string, author?: string, interactionId?: string, approval?: ChatApproval, queued?: boolean, consumed?: boolean }} ChatEntry
 */
/** @typedef {{ toolName: string, arguments: Record<string, unknown>, status: 'pending' | 'approved' | 'rejected' | 'expired' | 'cancelled', answeredBy?: string }} ChatApproval */

/**
 * A `change` message of GET /api/events (LiveChange in src/server/live-updates.ts).
 * @typedef {{ kind: 'interaction' | 'thread' | 'chat', reason: string, threadId?: string, interactionId?: string, responder?: string, chatId?: string }} LiveChange
 */

let csrfToken = '';

/** @param {string | undefined} token */
export function setCsrfToken(token) {
  csrfToken = token ?? '';
}

/** An error response of the API: { code, message } and the HTTP status. */
export class ApiError extends Error {
  /**
   * @param {number} status
   * @param {ErrorBody | undefined} body
   */
  constructor(status, body) {
    super(body?.message ?? `the server answered ${status}`);
    this.status = status;
    this.code = body?.code ?? 'UNKNOWN';
    this.details = body?.details;
  }
}

/**
 * What to tell the person about a failure: an Error's message (what fetch, JSON.parse and
 * ApiError throw), anything else as text.
 * @param {unknown} error
 */
export function messageOf(error) {
  return error instanceof Error ? error.message : String(error);
}

/**
 * Calls the API. Throws ApiError for any status >= 400. The answer is the server's JSON:
 * the caller says which of the shapes above it is.
 * @param {string} path
 * @param {{ method?: string, body?: unknown }} [options]
 * @returns {Promise<unknown>}
 */
export async function api(path, options = {}) {
  const method = options.method ?? 'GET';
  /** @type {Record<string, string>} */
  const headers = { accept: 'application/json' };
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  if (method !== 'GET') headers['x-csrf-token'] = csrfToken;
  const response = await fetch(path, {
    method,
    headers,
    credentials: 'same-origin',
    ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
  });
  const text = await response.text();
  /** @type {unknown} */
  const body = text === '' ? undefined : JSON.parse(text);
  if (!response.ok) throw new ApiError(response.status, /** @type {ErrorBody | undefined} */ (body));
  return body;
}
