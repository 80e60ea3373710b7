import type { Continuation } from '../engine/respond-result.js';
import type { InteractionResponseRecord, ThreadRecord } from '../persistence/checkpoint-store.js';
import { canonicalJson } from '../policy/canonical-arguments.js';

/*
 * What `respond()` tells an answerer about an answer given before (issue 28), as pure
 * functions the engine calls: whether it repeats the answer stored, and what became of a
 * thread whose answer was applied already.
 */

/**
 * Whether an answer repeats the one stored: the same value from the same responder (a retry
 * of the same call). The same value from another person is not a repeat: their answer
 * lost to the first (`already_answered`), and they are told who answered.
 *
 * @param value - the new answer as the interpreter reads it; throws when it cannot be read.
 */
export function isRepeatedAnswer(
  stored: InteractionResponseRecord | undefined,
  value: () => unknown,
  responder: string | undefined,
): boolean {
  if (stored === undefined || stored.responder !== responder) return false;
  try {
    return canonicalJson(value()) === canonicalJson(stored.input);
  } catch {
    return false;
  }
}

/**
 * What to tell a responder whose answer was applied already (a repeat): another process is
 * taking the thread forward (`elsewhere`), or the thread has ended (`finished`): nobody
 * applies anything any more.
 */
export function continuationOfApplied(thread: Pick<ThreadRecord, 'status'> | undefined): Continuation {
  const status = thread?.status;
  if (status === 'completed' || status === 'failed' || status === 'cancelled')
    return { status: 'finished', threadStatus: status };
  return { status: 'elsewhere' };
}
