import type { ErrorCode } from '@interlock/sdk-types';
import type { ThreadHandle } from './thread-handle.js';

/**
 * What became of a thread after its answer was stored:
 * - `continued`: this process took it forward (`thread` is the run's handle);
 * - `elsewhere`: another process holds the thread and applies the answer (or applied it already);
 * - `scheduled`: a worker will take it forward (the answer and its job were stored together);
 * - `finished`: (a repeat) the answer was applied and the thread has ended since;
 * - `awaiting-approvals`: the call needs several approvers (F51); this approval is stored
 *   and counted (`given` of `required`), and the question stays pending for the others;
 * - `stalled`: the answer is stored but the thread did not go on, for the reason given
 *   (the database failed after the answer's commit, the definitions changed…): it goes on
 *   with `resume(threadId)` once the reason is gone.
 */
export type Continuation =
  | { status: 'continued' }
  | { status: 'elsewhere' }
  /** Threads continue in workers (`continueIn: 'workers'`): a worker serving the workflow takes it forward. */
  | { status: 'scheduled' }
  | { status: 'finished'; threadStatus: 'completed' | 'failed' | 'cancelled' }
  | { status: 'awaiting-approvals'; given: number; required: number }
  | { status: 'stalled'; code: ErrorCode; message: string };

/**
 * What `respond` did with an answer. `accepted` means the answer is stored (durably); an
 * error is thrown only when nothing was stored (or STORE_OUTCOME_UNKNOWN when the database
 * failed during the commit: repeat the call). Repeating an accepted answer is safe: the
 * same answer again is `accepted` with `repeated: true`; another answer is `already_answered`.
 */
export type RespondResult =
  | { status: 'accepted'; threadId: string; continuation: Continuation; thread?: ThreadHandle; repeated?: true }
  | { status: 'already_answered'; threadId: string }
  | { status: 'expired'; threadId: string };
