import { describe, expect, it } from 'vitest';
import type { UserInteractionRequest } from '@interlock/sdk-types';
import { answerHint, describePendingRequest, summariseRequest } from './pending-view.js';
import { createTerminalStyle } from './terminal-style.js';

const QUESTION: UserInteractionRequest = {
  interactionId: 'i-1',
  threadId: 't-1',
  workflowId: 'plan-approval',
  nodeId: 'ask',
  operationType: 'UPDATE_VARIABLES',
  prompt: 'Go ahead with this plan?\n1. Read the code',
  input: { kind: 'choice', options: ['yes', 'no'] },
  timeout: 0,
  deadline: null,
  metadata: {},
  session: { channel: 'detached' },
  requestedAt: '2026-01-01T00:00:00.000Z',
};

const APPROVAL: UserInteractionRequest = {
  ...QUESTION,
  interactionId: 'i-2',
  nodeId: 'agent',
  operationType: 'TOOL_APPROVAL',
  prompt: 'Allow bash?',
  deadline: '2026-01-01T00:05:00.000Z',
  toolApproval: {
    toolCallId: 'c-1',
    toolName: 'bash',
    toolDescription: 'Run a command',
    toolParameters: { command: 'ls\u200B -la' },
    category: 'command',
    riskLevel: 'HIGH',
    rule: 'ask:risk:HIGH',
    stage: 'execution',
    rememberable: false,
  },
};

const plain = createTerminalStyle(false);

describe('the pending view', () => {
  it('sums a request up on one line: node, operation, then the call or the first line of the question', () => {
    expect(summariseRequest(QUESTION)).toBe('node "ask" · UPDATE_VARIABLES · Go ahead with this plan?');
    expect(summariseRequest(APPROVAL)).toBe(
      'node "agent" · TOOL_APPROVAL · bash(ls⟨U+200B⟩ -la) · risk HIGH · rule ask:risk:HIGH',
    );
  });

  it('shows a tool approval in full, with invisible characters made visible and the command that answers it', () => {
    const text = describePendingRequest(APPROVAL, plain, " --store 'memory'").join('\n');
    expect(text).toContain('i-2  TOOL_APPROVAL');
    expect(text).toContain('thread t-1 · workflow "plan-approval" · node "agent" · channel detached');
    expect(text).toContain('answer by 2026-01-01T00:05:00.000Z');
    expect(text).toContain('category command · risk HIGH · asked by rule ask:risk:HIGH');
    expect(text).toContain('"command": "ls⟨U+200B⟩ -la"');
    expect(text).toContain(
      "answer: interlock respond i-2 approve | reject [--reason R] | edit '<json>' --store 'memory'",
    );
  });

  it('shows a question with its input kind and how to answer it', () => {
    const text = describePendingRequest(QUESTION, plain).join('\n');
    expect(text).toContain('  Go ahead with this plan?\n  1. Read the code');
    expect(text).toContain('input: one of: yes | no');
    expect(text).toContain("answer: interlock respond i-1 answer '<yes|no>'");
    expect(answerHint({ ...QUESTION, input: { kind: 'confirm' } })).toBe('answer yes|no');
    expect(answerHint({ ...QUESTION, input: { kind: 'json' } })).toBe("answer '<json>'");
    expect(answerHint(APPROVAL)).toBe('approve');
  });

  it('shows how far a call that needs several approvers got, the edit they approved, and its escalation (F51)', () => {
    const details = APPROVAL.toolApproval!;
    const waiting: UserInteractionRequest = {
      ...APPROVAL,
      toolApproval: {
        ...details,
        quorum: {
          required: 2,
          given: 1,
          approvedBy: ['web:alice'],
          arguments: { command: 'ls' },
          escalation: { at: '2026-01-01T00:10:00.000Z', approvers: ['web:erin'], escalated: false },
        },
      },
    };
    expect(summariseRequest(waiting)).toBe(
      'node "agent" · TOOL_APPROVAL · bash(ls⟨U+200B⟩ -la) · risk HIGH · rule ask:risk:HIGH · 1 of 2 approvals',
    );
    const text = describePendingRequest(waiting, plain).join('\n');
    expect(text).toContain('approvals: 1 of 2 (web:alice)');
    expect(text).toContain('approved so far with edited arguments: {"command":"ls"}');
    expect(text).toContain('escalates at 2026-01-01T00:10:00.000Z to web:erin');
  });
});
