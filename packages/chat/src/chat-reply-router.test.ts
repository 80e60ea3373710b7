import { describe, expect, it } from 'vitest';
import type { UserInteractionRequest } from '@interlock/sdk-types';
import { HOW_TO_DECIDE, lostAnswer, routeReply, type ChatSituation } from './chat-reply-router.js';
import type { ChatApprovalStatus, ChatEntry } from './chat-types.js';

const AT = '2026-11-22T10:00:00.000Z';

function approval(toolCallId: string, path: string, batch?: { index: number; size: number }): UserInteractionRequest {
  return {
    interactionId: `i-${toolCallId}`,
    threadId: 't1',
    workflowId: 'chat-agent',
    nodeId: 'agent',
    operationType: 'TOOL_APPROVAL',
    prompt: 'Approve?',
    timeout: 60_000,
    deadline: null,
    metadata: {},
    session: { channel: 'chat', chatId: 'c1', requestedBy: 'alice' },
    requestedAt: AT,
    toolApproval: {
      toolCallId,
      toolName: 'write_file',
      toolDescription: 'Write a file',
      toolParameters: { path },
      category: 'write',
      riskLevel: 'MEDIUM',
      rule: 'ask:risk:MEDIUM',
      stage: 'execution',
      rememberable: false,
      ...(batch === undefined ? {} : { batch: { id: 'turn-1', ...batch } }),
    },
  };
}

function approvalLine(toolCallId: string, path: string, status: ChatApprovalStatus, answeredBy?: string): ChatEntry {
  return {
    id: `approval-${toolCallId}-execution`,
    role: 'approval',
    text: `write_file ${path}`,
    at: AT,
    interactionId: `i-${toolCallId}`,
    approval: {
      toolName: 'write_file',
      arguments: { path },
      status,
      ...(answeredBy === undefined ? {} : { answeredBy }),
    },
  };
}

function line(id: string, role: ChatEntry['role'], text: string): ChatEntry {
  return { id, role, text, at: AT };
}

function situation(overrides: Partial<ChatSituation> = {}): ChatSituation {
  return {
    status: 'waiting',
    approvals: [],
    transcript: [],
    asked: [],
    numbering: undefined,
    mayApprove: true,
    mayAnswer: () => undefined,
    ...overrides,
  };
}

const notes = approval('call-1', 'NOTES.md', { index: 0, size: 2 });
const todo = approval('call-2', 'TODO.md', { index: 1, size: 2 });
const alice = (text: string) => ({ text, author: 'alice' });

