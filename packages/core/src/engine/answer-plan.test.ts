import { describe, expect, it } from 'vitest';
import { InterlockError } from '../errors/interlock-error.js';
import { answer, approve, AT, changed, invalid, NOW, OTHER, seenOf, type Row } from './__fixtures__/answer-seen.js';
import { planAnswer } from './answer-plan.js';
import { quorumRows } from './__fixtures__/answer-quorum-rows.js';

/*
 * planAnswer by table, with no store (issue 39): every reason an answer is refused, taken as
 * a repeat, stored or folded into a run, with what it writes. The rows of a call that needs
 * several approvers (F51) are in answer-plan-quorum.test.ts.
 */

const rows: Row[] = [
  // Refused before anything is written.
  [
    'an unknown interaction',
    { interaction: null },
    approve,
    'web:ada',
    { kind: 'refuse', reason: 'not-found', error: expect.objectContaining({ code: 'INTERACTION_NOT_FOUND' }) },
  ],
  [
    'a pending interaction whose thread is gone',
    { thread: null },
    approve,
    'web:ada',
    { kind: 'refuse', reason: 'thread-not-found', error: expect.objectContaining({ code: 'THREAD_NOT_FOUND' }) },
  ],
  [
    'a question its thread does not wait on, nobody holding it (an orphan)',
    { thread: { pendingInteractionIds: [] } },
    approve,
    'web:ada',
    { kind: 'refuse', reason: 'orphan', retire: true },
  ],
  [
    'a question past its deadline',
    { interaction: { deadline: new Date(NOW - 1).toISOString() } },
    approve,
    'web:ada',
    { kind: 'refuse', reason: 'expired', timeOut: true, goOn: true },
  ],
  [
    'an answer to a thread whose workflow changed, which this process would take forward',
    { seen: { definitions: changed } },
    approve,
    'web:ada',
    { kind: 'refuse', reason: 'definitions', error: changed },
  ],
  [
    'an input the question cannot take',
    {},
    { refused: invalid },
    'web:ada',
    { kind: 'refuse', reason: 'invalid', error: invalid },
  ],
  // Answered before.
  [
    'another person answered first',
    {
      interaction: {
        status: 'responded',
        response: { input: { approved: true }, responder: 'web:bob', respondedAt: AT },
      },
    },
    approve,
    'web:ada',
    { kind: 'refuse', reason: 'already-answered' },
  ],
  [
    'the same person answered otherwise first',
    {
      interaction: {
        status: 'processed',
        response: { input: { approved: false }, responder: 'web:ada', respondedAt: AT },
      },
    },
    approve,
    'web:ada',
    { kind: 'refuse', reason: 'already-answered' },
  ],
  [
    'the question was cancelled',
    { interaction: { status: 'failed', failureReason: 'cancelled' } },
    approve,
    'web:ada',
    { kind: 'refuse', reason: 'already-answered' },
  ],
  [
    'an input that cannot be read, after an answer',
    {
      interaction: {
        status: 'processed',
        response: { input: { approved: true }, responder: 'web:ada', respondedAt: AT },
      },
    },
    { refused: invalid },
    'web:ada',
    { kind: 'refuse', reason: 'already-answered' },
  ],
  [
    'timed out before, its thread still waiting and free',
    { interaction: { status: 'failed', failureReason: 'timeout' } },
    approve,
    'web:ada',
    { kind: 'refuse', reason: 'expired', goOn: true },
  ],
  // Repeats.
  [
    'the same answer again, applied, the thread ended',
    {
      interaction: {
        status: 'processed',
        response: { input: { approved: true }, responder: 'web:ada', respondedAt: AT },
      },
      thread: { status: 'completed' },
    },
    approve,
    'web:ada',
    { kind: 'repeat', threadStatus: 'completed' },
  ],
  [
    'the same answer again, stored and not applied',
    {
      interaction: {
        status: 'responded',
        response: { input: { approved: true }, responder: 'web:ada', respondedAt: AT },
      },
    },
    approve,
    'web:ada',
    { kind: 'continue', schedule: false },
  ],
  [
    'the same answer again, stored and not applied, with workers',
    {
      interaction: {
        status: 'responded',
        response: { input: { approved: true }, responder: 'web:ada', respondedAt: AT },
      },
      seen: { workers: true },
    },
    approve,
    'web:ada',
    { kind: 'continue', schedule: true },
  ],
  // Stored, or folded into a run here.
  ['a valid answer to a free thread', {}, approve, 'web:ada', { kind: 'fold', changes: [answer] }],
  [
    'a valid answer to a thread another process holds',
    { thread: { lease: OTHER } },
    approve,
    'web:ada',
    { kind: 'store', for: 'holder', changes: [answer] },
  ],
  [
    'a valid answer to a thread this process runs',
    { seen: { runningHere: true } },
    approve,
    'web:ada',
    { kind: 'store', for: 'run-here' },
  ],
  [
    'a question not yet waited on while another process holds the thread',
    { thread: { pendingInteractionIds: [], lease: OTHER } },
    approve,
    'web:ada',
    { kind: 'store', for: 'holder' },
  ],
  [
    'with workers, a thread not run here',
    { seen: { workers: true } },
    approve,
    'web:ada',
    { kind: 'store', for: 'worker' },
  ],
  [
    "with workers, a changed workflow is the worker's to check",
    { seen: { workers: true, definitions: changed } },
    approve,
    'web:ada',
    { kind: 'store', for: 'worker' },
  ],
  [
    'with workers, a thread this process runs',
    { seen: { workers: true, runningHere: true } },
    approve,
    'web:ada',
    { kind: 'store', for: 'run-here' },
  ],
  [
    'again after another process took the thread from the run',
    { seen: { notFolded: { conflict: 'thread-taken' } } },
    approve,
    'web:ada',
    { kind: 'store', for: 'taken' },
  ],
  [
    'again after the interaction changed under the run',
    { seen: { notFolded: { conflict: 'answer-changed' } } },
    approve,
    'web:ada',
    { kind: 'store', for: 'run-here' },
  ],
  [
    'again after a run of this process came first',
    { seen: { notFolded: { error: new InterlockError('THREAD_BUSY', 'busy') } } },
    approve,
    'web:ada',
    { kind: 'store', for: 'run-here' },
  ],
  [
    'again after the run could not start',
    { seen: { notFolded: { error: new InterlockError('TOOL_NOT_FOUND', 'no such tool') } } },
    approve,
    'web:ada',
    { kind: 'store', for: 'stalled', error: expect.objectContaining({ code: 'TOOL_NOT_FOUND' }) },
  ],
  [
    'a crash test that kills with the answer stored',
    { seen: { storeFirst: true } },
    approve,
    'web:ada',
    { kind: 'store', for: 'crash-test' },
  ],
];

describe('planAnswer (issue 39: what an answer comes to, by table)', () => {
  it.each(rows)('%s', (_name, situation, input, responder, plan) => {
    expect(planAnswer(seenOf(situation), input, responder, NOW)).toMatchObject(plan);
  });

  it('leaves a question timed out before to the process that holds its thread', () => {
    const held = seenOf({ interaction: { status: 'failed', failureReason: 'timeout' }, thread: { lease: OTHER } });
    expect(planAnswer(held, approve, 'web:ada', NOW)).toEqual({
      kind: 'refuse',
      reason: 'expired',
      threadId: 'thread-1',
    });
  });

  it('plans every kind from the two tables', () => {
    const kinds = new Set(
      [...rows, ...quorumRows].map(
        ([, situation, input, responder]) => planAnswer(seenOf(situation), input, responder, NOW).kind,
      ),
    );
    expect([...kinds].sort()).toEqual(['continue', 'count', 'fold', 'refuse', 'repeat', 'store']);
  });
});
