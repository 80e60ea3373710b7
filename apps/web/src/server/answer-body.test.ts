import type { UserInteractionRequest } from '@interlock/sdk-types';
import { describe, expect, it } from 'vitest';
import { toInteractionInput } from './answer-body.js';

const approval: UserInteractionRequest = {
  interactionId: 'i-1',
  threadId: 't-1',
  workflowId: 'w',
  nodeId: 'agent',
  operationType: 'TOOL_APPROVAL',
  prompt: 'Allow write_file?',
  timeout: 0,
  deadline: null,
  metadata: {},
  session: { channel: 'web' },
  requestedAt: '2026-01-01T00:00:00.000Z',
  toolApproval: {
    toolCallId: 'c-1',
    toolName: 'write_file',
    toolDescription: 'writes',
    toolParameters: { path: 'a' },
    category: 'write',
    riskLevel: 'MEDIUM',
    rule: 'ask:risk:MEDIUM',
    stage: 'execution',
    rememberable: true,
  },
};
const question: UserInteractionRequest = { ...approval, operationType: 'UPDATE_VARIABLES', prompt: 'Which?' };
delete question.toolApproval;

describe('toInteractionInput', () => {
  it("turns each action into the engine's tool approval answer", () => {
    expect(toInteractionInput({ action: 'approve', instruction: '  use staging ' }, approval)).toEqual({
      approved: true,
      userInstruction: 'use staging',
    });
    expect(toInteractionInput({ action: 'edit', arguments: { path: 'b' }, remember: true }, approval)).toEqual({
      approved: true,
      editedParameters: { path: 'b' },
      remember: true,
    });
    expect(toInteractionInput({ action: 'reject', reason: 'no' }, approval)).toEqual({
      approved: false,
      denyReason: 'no',
    });
    expect(toInteractionInput({ action: 'answer', value: 'staging' }, question)).toBe('staging');
  });

  it('refuses an action that does not fit the interaction', () => {
    expect(() => toInteractionInput({ action: 'answer', value: 'yes' }, approval)).toThrow('is a tool approval');
    expect(() => toInteractionInput({ action: 'approve' }, question)).toThrow('is a question');
    expect(() => toInteractionInput({ action: 'edit' }, approval)).toThrow('"edit" needs the new "arguments"');
    expect(() => toInteractionInput({ action: 'approve', reason: 'x' }, approval)).toThrow(
      '"reason" goes with "reject"',
    );
  });
});

describe('toInteractionInput for a call whose outcome is unknown (F40, issue 37)', () => {
  const recovery: UserInteractionRequest = {
    ...approval,
    toolApproval: {
      ...(approval.toolApproval as NonNullable<UserInteractionRequest['toolApproval']>),
      stage: 'recovery',
    },
  };

  it('passes done, retry and failed on, failed as the engine stores it', () => {
    expect(toInteractionInput({ action: 'approve', resolution: 'done' }, recovery)).toEqual({
      approved: true,
      resolution: 'done',
    });
    expect(toInteractionInput({ action: 'approve', resolution: 'retry' }, recovery)).toEqual({
      approved: true,
      resolution: 'retry',
    });
    expect(toInteractionInput({ action: 'reject', reason: 'disk full', resolution: 'failed' }, recovery)).toEqual({
      approved: false,
      denyReason: 'disk full',
      resolution: 'fail',
    });
  });

  it('refuses a resolution that contradicts the action', () => {
    expect(() => toInteractionInput({ action: 'reject', resolution: 'retry' }, recovery)).toThrow('means failed');
    expect(() => toInteractionInput({ action: 'edit', arguments: {}, resolution: 'done' }, recovery)).toThrow(
      '"resolution" goes with',
    );
  });
});
