import { InterlockError } from '../errors/interlock-error.js';
import type { AnswerPlanKind } from './answer-plan.js';
import type { RespondResult } from './respond-result.js';

/**
 * What an answer given through `respond()` came to, as every surface reports it: the web
 * inbox, `interlock respond`, the chat and the MCP server each keep one table from these to
 * what they say (docs/web.md, docs/cli.md, docs/chat.md, docs/mcp.md: "What an answer came
 * to"). The first six are results of `respond()` (`accepted` with its continuation); the
 * others are what it refused or could not do.
 */
export type AnswerOutcome =
  /** Stored; this process takes the thread forward now. */
  | 'continued'
  /** Stored with the job that has a worker serving the thread's version take it forward. */
  | 'scheduled'
  /** Stored; the process that holds the thread applies it (or applied it already). */
  | 'elsewhere'
  /** Stored, but the thread did not go on (and why). */
  | 'stalled'
  /** An approval of a call that needs several, counted; the call waits for the rest (F51). */
  | 'awaiting-approvals'
  /** The same answer again: it was applied, and the thread has ended since. */
  | 'finished'
  /** Someone answered first, or the question was called off: this answer changed nothing. */
  | 'already-answered'
  /** The deadline passed: refused, and the question timed out. */
  | 'expired'
  /** Refused before anything was stored: the input does not fit the question, or the rules refuse an edit. */
  | 'invalid'
  /** Refused before anything was stored: an approval that cannot count toward a call that needs several (F51). */
  | 'not-allowed'
  /** Refused before anything was stored: the thread's workflow changed under it (where this process would take it forward). */
  | 'workflow-changed'
  /** No such interaction (or thread). */
  | 'not-found'
  /** Not stored: the store failed first. */
  | 'not-stored'
  /** The connection failed while it was committed: it may or may not be stored (the same answer again is safe). */
  | 'unknown';

/** Every {@link AnswerOutcome}, in the order the docs' tables list them. */
export const ANSWER_OUTCOMES: readonly AnswerOutcome[] = [
  'continued',
  'scheduled',
  'elsewhere',
  'stalled',
  'awaiting-approvals',
  'finished',
  'already-answered',
  'expired',
  'invalid',
  'not-allowed',
  'workflow-changed',
  'not-found',
  'not-stored',
  'unknown',
];

/**
 * The plans of the answer desk (engine/answer-plan.ts) each outcome comes from; the two store
 * failures come from none (the store failed before the plan was carried out, or while).
 */
export const PLANS_OF_OUTCOME: Readonly<Record<AnswerOutcome, readonly AnswerPlanKind[]>> = {
  continued: ['fold', 'store', 'continue'],
  scheduled: ['store', 'continue'],
  elsewhere: ['store', 'repeat', 'continue'],
  stalled: ['store', 'continue'],
  'awaiting-approvals': ['count', 'repeat'],
  finished: ['repeat'],
  'already-answered': ['refuse'],
  expired: ['refuse'],
  invalid: ['refuse'],
  'not-allowed': ['refuse'],
  'workflow-changed': ['refuse'],
  'not-found': ['refuse'],
  'not-stored': [],
  unknown: [],
};

/** What a result of `respond()` came to. */
export function answerOutcomeOf(result: RespondResult): AnswerOutcome {
  switch (result.status) {
    case 'accepted':
      return result.continuation.status;
    case 'already_answered':
      return 'already-answered';
    case 'expired':
      return 'expired';
  }
}

/**
 * What an error `respond()` threw came to; undefined for an error that is no answer's outcome
 * (a bug, a closed instance): rethrow it.
 */
export function answerFailureOf(error: unknown): AnswerOutcome | undefined {
  if (!InterlockError.is(error)) return undefined;
  switch (error.code) {
    case 'INTERACTION_INVALID_RESPONSE':
      return 'invalid';
    case 'APPROVAL_NOT_ALLOWED':
      return 'not-allowed';
    case 'WORKFLOW_CHANGED':
    case 'WORKFLOW_VERSION_MISMATCH':
      return 'workflow-changed';
    case 'INTERACTION_NOT_FOUND':
    case 'THREAD_NOT_FOUND':
      return 'not-found';
    case 'STORE_UNAVAILABLE':
      return 'not-stored';
    case 'STORE_OUTCOME_UNKNOWN':
      return 'unknown';
    default:
      return undefined;
  }
}
