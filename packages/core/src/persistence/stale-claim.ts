import { InterlockError } from '../errors/interlock-error.js';
import type { ClaimFence } from './checkpoint-store.js';

/** The refusal of a fenced write whose claim another process took (every store says it the same way). */
export function staleClaim(fence: ClaimFence): InterlockError {
  return new InterlockError(
    'STORE_CONFLICT',
    `this process no longer holds thread ${fence.threadId} (its claim, epoch ${fence.epoch}, was taken by another process after it expired): it stops and writes nothing`,
    { details: { threadId: fence.threadId, epoch: fence.epoch } },
  );
}

/**
 * The stop of a run whose claim ran out by its own clock, or whose renewal the store refused
 * (it froze, or could not reach the store): it writes nothing more, and the process that
 * takes the thread next asks what became of a call it was running (F40, F53).
 */
export function lostClaim(fence: ClaimFence): InterlockError {
  return new InterlockError(
    'STORE_CONFLICT',
    `this process's claim on thread ${fence.threadId} (epoch ${fence.epoch}) ran out before it was renewed (the process froze or could not reach the store): its run stops and writes nothing more; resume the thread, and a call it was running is asked about`,
    { details: { threadId: fence.threadId, epoch: fence.epoch } },
  );
}
