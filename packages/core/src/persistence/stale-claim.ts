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