describe('routeReply', () => {
  it('answers the one pending approval with a bare yes, and shows the reply after that approval', () => {
    const route = routeReply(alice(' Yes '), situation({ approvals: [notes] }));

    expect(route).toEqual({
      kind: 'answer',
      decision: 'approve',
      steps: [{ kind: 'respond', request: notes, call: 'write_file with {"path":"NOTES.md"}' }],
      after: 'approval-call-1-execution',
      numbering: ['i-call-1', 'answered-2'],
    });
  });

  it('asks which one when a bare yes arrives while two approvals wait, listing them by number', () => {
    const route = routeReply(alice('yes'), situation({ approvals: [notes, todo] }));

    expect(route.kind).toBe('clarify');
    expect(route.kind === 'clarify' ? route.text : '').toMatch(
      /^2 tool calls are waiting\. Which one\?.*\n1\. write_file .*NOTES\.md.*\n2\. write_file .*TODO\.md/,
    );
    expect(route).toMatchObject({ numbering: ['i-call-1', 'i-call-2'] });
  });

  it('answers only the numbered approvals, and every one with "all"', () => {
    const state = situation({ approvals: [notes, todo] });

    expect(routeReply(alice('no 2'), state)).toMatchObject({
      kind: 'answer',
      decision: 'reject',
      steps: [{ kind: 'respond', request: todo }],
      after: 'approval-call-2-execution',
    });
    expect(routeReply(alice('yes all'), state)).toMatchObject({
      kind: 'answer',
      steps: [{ request: notes }, { request: todo }],
    });
    expect(routeReply(alice('同意 #2, 1'), state)).toMatchObject({
      kind: 'answer',
      decision: 'approve',
      steps: [{ request: todo }, { request: notes }],
      after: 'approval-call-1-execution',
    });
  });

  it('asks again, naming it, when a number is not in the list', () => {
    const route = routeReply(alice('yes 1 3'), situation({ approvals: [notes, todo] }));

    expect(route.kind).toBe('clarify');
    expect(route.kind === 'clarify' ? route.text : '').toMatch(
      /^There is no approval number 3\. 2 tool calls are waiting/,
    );
  });

  it('keeps the numbers the chat showed while they cover every pending approval', () => {
    const other = approval('call-9', 'OTHER.md');
    const unbatched = approval('call-1', 'NOTES.md');

    const route = routeReply(
      alice('yes 1'),
      situation({ approvals: [unbatched, other], numbering: ['i-call-9', 'i-call-1'] }),
    );

    expect(route).toMatchObject({ kind: 'answer', steps: [{ request: other }], numbering: ['i-call-9', 'i-call-1'] });
  });

  it('says "already answered" or "expired" for a number whose approval no longer waits', () => {
    const transcript = [approvalLine('call-1', 'NOTES.md', 'approved', 'bob')];

    const answered = routeReply(alice('yes 1'), situation({ approvals: [todo], asked: [notes, todo], transcript }));
    const expired = routeReply(
      alice('yes 1'),
      situation({
        approvals: [todo],
        asked: [notes, todo],
        transcript: [approvalLine('call-1', 'NOTES.md', 'expired')],
      }),
    );

    expect(answered).toMatchObject({
      kind: 'answer',
      steps: [
        {
          kind: 'gone',
          interactionId: 'i-call-1',
          notice: {
            reason: 'already_answered',
            text: 'The approval of write_file with {"path":"NOTES.md"} was already answered.',
          },
        },
      ],
    });
    expect(expired).toMatchObject({
      kind: 'answer',
      steps: [
        {
          kind: 'gone',
          notice: {
            reason: 'expired',
            text: expect.stringMatching(/^Too late: .*NOTES\.md.* has expired, so it did not run\.$/),
          },
        },
      ],
    });
  });

  it('refuses, before looking anything up, a yes or no from someone who may not approve', () => {
    const state = situation({ approvals: [notes, todo], mayApprove: false });
    const refusal = {
      kind: 'notice',
      reason: 'not_allowed',
      text: 'mallory may not answer tool approvals in this chat; nothing was decided.',
    };

    // A number that exists and one that does not get the same answer: the refusal tells nothing of what waits.
    expect(routeReply({ text: 'yes 1', author: 'mallory' }, state)).toEqual(refusal);
    expect(routeReply({ text: 'yes 7', author: 'mallory' }, state)).toEqual(refusal);
    expect(
      routeReply(
        { text: 'no', author: 'mallory' },
        situation({ transcript: [approvalLine('call-1', 'NOTES.md', 'expired')], mayApprove: false }),
      ),
    ).toEqual(refusal);
  });

  it('refuses one approval the author may not answer (separation of duties) and still answers the others', () => {
    const route = routeReply(
      alice('yes all'),
      situation({
        approvals: [notes, todo],
        mayAnswer: (request) =>
          request.interactionId === 'i-call-2'
            ? 'alice opened this chat, so another approver must answer its MEDIUM-risk calls'
            : undefined,
      }),
    );

    expect(route).toMatchObject({
      kind: 'answer',
      steps: [
        { kind: 'respond', request: notes },
        {
          kind: 'refuse',
          interactionId: 'i-call-2',
          reason: 'approve in the chat: alice opened this chat, so another approver must answer its MEDIUM-risk calls',
          notice: {
            reason: 'not_allowed',
            text: 'alice opened this chat, so another approver must answer its MEDIUM-risk calls; nothing was decided.',
          },
        },
      ],
    });
  });

  it('asks again, with how to decide, for a reply that looks like an answer and is not one', () => {
    for (const text of ['ok', 'yes?', '👍', 'yes please', 'yes but change the path']) {
      const route = routeReply(alice(text), situation({ approvals: [notes] }));
      expect(route.kind).toBe('clarify');
      expect(route.kind === 'clarify' ? route.text : '').toMatch(
        new RegExp(`^${escape(HOW_TO_DECIDE)} The agent wants to run write_file`),
      );
    }
  });

  it('gives an ordinary message to the agent, reminding the sender when an approval waits', () => {
    expect(routeReply(alice('write the notes'), situation())).toEqual({ kind: 'agent', reminder: undefined });
    expect(routeReply(alice('ok'), situation())).toEqual({ kind: 'agent', reminder: undefined });
    expect(routeReply(alice('and a joke'), situation({ approvals: [notes] }))).toEqual({
      kind: 'agent',
      reminder: `Your message is kept for the agent. ${HOW_TO_DECIDE}`,
    });
  });

  it('tells the sender the chat has ended, whatever the message', () => {
    for (const status of ['completed', 'failed', 'cancelled'] as const) {
      expect(routeReply(alice('yes'), situation({ status, approvals: [notes], mayApprove: false }))).toEqual({
        kind: 'notice',
        reason: 'chat_ended',
        text: `This chat has ended (${status}); open a new one.`,
      });
    }
  });

  describe('a yes or no while nothing waits', () => {
    const asked = [line('message-0', 'user', 'write the notes'), line('message-1', 'assistant', 'On it.')];

    it('says "expired" or "cancelled" for the last approval, even after the agent reported it', () => {
      const expired = routeReply(
        alice('yes'),
        situation({
          transcript: [
            ...asked,
            approvalLine('call-1', 'NOTES.md', 'expired'),
            line('message-2', 'assistant', 'Not done.'),
          ],
        }),
      );
      const cancelled = routeReply(
        alice('no'),
        situation({ transcript: [...asked, approvalLine('call-1', 'NOTES.md', 'cancelled')] }),
      );

      expect(expired).toEqual({
        kind: 'notice',
        reason: 'expired',
        text: 'Too late: the approval of write_file with {"path":"NOTES.md"} has expired, so it did not run. Ask the agent again if you still want it.',
      });
      expect(cancelled).toEqual({
        kind: 'notice',
        reason: 'cancelled',
        text: 'The approval of write_file with {"path":"NOTES.md"} was cancelled, so it did not run.',
      });
    });

    it('says who answered an approval the agent is still working on', () => {
      const route = routeReply(
        alice('YES'),
        situation({ transcript: [...asked, approvalLine('call-1', 'NOTES.md', 'approved', 'bob')] }),
      );

      expect(route).toEqual({
        kind: 'notice',
        reason: 'already_answered',
        text: 'The approval of write_file with {"path":"NOTES.md"} was already answered (approved by bob).',
      });
    });

    it('answers an approval this process showed pending that the store no longer lists as waiting', () => {
      const route = routeReply(
        alice('no'),
        situation({ transcript: [...asked, approvalLine('call-1', 'NOTES.md', 'pending')] }),
      );

      expect(route).toEqual({
        kind: 'answer-late',
        decision: 'reject',
        interactionId: 'i-call-1',
        entryId: 'approval-call-1-execution',
        call: 'write_file with {"path":"NOTES.md"}',
      });
    });

    it('gives the yes to the agent once the agent spoke after an answered approval, or a message went to it since', () => {
      const spoke = [
        ...asked,
        approvalLine('call-1', 'NOTES.md', 'approved', 'alice'),
        line('message-2', 'assistant', 'Done. Anything else?'),
      ];
      const sent = [...asked, approvalLine('call-1', 'NOTES.md', 'expired'), line('message-2', 'user', 'never mind')];

      expect(routeReply(alice('yes'), situation({ transcript: spoke }))).toEqual({
        kind: 'agent',
        reminder: undefined,
      });
      expect(routeReply(alice('yes'), situation({ transcript: sent }))).toEqual({ kind: 'agent', reminder: undefined });
    });
  });
});

