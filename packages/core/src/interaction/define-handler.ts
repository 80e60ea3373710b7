import type {
  IUserInteractionHandler,
  ToolApprovalResponse,
  UserInteractionContext,
  UserInteractionHandlerResult,
  UserInteractionRequest,
} from '@interlock/sdk-types';

/** A handler's answer to a tool approval, typed: approve, edit, reject, with an instruction or "remember". */
export interface ToolApprovalAnswer {
  outcome: 'responded';
  input: ToolApprovalResponse;
  responder?: string;
}

/**
 * Declares a handler (an app's way of asking a person) with its types checked and its own
 * literal types kept. A handler answers `responded` (the person's answer), `cancelled`, or
 * `deferred` (nobody here can answer: the thread waits durably for `interlock.respond()`).
 *
 * @example
 * const handler = defineHandler({
 *   async handle(request) {
 *     if (request.operationType !== 'TOOL_APPROVAL') return { outcome: 'deferred' };
 *     return approve({ userInstruction: 'keep it short' });
 *   },
 * });
 */
export function defineHandler<Handler extends IUserInteractionHandler>(handler: Handler): Handler {
  return handler;
}

/** `{ outcome: 'responded', input: { approved: true, … } }`: approve a tool call, optionally with edits or an instruction. */
export function approve(
  details: Omit<ToolApprovalResponse, 'approved' | 'denyReason'> = {},
  responder?: string,
): ToolApprovalAnswer {
  return {
    outcome: 'responded',
    input: { ...details, approved: true },
    ...(responder === undefined ? {} : { responder }),
  };
}

/** `{ outcome: 'responded', input: { approved: false, denyReason } }`: reject a tool call; the model is told why. */
export function reject(denyReason?: string, responder?: string): ToolApprovalAnswer {
  return {
    outcome: 'responded',
    input: { approved: false, ...(denyReason === undefined ? {} : { denyReason }) },
    ...(responder === undefined ? {} : { responder }),
  };
}

export type {
  IUserInteractionHandler,
  UserInteractionContext,
  UserInteractionHandlerResult,
  UserInteractionRequest,
  ToolApprovalResponse,
};
