import { InterlockError, toInterlockError } from '../errors/interlock-error.js';
import type { InteractionResponses } from '../interaction/interaction-responses.js';
import type { AnswerDesk, DeskAnswer } from './answer-desk.js';
import type { AnswerSeen } from './answer-plan.js';
import type { RespondResult } from './respond-result.js';
import { conflictOf } from './run-store.js';
import type { StoredRuns } from './stored-runs.js';
import type { ThreadHandle } from './thread-handle.js';
import type { ThreadRuns } from './thread-runs.js';
import type { WaitTimers } from './wait-timers.js';

/** The parts of the runner an answer goes through once the desk planned it. */
export interface AnswerForwardParts {
  desk: AnswerDesk;
  stored: StoredRuns;
  runs: ThreadRuns;
  responses: InteractionResponses;
  timers: WaitTimers;
}

/**
 * The path of an answer through the runner (`respond()`): to the desk once, which tells what
 * it came to or hands it back to be taken forward here — folded into the first commit of a
 * run of the thread, or, stored already, continued by the run that picks it up. Only when
 * that run stores nothing (its first commit refused: another answer, approval or process came
 * first; or it could not start) does the answer go to the desk a second time, which then
 * stores it on its own and never hands it back to be folded.
 */
export async function takeAnswerForward(
  parts: AnswerForwardParts,
  interactionId: string,
  input: unknown,
  responder: string | undefined,
): Promise<RespondResult> {
  const planned = await parts.desk.answer(interactionId, input, responder);
  if (planned.kind !== 'fold') return settle(parts, planned, interactionId);
  parts.timers.disarmDeadline(interactionId);
  const again = (notFolded: NonNullable<AnswerSeen['notFolded']>) =>
    parts.desk.answer(interactionId, input, responder, notFolded).then((told) => settle(parts, told, interactionId));
  let handle: ThreadHandle;
  try {
    handle = await parts.stored.resume(planned.threadId, { stored: planned.stored, answer: planned.changes });
  } catch (error) {
    // Nothing ran, so nothing was stored. A run of this process came first (THREAD_BUSY): it
    // takes the answer. Otherwise the thread cannot go on here (a tool this process does not
    // hold): the answer is stored all the same and the thread stalls, saying why (F43).
    return again({ error: toInterlockError(error) });
  }
  // The answer is acknowledged once stored: with the run's first commit.
  try {
    await parts.runs.runOf(handle)?.firstCommit;
  } catch (error) {
    const conflict = conflictOf(error);
    if (conflict?.kind === 'thread-changed' || conflict?.kind === 'thread-busy')
      // Another process took the thread between the read and the commit: the answer goes alone.
      return again({ conflict: 'thread-taken' });
    if (conflict?.kind === 'interaction-not-pending') return again({ conflict: 'answer-changed' });
    if (conflict?.kind === 'quorum-changed') {
      // Another approval of the call was counted meanwhile (F51): once the run that stored
      // nothing has stopped, this one is counted again.
      await handle.done().catch(() => undefined);
      return again({ conflict: 'answer-changed' });
    }
    throw error;
  }
  return { status: 'accepted', threadId: planned.threadId, continuation: { status: 'continued' }, thread: handle };
}

/** What the runner does with a desk's answer that is not folded into a run. */
async function settle(parts: AnswerForwardParts, told: DeskAnswer, interactionId: string): Promise<RespondResult> {
  switch (told.kind) {
    case 'told': {
      const { result } = told;
      // A stored answer ends the wait; an approval that is not the last does not (F51).
      if (result.status === 'accepted' && result.continuation.status !== 'awaiting-approvals')
        parts.timers.disarmDeadline(interactionId);
      if (told.goOn !== undefined) parts.timers.goOnSoon({ interactionId, threadId: told.goOn, deadline: null });
      return result;
    }
    case 'continue': {
      parts.timers.disarmDeadline(interactionId);
      // A run of this process may be about to stop: it looks for answers given here before it does.
      if (told.notify) parts.responses.notify(interactionId);
      if (told.repeated === true) return { ...(await parts.stored.continueStored(told.threadId)), repeated: true };
      return parts.stored.continueStored(told.threadId, interactionId);
    }
    case 'fold':
      // Never handed back twice: a second plan stores the answer on its own.
      throw new InterlockError('INTERNAL', 'an answer the desk planned again was handed back to be folded');
  }
}
