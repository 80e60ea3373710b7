import { describe, expect, it } from 'vitest';
import type { ApprovalStage } from '@interlock/sdk-types';
import { InterlockError } from '../errors/interlock-error.js';
import type { ApprovalPolicy } from '../policy/approval-policy.js';
import { interactionRecord } from '../testing/conformance/store-records.js';
import type { ToolRegistry } from '../tools/tool-registry.js';
import { ResponseInterpreter } from './response-interpreter.js';

const interpreter = new ResponseInterpreter(
  { find: () => undefined } as unknown as ToolRegistry,
  {} as ApprovalPolicy,
  '/workspace',
);

function askedAt(stage: ApprovalStage) {
  const record = interactionRecord();
  const details = record.request.toolApproval;
  if (!details) throw new Error('the fixture is a tool approval');
  return { ...record, request: { ...record.request, toolApproval: { ...details, stage } } };
}

function refusal(stage: ApprovalStage, raw: unknown): InterlockError {
  try {
    interpreter.interpret(askedAt(stage), raw);
  } catch (error) {
    if (InterlockError.is(error)) return error;
    throw error;
  }
  return expect.unreachable(`expected ${JSON.stringify(raw)} to be refused`);
}

describe('the answer to a call whose outcome is unknown (F40, issue 37)', () => {
  it.each([
    ['done', { approved: true, resolution: 'done' }],
    ['retry', { approved: true, resolution: 'retry' }],
    ['failed', { approved: false, resolution: 'fail' }],
    ['fail', { approved: false, resolution: 'fail' }],
    [' Done ', { approved: true, resolution: 'done' }],
    [
      { approved: true, resolution: 'failed' },
      { approved: true, resolution: 'fail' },
    ],
    [{ approved: false }, { approved: false }],
  ])('takes %j', (raw, expected) => {
    expect(interpreter.interpret(askedAt('recovery'), raw)).toEqual(expected);
  });

  it.each([{ approved: true }, 'approve', 'yes', true, { approved: true, userInstruction: 'go on' }])(
    'refuses the approval %j, naming the three answers',
    (raw) => {
      const error = refusal('recovery', raw);
      expect(error.code).toBe('INTERACTION_INVALID_RESPONSE');
      expect(error.message).toMatch(/done .*retry .*failed/);
    },
  );

  it('takes done, retry and failed only for that question', () => {
    expect(refusal('execution', { approved: true, resolution: 'retry' }).message).toMatch(/only a call whose/);
    expect(interpreter.interpret(askedAt('execution'), { approved: true })).toEqual({ approved: true });
  });
});
