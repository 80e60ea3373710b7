import type { ICheckpointStore, Interlock } from '@interlock/core';
import type { WorkflowDefinition } from '@interlock/sdk-types';
import type { ApproverDirectory } from './auth/approver-directory.js';
import type { DutyLevel, Principal } from './auth/approvers.js';
import type { SessionStore } from './auth/sessions.js';
import type { LiveUpdates } from './live-updates.js';
import { WebError } from './web-error.js';

/** What the routes share: the engine, the store it runs on, who may answer, and the live feed. */
export interface WebContext {
  interlock: Interlock;
  /** Read only: the timeline and an interaction's state come from here. */
  store: ICheckpointStore;
  /** Who may answer which workflow, as the approvers file says now. */
  access: ApproverDirectory;
  sessions: SessionStore;
  live: LiveUpdates;
  /** Workflows an approver may start from the page (in a deployment, those some live worker serves). */
  startable: () => Promise<readonly WorkflowDefinition[]>;
  /** The channel of threads started from the page. */
  channel: string;
  /** The chat's channel: its threads' own questions (the next message) are answered in the chat, not the inbox. */
  chatChannel?: string;
  /** The server's time (the engine's clock), for deadlines shown on the page. */
  now: () => number;
}

/**
 * Refuses an approver who is not on the workflow's list (403 NOT_AN_APPROVER), for actions on
 * a workflow the caller already named (start it, open its chat). The message names no other
 * approver. For a thread or an interaction looked up by id, use {@link mayApprove} and
 * answer "not found" instead, so an id says nothing to someone who may not see it.
 */
export function assertMayApprove(context: WebContext, workflowId: string, approver: Principal | undefined): string {
  if (approver === undefined) throw new WebError(401, 'UNAUTHENTICATED', 'sign in first');
  if (!context.access.mayApprove(workflowId, approver)) {
    throw new WebError(
      403,
      'NOT_AN_APPROVER',
      `${approver.name} is not on the approver list of workflow "${workflowId}": ask the server's operator to add you (or a group of yours) to its list`,
    );
  }
  return approver.name;
}

/** Whether the signed-in `approver` may see threads of `workflowId` (and answer `level` requests of it, given a level). */
export function mayApprove(
  context: WebContext,
  workflowId: string,
  approver: Principal | undefined,
  level?: DutyLevel,
): approver is Principal {
  return approver !== undefined && context.access.mayApprove(workflowId, approver, level);
}

/** The name an answer is recorded under in the store and the audit trail. */
export function responderOf(approver: string): string {
  return `web:${approver}`;
}
