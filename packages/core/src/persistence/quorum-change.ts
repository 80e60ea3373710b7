import type { InteractionRecord, QuorumProgress } from './records.js';
import type { Conflict, InteractionChange } from './unit-of-work.js';

/** The changes of a call that needs several approvals (F51). */
export type QuorumChange = Extract<InteractionChange, { kind: 'approve-partially' | 'escalate' }>;

/**
 * What a quorum change makes of the stored interaction (pure; the in-memory and SQLite stores
 * apply it, the PostgreSQL commit function does the same in SQL): the interaction with its new
 * progress, nothing (`unchanged`: the responder approved these arguments already), or the
 * conflict that refuses the unit.
 */
export function applyQuorumChange(
  stored: InteractionRecord | undefined,
  change: QuorumChange,
): { next: InteractionRecord } | 'unchanged' | { conflict: Conflict } {
  const { interactionId } = change;
  if (stored === undefined) return { conflict: { kind: 'interaction-not-found', interactionId } };
  if (stored.status !== 'pending') return { conflict: { kind: 'interaction-not-pending', interaction: stored } };
  const progress: QuorumProgress = stored.quorum ?? { approvals: [] };
  if (change.kind === 'escalate') {
    if (progress.escalatedAt !== undefined) return { conflict: { kind: 'quorum-changed', interaction: stored } };
    return { next: { ...stored, quorum: { ...progress, escalatedAt: change.at }, updatedAt: change.at } };
  }
  const { approval, seen } = change;
  const same = progress.approvals.filter((given) => given.argumentsHash === approval.argumentsHash);
  if (same.length !== seen) return { conflict: { kind: 'quorum-changed', interaction: stored } };
  if (same.some((given) => given.responder === approval.responder)) return 'unchanged';
  return {
    next: { ...stored, quorum: { ...progress, approvals: [...same, approval] }, updatedAt: approval.approvedAt },
  };
}
