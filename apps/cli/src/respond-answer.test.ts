import { describe, expect, it } from 'vitest';
import type { UserInteractionRequest } from '@interlock/sdk-types';
import { parseRespondAnswer, verbMismatch } from './respond-answer.js';
import { UsageError } from './usage-error.js';

const REQUEST: UserInteractionRequest = {
  interactionId: 'i-1',
  threadId: 't-1',
  workflowId: 'flow',
  nodeId: 'ask',
  operationType: 'UPDATE_VARIABLES',
  prompt: 'Ship it?',
  timeout: 0,
  deadline: null,
  metadata: {},
  session: { channel: 'detached' },
  requestedAt: '2026-01-01T00:00:00.000Z',
};

const APPROVAL: UserInteractionRequest = {
  ...REQUEST,
  operationType: 'TOOL_APPROVAL',
  toolApproval: {
    toolCallId: 'c-1',
    toolName: 'bash',
    toolDescription: 'Run a command',
    toolParameters: { command: 'ls' },
    category: 'command',
    riskLevel: 'HIGH',
    rule: 'ask:risk:HIGH',
    stage: 'execution',
    rememberable: false,
  },
};

const RECOVERY: UserInteractionRequest = {
  ...APPROVAL,
  toolApproval: {
    ...(APPROVAL.toolApproval as NonNullable<UserInteractionRequest['toolApproval']>),
    stage: 'recovery',
  },
};

describe('parseRespondAnswer', () => {
  it('turns each verb into the input the engine takes', () => {
    expect(parseRespondAnswer(['approve'], {}).input).toEqual({ approved: true });
    expect(parseRespondAnswer(['approve'], { instruction: 'be brief', remember: true }).input).toEqual({
      approved: true,
      userInstruction: 'be brief',
      remember: true,
    });
    expect(parseRespondAnswer(['reject'], { reason: 'not today' }).input).toEqual({
      approved: false,
      denyReason: 'not today',
    });
    expect(parseRespondAnswer(['edit', '{"command":"ls -l"}'], {}).input).toEqual({
      approved: true,
      editedParameters: { command: 'ls -l' },
    });
    expect(parseRespondAnswer(['answer', '{"a":1}'], {})).toEqual({ verb: 'answer', input: '{"a":1}' });
  });

  it('refuses a wrong command line as usage errors', () => {
    const refusals: Array<[string[], Parameters<typeof parseRespondAnswer>[1], string]> = [
      [[], {}, 'needs an answer'],
      [['maybe'], {}, 'not "maybe"'],
      [['answer'], {}, 'needs a value'],
      [['answer', 'yes', 'please'], {}, 'not also please'],
      [['approve', 'now'], {}, 'takes no value'],
      [['approve'], { reason: 'x' }, '--reason goes with reject'],
      [['answer', 'yes'], { instruction: 'x' }, '--instruction goes with approve, edit or reject'],
      [['reject'], { remember: true }, '--remember goes with approve or edit'],
      [['edit', '{path'], {}, 'not valid JSON'],
      [['edit', '[1]'], {}, 'must be a JSON object'],
      [['edit', '{"command":"ls","command":"rm -rf ~"}'], {}, 'appears twice'], // issue 14
      [[], { resolution: 'approve' }, '--resolution takes done (it ran), retry (run it again) or failed'],
      [['approve'], { resolution: 'done' }, '--resolution is the whole answer: drop "approve"'],
      [[], { resolution: 'retry', reason: 'x' }, '--reason goes with reject or --resolution failed'],
      [[], { resolution: 'done', remember: true }, '--resolution takes no --instruction or --remember'],
    ];
    for (const [words, flags, message] of refusals) {
      expect(() => parseRespondAnswer(words, flags)).toThrow(UsageError);
      expect(() => parseRespondAnswer(words, flags)).toThrow(message);
    }
  });
});

describe('the answer to a call whose outcome is unknown (F40, issue 37)', () => {
  it.each([
    ['done', {}, { approved: true, resolution: 'done' }],
    ['retry', {}, { approved: true, resolution: 'retry' }],
    ['failed', {}, { approved: false, resolution: 'fail' }],
    [
      'failed',
      { reason: 'the disk was full' },
      { approved: false, resolution: 'fail', denyReason: 'the disk was full' },
    ],
    [' Done ', {}, { approved: true, resolution: 'done' }],
  ])('reads --resolution %j', (resolution, flags, input) => {
    expect(parseRespondAnswer([], { resolution, ...flags })).toEqual({ verb: 'resolve', input });
  });

  it.each(['approve', 'reject', 'edit', 'answer'] as const)('refuses %s for it, naming the three answers', (verb) => {
    expect(verbMismatch(verb, RECOVERY)).toMatch(/stage recovery.*--resolution done .*retry .*failed/);
  });

  it('takes --resolution only for it', () => {
    expect(verbMismatch('resolve', RECOVERY)).toBeUndefined();
    expect(verbMismatch('resolve', APPROVAL)).toContain('only a call whose outcome is unknown');
    expect(verbMismatch('resolve', REQUEST)).toContain('only a call whose outcome is unknown');
  });
});

describe('verbMismatch', () => {
  it('lets approve, reject and edit answer tool approvals, and answer answer questions', () => {
    expect(verbMismatch('approve', APPROVAL)).toBeUndefined();
    expect(verbMismatch('answer', REQUEST)).toBeUndefined();
    expect(verbMismatch('answer', APPROVAL)).toContain('is a tool approval (bash)');
    expect(verbMismatch('reject', REQUEST)).toContain('is a question (UPDATE_VARIABLES)');
  });
});
