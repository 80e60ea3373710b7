import { readFileSync } from 'node:fs';
import { ANSWER_OUTCOMES, InterlockError } from '@interlock/core';
import { describe, expect, it } from 'vitest';
import { CHAT_ANSWER_OUTCOMES, chatOutcomeOf, notAllowedAsError } from './chat-reply-router.js';

/*
 * The chat's one table from what an answer came to (core's AnswerOutcome, issue 39) to what
 * it does, checked against every outcome and docs/chat.md's "What an answer came to".
 */

/** docs/chat.md's table: each outcome it names, with what the chat does. */
function documented(): Map<string, string> {
  const page = readFileSync(new URL('../../../docs/chat.md', import.meta.url), 'utf8');
  const section = page.slice(page.indexOf('### What an answer came to'));
  const table = section.slice(0, section.indexOf('\n\n', section.indexOf('| outcome')));
  const rows = new Map<string, string>();
  for (const line of table.split('\n').filter((row) => row.startsWith('| `'))) {
    const [outcomes = '', does = ''] = line.split('|').slice(1);
    for (const [, name = ''] of outcomes.matchAll(/`([a-z-]+)`/g)) rows.set(name, does);
  }
  return rows;
}

describe('the chat: what it does with each outcome of an answer (issue 39)', () => {
  it.each(ANSWER_OUTCOMES)('%s: docs/chat.md says what the table does', (outcome) => {
    const does = documented().get(outcome);
    expect(does, `docs/chat.md has no row for ${outcome}`).toBeDefined();
    const done = CHAT_ANSWER_OUTCOMES[outcome];
    const said = done === 'decided' || done === 'thrown' ? done : `\`${done}\``;
    expect(does?.trim().startsWith(said)).toBe(true);
  });

  it.each([
    ['INTERACTION_INVALID_RESPONSE', true],
    ['APPROVAL_NOT_ALLOWED', true],
    ['WORKFLOW_CHANGED', false],
    ['INTERACTION_NOT_FOUND', false],
    ['STORE_UNAVAILABLE', false],
    ['STORE_OUTCOME_UNKNOWN', false],
  ] as const)('tells the sender of %s: %s (otherwise it is thrown)', async (code, told) => {
    const refused = notAllowedAsError(Promise.reject(new InterlockError(code, 'why')));
    if (told) await expect(refused).resolves.toMatchObject({ code });
    else await expect(refused).rejects.toMatchObject({ code });
  });

  it('decides on every accepted answer, and tells the sender of one that lost or came late', () => {
    expect(chatOutcomeOf({ status: 'accepted', threadId: 't', continuation: { status: 'scheduled' } })).toBe('decided');
    expect(chatOutcomeOf({ status: 'already_answered', threadId: 't' })).toBe('already_answered');
    expect(chatOutcomeOf({ status: 'expired', threadId: 't' })).toBe('expired');
  });
});
