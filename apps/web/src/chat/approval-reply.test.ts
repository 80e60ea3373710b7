import { describe, expect, it } from 'vitest';
import { classifyApprovalReply, parseApprovalReply, type ApprovalReply } from './approval-reply.js';

describe('classifyApprovalReply', () => {
  const cases: [string, ApprovalReply][] = [
    // Clear yes, in the ways people type it.
    ['yes', 'approve'],
    ['Yes', 'approve'],
    ['YES!', 'approve'],
    ['  yes.  ', 'approve'],
    ['y', 'approve'],
    ['Y', 'approve'],
    ['ok', 'approve'],
    ['OK!!', 'approve'],
    ['okay', 'approve'],
    ['sure', 'approve'],
    ['Sure.', 'approve'],
    ['approve', 'approve'],
    ['Approved', 'approve'],
    ['yep', 'approve'],
    ['yes please', 'approve'],
    ['Yes, please!', 'approve'],
    ['ok thanks', 'approve'],
    ['go ahead', 'approve'],
    ['Go ahead.', 'approve'],
    ['do it', 'approve'],
    ['👍', 'approve'],
    ['好的', 'approve'],
    ['Ｙｅｓ', 'approve'],
    ['yes 2', 'approve'],
    ['approve #1', 'approve'],
    ['yes 1 and 3', 'approve'],
    ['yes 1, 3', 'approve'],
    ['yes to all', 'approve'],
    ['all', 'approve'],
    ['approve both', 'approve'],
    // Clear no.
    ['no', 'reject'],
    ['No.', 'reject'],
    ['NO!!!', 'reject'],
    ['n', 'reject'],
    ['nope', 'reject'],
    ['Nope!', 'reject'],
    ['reject', 'reject'],
    ['deny', 'reject'],
    ['denied', 'reject'],
    ['nah', 'reject'],
    ['no thanks', 'reject'],
    ["don't", 'reject'],
    ['Don’t do it.', 'reject'],
    ['do not', 'reject'],
    ['👎', 'reject'],
    ['拒绝', 'reject'],
    ['no 2', 'reject'],
    ['reject all', 'reject'],
    // Looks like an answer, is not a clear one: never an approval.
    ["no, don't… yes", 'ambiguous'],
    ['yes and no', 'ambiguous'],
    ['yes but change the path', 'ambiguous'],
    ['Yes, but write it to docs/NOTES.md', 'ambiguous'],
    ['no wait yes', 'ambiguous'],
    ['ok no', 'ambiguous'],
    ['yes no', 'ambiguous'],
    ['sure, what do you need?', 'ambiguous'],
    ['no, use TODO.md instead', 'ambiguous'],
    ['I think yes', 'ambiguous'],
    ['maybe approve it later', 'ambiguous'],
    ['yes 1 and all', 'ambiguous'],
    // Ordinary messages.
    ['write the notes', 'none'],
    ['What does write_file do?', 'none'],
    ['yesterday was fine', 'none'],
    ['there is no file called NOTES.md', 'none'],
    ['nobody knows', 'none'],
    ['okapi facts please', 'none'],
    ['', 'none'],
    ['   ', 'none'],
    ['...', 'none'],
  ];

  it.each(cases)('reads %j as %s', (text, expected) => {
    expect(classifyApprovalReply(text)).toBe(expected);
  });
});

describe('parseApprovalReply', () => {
  it('names no approval in a bare yes', () => {
    expect(parseApprovalReply('yes')).toEqual({ kind: 'approve', targets: { kind: 'unnamed' } });
  });

  it('names the numbered approvals, once each', () => {
    expect(parseApprovalReply('yes #2, 3 and 2')).toEqual({ kind: 'approve', targets: { kind: 'numbered', numbers: [2, 3] } });
  });

  it('names every approval with "all"', () => {
    expect(parseApprovalReply('No to all.')).toEqual({ kind: 'reject', targets: { kind: 'all' } });
    expect(parseApprovalReply('all')).toEqual({ kind: 'approve', targets: { kind: 'all' } });
  });

  it('refuses number 0 as a target', () => {
    expect(parseApprovalReply('yes 0')).toEqual({ kind: 'ambiguous' });
  });
});
