import {
  InterlockError,
  answerFailureOf,
  answerOutcomeOf,
  servedVersions,
  type AnswerOutcome,
  type InteractionRecord,
  type RespondResult,
} from '@interlock/core';
import type { WebContext } from './web-context.js';
import { WebError, type WebErrorCode } from './web-error.js';

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

/** One row of the inbox's table: the HTTP status of the reply, and its `continuation` or error code. */
export type AnswerReply =
  | { status: 200; continuation: AnswerContinuation }
  /** `code` absent: the code of the error `respond()` threw (WORKFLOW_CHANGED or WORKFLOW_VERSION_MISMATCH; INTERACTION_NOT_FOUND or THREAD_NOT_FOUND). */
  | { status: 403 | 404 | 409 | 410 | 422 | 503; code?: WebErrorCode };

/**
 * How the inbox replies to each outcome of an answer: one table, the rows of docs/web.md's
 * "What an answer came to" (answer-outcome.test.ts checks every one).
 */
export const ANSWER_REPLIES: Readonly<Record<AnswerOutcome, AnswerReply>> = {
  continued: { status: 200, continuation: 'continued' },
  scheduled: { status: 200, continuation: 'scheduled' },
  elsewhere: { status: 200, continuation: 'elsewhere' },
  stalled: { status: 200, continuation: 'stalled' },
  'awaiting-approvals': { status: 200, continuation: 'awaiting-approvals' },
  finished: { status: 200, continuation: 'finished' },
  'already-answered': { status: 409, code: 'INTERACTION_ALREADY_ANSWERED' },
  expired: { status: 410, code: 'INTERACTION_EXPIRED' },
  invalid: { status: 422, code: 'INTERACTION_INVALID_RESPONSE' },
  'not-allowed': { status: 403, code: 'APPROVAL_NOT_ALLOWED' },
  'workflow-changed': { status: 409 },
  'not-found': { status: 404 },
  'not-stored': { status: 503, code: 'STORE_UNAVAILABLE' },
  unknown: { status: 503, code: 'STORE_OUTCOME_UNKNOWN' },
};

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
  const reply = ANSWER_REPLIES[answerOutcomeOf(result)];
  if (reply.status !== 200) throw new InterlockError('INTERNAL', `an accepted answer has no reply ${reply.status}`);
  const base = {
    result: 'accepted' as const,
    interactionId,
    threadId,
    continuation: reply.continuation,
    continued: reply.continuation === 'continued',
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

/** The error reply of an outcome that is not an accepted answer, with its sentence. */
function refusal(
  outcome: AnswerOutcome,
  code: WebErrorCode | undefined,
  message: string,
  details?: Record<string, unknown>,
): WebError {
  const reply = ANSWER_REPLIES[outcome];
  const replyCode = 'code' in reply ? reply.code : code;
  if (reply.status === 200 || replyCode === undefined)
    throw new InterlockError('INTERNAL', `no error reply for ${outcome}`);
  return new WebError(reply.status, replyCode, message, details);
}

/**
 * An error of `respond()` as the inbox replies to it, from its row of {@link ANSWER_REPLIES}:
 * refused before anything was stored (the input, a quorum's rules, the thread's workflow
 * changed under it, no such interaction), not stored (the database failed before it) or maybe
 * stored (the connection failed during the commit). Undefined for any other error.
 */
export function answerNotStored(error: unknown): WebError | undefined {
  const outcome = answerFailureOf(error);
  if (outcome === undefined || !(error instanceof Error)) return undefined;
  const code = (error as { code?: WebErrorCode }).code;
  const details = (error as { details?: Record<string, unknown> }).details;
  switch (outcome) {
    case 'invalid':
      return invalidAnswer(error.message);
    case 'not-allowed':
    case 'not-found':
      return refusal(outcome, code, error.message);
    case 'workflow-changed':
      return refusal(outcome, code, `your answer was not stored: ${error.message}`, details);
    case 'not-stored':
      return refusal(
        outcome,
        code,
        `your answer was not stored: the database failed (${error.message}). Send it again when it is back`,
      );
    case 'unknown':
      return refusal(
        outcome,
        code,
        `the database connection failed while your answer was being committed: it may or may not be stored. Reload the interaction: if it still waits, send your answer again (the same answer again is safe)`,
      );
    default:
      return undefined;
  }
}

/** The reply to an answer the input kind or the rules refused (`invalid`): nothing stored, still pending. */
export function invalidAnswer(message: string): WebError {
  return refusal(
    'invalid',
    undefined,
    `the answer was refused: ${message}. Fix it and send it again; the interaction is still pending`,
  );
}

/** The reply to an answer given to an interaction no longer pending: `expired`, or `already-answered` (by whom, when). */
export function notPending(record: InteractionRecord): WebError {
  const details = { interactionId: record.interactionId, threadId: record.threadId, status: record.status };
  if (record.status === 'failed' && record.failureReason === 'timeout')
    return refusal(
      'expired',
      undefined,
      `interaction ${record.interactionId} expired at ${record.deadline ?? 'its deadline'}: the answer was refused and nothing ran for it`,
      details,
    );
  if (record.response !== undefined) {
    const by = record.response.responder ?? 'another responder';
    const { respondedAt } = record.response;
    return refusal(
      'already-answered',
      undefined,
      `interaction ${record.interactionId} was already answered by ${by} at ${respondedAt}: your answer changed nothing`,
      { ...details, answeredBy: by, answeredAt: respondedAt },
    );
  }
  return refusal(
    'already-answered',
    undefined,
    `interaction ${record.interactionId} is no longer pending (${record.failureReason ?? record.status}${record.failureMessage === undefined ? '' : `: ${record.failureMessage}`}): your answer changed nothing`,
    details,
  );
}