describe('lostAnswer', () => {
  it('says why an answer sent to the store did not count', () => {
    expect(lostAnswer('already_answered', 'write_file with {}')).toEqual({
      reason: 'already_answered',
      text: 'The approval of write_file with {} was already answered.',
    });
    expect(lostAnswer('expired', 'that call')).toEqual({
      reason: 'expired',
      text: 'Too late: the approval of that call has expired, so it did not run.',
    });
  });
});

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

describe('routeReply for a call that may have run before a restart (F40, issue 37)', () => {
  const details = notes.toolApproval as NonNullable<UserInteractionRequest['toolApproval']>;
  const recovery: UserInteractionRequest = {
    ...notes,
    interactionId: 'i-recover',
    toolApproval: { ...details, toolCallId: 'call-9', stage: 'recovery', batch: undefined },
  };

  it.each([
    ['done', 'approve', 'done'],
    ['Retry', 'approve', 'retry'],
    ['failed', 'reject', 'fail'],
  ] as const)('answers it with %j', (text, decision, resolution) => {
    expect(routeReply(alice(text), situation({ approvals: [recovery] }))).toMatchObject({
      kind: 'answer',
      decision,
      resolution,
      steps: [{ kind: 'respond', request: recovery }],
    });
  });

  it('refuses a yes for it, naming the three answers, and decides nothing', () => {
    const route = routeReply(alice('yes'), situation({ approvals: [recovery] }));
    expect(route).toMatchObject({ kind: 'answer', steps: [{ kind: 'refuse', interactionId: 'i-recover' }] });
    const [step] = route.kind === 'answer' ? route.steps : [];
    expect(step?.kind === 'refuse' ? step.notice.text : '').toMatch(/"done" .*"retry" .*"failed"; nothing was decided/);
  });

  it('takes done, retry and failed only for it', () => {
    const route = routeReply(
      alice('retry'),
      situation({ approvals: [{ ...notes, toolApproval: { ...details, batch: undefined } }] }),
    );
    expect(route).toMatchObject({ kind: 'answer', steps: [{ kind: 'refuse' }] });
  });
});
