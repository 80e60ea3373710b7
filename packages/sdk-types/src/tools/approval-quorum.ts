import { z } from 'zod';
import { Duration } from '../workflow/duration.js';
import { RiskLevel } from './tool-types.js';

/** Whom an approval that waits too long is offered to (F51). */
export const QuorumEscalation = z.strictObject({
  /** How long the approvals may wait before the call is offered to `approvers` too. */
  after: Duration.refine((ms) => ms > 0, 'an escalation comes after some time: more than 0'),
  /**
   * Responders (as they answer: `web:carol`, `cli:dave`) who may approve the call from then
   * on, and not before.
   */
  approvers: z.array(z.string().min(1)).min(1),
});
export type QuorumEscalation = z.infer<typeof QuorumEscalation>;

/**
 * N-of-M approvals (F51): a call at or above `minRisk` runs only once `required` different
 * approvers approved the same arguments. The thread's requester never counts; an edit by one
 * approver resets the others' approvals; a rejection by any approver ends it.
 */
export const QuorumConfig = z.strictObject({
  /** How many different approvers. Default 2. */
  required: z.number().int().min(2).max(20).default(2),
  /** The lowest risk that needs them. Default HIGH. */
  minRisk: RiskLevel.default('HIGH'),
  escalation: QuorumEscalation.optional(),
});
export type QuorumConfig = z.infer<typeof QuorumConfig>;
export type QuorumConfigInput = z.input<typeof QuorumConfig>;

/**
 * On a TOOL_APPROVAL request: how many approvals the call needs and, as read from the store
 * (`interlock.pending()`), how many it has — "1 of 2".
 */
export const ApprovalQuorum = z.strictObject({
  required: z.number().int().min(2),
  /** Approvals given so far, all for the same arguments. */
  given: z.number().int().nonnegative(),
  /** Who gave them. */
  approvedBy: z.array(z.string()),
  /** The arguments the approvals given are for, when an approver edited them (otherwise `toolParameters`). */
  arguments: z.record(z.string(), z.unknown()).optional(),
  /** When the call is offered to the escalation approvers too, and whether it was. */
  escalation: z.strictObject({ at: z.string(), approvers: z.array(z.string()), escalated: z.boolean() }).optional(),
});
export type ApprovalQuorum = z.infer<typeof ApprovalQuorum>;
