import { describe, expect, it } from 'vitest';
import { InterlockError } from '../errors/interlock-error.js';
import type { AnswerPlanKind } from './answer-plan.js';
import { ANSWER_OUTCOMES, answerFailureOf, answerOutcomeOf, PLANS_OF_OUTCOME } from './answer-outcome.js';

/* What an answer came to, as every surface reports it (issue 39): one outcome per row of their tables. */

describe('answer outcomes', () => {
  it.each([
    [{ status: 'accepted', threadId: 't', continuation: { status: 'continued' } }, 'continued'],
    [{ status: 'accepted', threadId: 't', continuation: { status: 'scheduled' } }, 'scheduled'],
    [{ status: 'accepted', threadId: 't', continuation: { status: 'elsewhere' } }, 'elsewhere'],
    [
      { status: 'accepted', threadId: 't', continuation: { status: 'stalled', code: 'INTERNAL', message: 'm' } },
      'stalled',
    ],
    [
      { status: 'accepted', threadId: 't', continuation: { status: 'awaiting-approvals', given: 1, required: 2 } },
      'awaiting-approvals',
    ],
    [
      {
        status: 'accepted',
        threadId: 't',
        continuation: { status: 'finished', threadStatus: 'completed' },
        repeated: true,
      },
      'finished',
    ],
    [{ status: 'already_answered', threadId: 't' }, 'already-answered'],
    [{ status: 'expired', threadId: 't' }, 'expired'],
  ] as const)('says what a result came to: %j', (result, outcome) => {
    expect(answerOutcomeOf(result)).toBe(outcome);
  });

  it.each([
    ['INTERACTION_INVALID_RESPONSE', 'invalid'],
    ['APPROVAL_NOT_ALLOWED', 'not-allowed'],
    ['WORKFLOW_CHANGED', 'workflow-changed'],
    ['WORKFLOW_VERSION_MISMATCH', 'workflow-changed'],
    ['INTERACTION_NOT_FOUND', 'not-found'],
    ['THREAD_NOT_FOUND', 'not-found'],
    ['STORE_UNAVAILABLE', 'not-stored'],
    ['STORE_OUTCOME_UNKNOWN', 'unknown'],
  ] as const)('says what an answer refused or cut off came to: %s', (code, outcome) => {
    expect(answerFailureOf(new InterlockError(code, 'why'))).toBe(outcome);
  });

  it('leaves other errors alone: they are no outcome of an answer', () => {
    expect(answerFailureOf(new InterlockError('INVALID_OPTIONS', 'closed'))).toBeUndefined();
    expect(answerFailureOf(new Error('a bug'))).toBeUndefined();
  });

  it('comes from a plan of the desk, and every plan comes to an outcome', () => {
    const kinds: AnswerPlanKind[] = ['refuse', 'repeat', 'count', 'store', 'fold', 'continue'];
    const reached = new Set(ANSWER_OUTCOMES.flatMap((outcome) => PLANS_OF_OUTCOME[outcome]));
    expect([...reached].sort()).toEqual([...kinds].sort());
    const fromNoPlan = ANSWER_OUTCOMES.filter((outcome) => PLANS_OF_OUTCOME[outcome].length === 0);
    expect(fromNoPlan).toEqual(['not-stored', 'unknown']);
  });
});
