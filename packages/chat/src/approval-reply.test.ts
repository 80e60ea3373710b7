import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { classifyApprovalReply, parseApprovalReply, type ApprovalReply } from './approval-reply.js';

/** Issue 14, class 2: an approval is an exact answer; a question is never one (seed 003's yes/no). */
describe('classifyApprovalReply', () => {
  const cases: [string, ApprovalReply][] = [
    ['yes', 'approve'],
    ['Yes', 'approve'],
    ['  YES  ', 'approve'],
    ['approve', 'approve'],
    ['是', 'approve'],
    ['同意', 'approve'],
    ['yes 2', 'approve'],
    ['approve #1', 'approve'],
    ['yes 1, 3', 'approve'],
    ['yes 1 3', 'approve'],
    ['yes all', 'approve'],
    ['是 全部', 'approve'],
    ['同意2', 'approve'],
    ['no', 'reject'],
    ['No', 'reject'],
    ['reject', 'reject'],
    ['否', 'reject'],
    ['拒绝', 'reject'],
    ['no 2', 'reject'],
    ['reject all', 'reject'],
    // Looks like an answer, is not one in the grammar: asked again, never taken.
    ['ok', 'ambiguous'],
    ['OK', 'ambiguous'],
    ['k', 'ambiguous'],
    ['fine', 'ambiguous'],
    ['sure', 'ambiguous'],
    ['yes?', 'ambiguous'],
    ['ok?', 'ambiguous'],
    ['approve?', 'ambiguous'],
    ['👍', 'ambiguous'],
    ['👍🏻?', 'ambiguous'],
    ['yes!', 'ambiguous'],
    ['yes.', 'ambiguous'],
    ['yes please', 'ambiguous'],
    ['yes and no', 'ambiguous'],
    ['yes but change the path', 'ambiguous'],
    ['I think yes', 'ambiguous'],
    ['no, use TODO.md instead', 'ambiguous'],
    ['yes 0', 'ambiguous'],
    ['yes 1 and all', 'ambiguous'],
    ['yes\u200B', 'ambiguous'],
    ['Ｙｅｓ', 'none'],
    ['好的', 'ambiguous'],
    // Ordinary messages.
    ['', 'none'],
    ['   ', 'none'],
    ['...', 'none'],
    ['write the notes', 'none'],
    ['What does write_file do?', 'none'],
    ['yesterday was fine', 'ambiguous'],
    ['nobody knows', 'none'],
  ];

  it.each(cases)('reads %j as %s', (text, expected) => {
    expect(classifyApprovalReply(text)).toBe(expected);
  });
});

describe('parseApprovalReply', () => {
  it('names no approval in a bare yes, the numbered ones once each, or all', () => {
    expect(parseApprovalReply('yes')).toEqual({ kind: 'approve', targets: { kind: 'unnamed' } });
    expect(parseApprovalReply('yes #2, 3 2')).toEqual({
      kind: 'approve',
      targets: { kind: 'numbered', numbers: [2, 3] },
    });
    expect(parseApprovalReply('No all')).toEqual({ kind: 'reject', targets: { kind: 'all' } });
  });

  const decision = fc.constantFrom('yes', 'Yes', 'YES', 'approve', 'no', 'reject', '是', '否', '同意', '拒绝');
  const target = fc.oneof(
    fc.constant(''),
    fc.constant(' all'),
    fc
      .array(fc.integer({ min: 1, max: 999 }), { minLength: 1, maxLength: 4 })
      .map((numbers) => ` ${numbers.join(', ')}`),
  );
  const grammar = fc.tuple(decision, target).map(([word, targets]) => `${word}${targets}`);
  /** Everything the grammar takes, as an independent check: tokens, `all`, numbers. */
  const inGrammar = (text: string) =>
    /^(yes|approve|no|reject|是|否|同意|拒绝)(\s*(all|全部)|\s*#?[1-9]\d{0,2}((\s*,\s*|\s+)#?[1-9]\d{0,2})*)?$/i.test(
      text.trim(),
    );

  it('decides every message of the grammar (property)', () => {
    fc.assert(
      fc.property(grammar, (text) => {
        expect(['approve', 'reject']).toContain(classifyApprovalReply(text));
      }),
    );
  });

  it('never decides a message outside the grammar (property)', () => {
    const noise = fc.oneof(
      fc.string({ maxLength: 30 }),
      fc.string({ unit: 'grapheme', maxLength: 12 }),
      fc
        .tuple(grammar, fc.constantFrom('?', '!', '.', '？', '👍', '🏻', ' please', ' but wait', '\u200B', ' ok', ','))
        .map(([text, tail]) => text + tail),
      fc
        .tuple(
          fc.constantFrom('ok', 'k', 'sure', 'fine', '👍', 'y', 'n', 'lgtm', 'maybe', 'yes?'),
          fc.string({ maxLength: 5 }),
        )
        .map(([word, tail]) => word + tail),
    );
    fc.assert(
      fc.property(noise, (text) => {
        if (inGrammar(text)) return;
        expect(['ambiguous', 'none']).toContain(classifyApprovalReply(text));
      }),
      { numRuns: 2_000 },
    );
  });
});

describe('the answers to a call that may have run before a restart (issue 37)', () => {
  it.each([
    ['done', { kind: 'approve', targets: { kind: 'unnamed' }, resolution: 'done' }],
    ['RETRY 2', { kind: 'approve', targets: { kind: 'numbered', numbers: [2] }, resolution: 'retry' }],
    ['failed', { kind: 'reject', targets: { kind: 'unnamed' }, resolution: 'fail' }],
    ['yes', { kind: 'approve', targets: { kind: 'unnamed' } }],
  ])('reads %j', (text, parsed) => {
    expect(parseApprovalReply(text)).toEqual(parsed);
  });

  it('takes an ordinary sentence with "done" in it as a message', () => {
    expect(parseApprovalReply('done reading the notes')).toEqual({ kind: 'none' });
  });
});
