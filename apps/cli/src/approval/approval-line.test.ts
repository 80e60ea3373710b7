import { describe, expect, it } from 'vitest';
import { parseApprovalLine } from './approval-line.js';

const execution = { stage: 'execution', rememberable: false } as const;
const rememberable = { stage: 'execution', rememberable: true } as const;
const result = { stage: 'result', rememberable: false } as const;
const recovery = { stage: 'recovery', rememberable: false } as const;

describe('parseApprovalLine for a call whose outcome is unknown (F40, issue 37)', () => {
  it.each([
    ['done', { approved: true, resolution: 'done' }],
    ['Retry', { approved: true, resolution: 'retry' }],
    ['failed', { approved: false, resolution: 'fail' }],
    ['failed: the disk was full', { approved: false, resolution: 'fail', denyReason: 'the disk was full' }],
  ])('takes %j', (line, response) => {
    expect(parseApprovalLine(line, recovery)).toEqual({ status: 'valid', response });
  });

  it.each(['y', 'yes', 'approve', 'n', 'reject', 'edit {"command":"ls"}', 'i: go on', '', 'done: twice'])(
    'refuses %j, naming the three answers',
    (line) => {
      const parsed = parseApprovalLine(line, recovery);
      expect(parsed.status).toBe('invalid');
      if (line !== 'done: twice')
        expect(parsed).toMatchObject({ problem: expect.stringMatching(/done .*retry .*failed/) });
    },
  );
});

describe('parseApprovalLine', () => {
  it.each(['y', 'yes', 'approve', ' Y ', 'YES', 'Approve'])('approves on %j', (line) => {
    expect(parseApprovalLine(line, execution)).toEqual({ status: 'valid', response: { approved: true } });
  });

  it.each(['n', 'no', 'reject', 'N', 'Reject'])('rejects on %j', (line) => {
    expect(parseApprovalLine(line, execution)).toEqual({ status: 'valid', response: { approved: false } });
  });

  it('takes the text after "n:" as the reason for the model', () => {
    expect(parseApprovalLine('n: not today', execution)).toEqual({
      status: 'valid',
      response: { approved: false, denyReason: 'not today' },
    });
    expect(parseApprovalLine('reject:too risky: it deletes files', execution)).toEqual({
      status: 'valid',
      response: { approved: false, denyReason: 'too risky: it deletes files' },
    });
    expect(parseApprovalLine('no:', execution)).toEqual({ status: 'valid', response: { approved: false } });
  });

  it('approves with an instruction on "i: …", and needs the instruction', () => {
    expect(parseApprovalLine('i: use the staging database', execution)).toEqual({
      status: 'valid',
      response: { approved: true, userInstruction: 'use the staging database' },
    });
    expect(parseApprovalLine('i:', execution)).toMatchObject({
      status: 'invalid',
      problem: expect.stringContaining('needs its text'),
    });
  });

  it('approves with edited arguments on "edit {json}"', () => {
    expect(parseApprovalLine('edit {"path": "docs/NOTES.md", "content": "hi"}', execution)).toEqual({
      status: 'valid',
      response: { approved: true, editedParameters: { path: 'docs/NOTES.md', content: 'hi' } },
    });
  });

  it('refuses an edit that is not a JSON object, saying why', () => {
    expect(parseApprovalLine('edit', execution)).toMatchObject({
      status: 'invalid',
      problem: expect.stringContaining('JSON object'),
    });
    expect(parseApprovalLine('edit {path: x}', execution)).toMatchObject({
      status: 'invalid',
      problem: expect.stringContaining('not valid JSON'),
    });
    expect(parseApprovalLine('edit ["a"]', execution)).toMatchObject({
      status: 'invalid',
      problem: expect.stringContaining('must be a JSON object'),
    });
  });

  it('offers "remember" only where the request allows it', () => {
    expect(parseApprovalLine('remember', rememberable)).toEqual({
      status: 'valid',
      response: { approved: true, remember: true },
    });
    expect(parseApprovalLine('remember', execution)).toMatchObject({
      status: 'invalid',
      problem: expect.stringContaining('not offered'),
    });
  });

  it('never reads approval into a line it does not understand', () => {
    for (const line of ['', '   ', 'maybe', 'yes please', 'y: but carefully', 'ok', 'sure', 'not now', 'nope']) {
      expect(parseApprovalLine(line, execution).status, line).toBe('invalid');
    }
    expect(parseApprovalLine('y: but carefully', execution)).toMatchObject({
      problem: expect.stringContaining('i: …'),
    });
  });

  it('allows only approve and reject at the result stage', () => {
    expect(parseApprovalLine('y', result)).toEqual({ status: 'valid', response: { approved: true } });
    expect(parseApprovalLine('n: it leaks a secret', result)).toEqual({
      status: 'valid',
      response: { approved: false, denyReason: 'it leaks a secret' },
    });
    expect(parseApprovalLine('edit {}', result)).toMatchObject({
      status: 'invalid',
      problem: expect.stringContaining('approved or rejected'),
    });
    expect(parseApprovalLine('i: summarise it', result)).toMatchObject({ status: 'invalid' });
  });
});
