import { readFileSync } from 'node:fs';
import { ANSWER_OUTCOMES, InterlockError, type AnswerOutcome, type InteractionRecord } from '@interlock/core';
import { describe, expect, it } from 'vitest';
import { ANSWER_REPLIES, answerNotStored, invalidAnswer, notPending } from './answer-outcome.js';

/*
 * The inbox's one table from what an answer came to (core's AnswerOutcome, issue 39) to its
 * reply, checked against every outcome and against docs/web.md's "What an answer came to".
 */

/** The rows of docs/web.md's table: each outcome it names, with the reply cell of its row. */
function documentedReplies(): Map<string, string[]> {
  const page = readFileSync(new URL('../../../../docs/web.md', import.meta.url), 'utf8');
  const section = page.slice(page.indexOf('### What an answer came to'));
  const table = section.slice(0, section.indexOf('\n\n', section.indexOf('| outcome')));
  const replies = new Map<string, string[]>();
  for (const line of table.split('\n').filter((row) => row.startsWith('| `'))) {
    const [outcomes = '', , reply = ''] = line.split('|').slice(1);
    for (const [, name = ''] of outcomes.matchAll(/`([a-z-]+)`/g))
      replies.set(name, [...(replies.get(name) ?? []), reply]);
  }
  return replies;
}

const record = (overrides: Partial<InteractionRecord>) =>
  ({ interactionId: 'i-1', threadId: 't-1', status: 'pending', deadline: null, ...overrides }) as InteractionRecord;

/** The reply the server gives for each outcome that is not an accepted answer. */
const refusals: Partial<Record<AnswerOutcome, () => unknown>> = {
  'already-answered': () =>
    notPending(record({ status: 'responded', response: { input: true, responder: 'web:bob', respondedAt: 'then' } })),
  expired: () => notPending(record({ status: 'failed', failureReason: 'timeout' })),
  invalid: () => invalidAnswer('expected { approved }'),
  'not-allowed': () => answerNotStored(new InterlockError('APPROVAL_NOT_ALLOWED', 'the requester')),
  'workflow-changed': () => answerNotStored(new InterlockError('WORKFLOW_CHANGED', 'edited')),
  'not-found': () => answerNotStored(new InterlockError('INTERACTION_NOT_FOUND', 'no such interaction')),
  'not-stored': () => answerNotStored(new InterlockError('STORE_UNAVAILABLE', 'away')),
  unknown: () => answerNotStored(new InterlockError('STORE_OUTCOME_UNKNOWN', 'cut off')),
};

describe("the inbox's replies to an answer, one row per outcome (issue 39)", () => {
  it.each(ANSWER_OUTCOMES)('%s: docs/web.md shows the reply the table gives', (outcome) => {
    const reply = ANSWER_REPLIES[outcome];
    const rows = documentedReplies().get(outcome);
    expect(rows, `docs/web.md has no row for ${outcome}`).toBeDefined();
    const documented = (rows ?? []).join(' ');
    expect(documented).toContain(String(reply.status));
    if (reply.status === 200) expect(documented).toContain(reply.continuation);
    else if (reply.code !== undefined) expect(documented).toContain(reply.code);
  });

  it.each(ANSWER_OUTCOMES.filter((outcome) => ANSWER_REPLIES[outcome].status !== 200))(
    '%s: the server replies with the status and code of its row',
    (outcome) => {
      const reply = ANSWER_REPLIES[outcome];
      const error = refusals[outcome]?.();
      expect(error).toMatchObject({
        statusCode: reply.status,
        ...('code' in reply && reply.code ? { code: reply.code } : {}),
      });
    },
  );

  it('leaves an error that is no outcome of an answer to the caller', () => {
    expect(answerNotStored(new InterlockError('INVALID_OPTIONS', 'closed'))).toBeUndefined();
    expect(answerNotStored(new Error('a bug'))).toBeUndefined();
  });
});
