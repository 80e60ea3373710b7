import { InterlockError, servedVersions, type RespondResult } from '@interlock/core';
import type { WebContext } from './web-context.js';
import { WebError } from './web-error.js';

/** What became of a stored answer, as the inbox says it (docs/web.md, "What an answer came to"). */
export type AnswerContinuation =
  'continued' | 'scheduled' | 'elsewhere' | 'stalled' | 'finished' | 'awaiting-approvals';

/** What an accepted answer returns: it is stored; `continuation` and `message` say what happens next. */
export interface AnswerAccepted {
  result: 'accepted';
  interactionId: string;
  threadId: string;
  continuation: AnswerContinuation;
  /** True only when the thread went on in this server's process (`continuation: 'continued'`). */
  continued: boolean;
  /** The same answer from the same approver was stored before (a retry). */
  repeated?: true;
  /** For `scheduled`: whether a live worker serves the thread's workflow version now. */
  served?: boolean;
  /** For `stalled`: why the thread did not go on. */
  error?: { code: string; message: string };
  /** For `awaiting-approvals` (a call that needs several approvers, F51): this approval is `given` of `required`; the call waits for the rest. */
  approvals?: { given: number; required: number };
  /** What happened, in a sentence the page shows. */
  message: string;
}

/**
 * The response to an answer `respond()` stored, saying what became of its thread: going on
 * here, left to a worker (and whether one serving its version is alive), applied by the
 * process that holds it, ended already, or stalled (and why).
 */
export async function acceptedAnswer(
  context: WebContext,
  interactionId: string,
  result: Extract<RespondResult, { status: 'accepted' }>,
): Promise<AnswerAccepted> {
  const { threadId, continuation } = result;
  const base = {
    result: 'accepted' as const,
    interactionId,
    threadId,
    continuation: continuation.status,
    continued: continuation.status === 'continued',
    ...(result.repeated === true ? { repeated: true as const } : {}),
  };
  const stored = result.repeated === true ? 'Your answer was stored before' : 'Your answer is stored';
  switch (continuation.status) {
    case 'continued':
      return { ...base, message: `${stored}; the thread goes on now.` };
    case 'elsewhere':
      return { ...base, message: `${stored}; the process running the thread applies it.` };
    case 'finished':
      return { ...base, message: `${stored} and was applied; the thread has ${continuation.threadStatus} since.` };
    case 'awaiting-approvals': {
      const { given, required } = continuation;
      const more = required - given;
      return {
        ...base,
        approvals: { given, required },
        message: `${result.repeated === true ? 'Your approval was counted before' : 'Your approval is counted'}: ${given} of ${required}. The call runs once ${more} more approver${more === 1 ? '' : 's'} approve the same arguments.`,
      };
    }
    case 'stalled':
      return {
        ...base,
        error: { code: continuation.code, message: continuation.message },
        message: `${stored}, but the thread did not go on (${continuation.code}: ${continuation.message}). It goes on once that is fixed; nothing needs answering again.`,
      };
    case 'scheduled': {
      const thread = await context.store.getThread(threadId);
      const version = thread === undefined ? undefined : { id: thread.workflowId, version: thread.workflowVersion };
      const served =
        version !== undefined &&
        (await servedVersions(context.store, context.now())).some(
          (entry) => entry.workflowId === version.id && entry.version === version.version,
        );
      const which = version === undefined ? 'its workflow' : `workflow "${version.id}" version ${version.version}`;
      return {
        ...base,
        served,
        message: served
          ? `${stored}; a worker serving ${which} takes the thread on.`
          : `${stored}, but no live worker serves ${which} now: the thread goes on when one starts.`,
      };
    }
  }
}

/**
 * An error of `respond()` that the inbox reports as is: the answer was not stored (the
 * thread's workflow changed under it, the database failed before it) or may have been (the
 * connection failed during the commit). Undefined for anything else.
 */
export function answerNotStored(error: unknown): WebError | undefined {
  if (!InterlockError.is(error)) return undefined;
  switch (error.code) {
    case 'WORKFLOW_VERSION_MISMATCH':
    case 'WORKFLOW_CHANGED':
      return new WebError(409, error.code, `your answer was not stored: ${error.message}`, error.details);
    case 'STORE_UNAVAILABLE':
      return new WebError(
        503,
        'STORE_UNAVAILABLE',
        `your answer was not stored: the database failed (${error.message}). Send it again when it is back`,
      );
    case 'STORE_OUTCOME_UNKNOWN':
      return new WebError(
        503,
        'STORE_OUTCOME_UNKNOWN',
        `the database connection failed while your answer was being committed: it may or may not be stored. Reload the interaction: if it still waits, send your answer again (the same answer again is safe)`,
      );
    default:
      return undefined;
  }
}
