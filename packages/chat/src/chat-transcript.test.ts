import { describe, expect, it } from 'vitest';
import type { AuditEntry, InteractionRecord, ThreadRecord } from '@interlock/core';
import type { Message, UserInteractionRequest } from '@interlock/sdk-types';
import { buildTranscript, type TranscriptSources } from './chat-transcript.js';
import type { ChatEntry } from './chat-types.js';

const AT = '2026-11-22T10:00:00.000Z';

function thread(conversation: Message[]): ThreadRecord {
  return {
    threadId: 't1',
    workflowId: 'chat-agent',
    workflowVersion: '1',
    status: 'waiting',
    channel: 'chat',
    input: {},
    frames: [],
    variables: {},
    conversation,
    toolApproval: { autoApprovedTools: [], approvalTimeout: 60_000 },
    session: { sessionId: 'c1', chatId: 'c1' },
    pendingInteractionIds: [],
    activeNode: null,
    steps: 0,
    epoch: 1,
    version: 1,
    createdAt: AT,
    updatedAt: AT,
  };
}

/** A thread asked to write the notes: one write_file call (c1) that returned `result`, then "Done.". */
function notesWritten(result: string): ThreadRecord {
  return thread([
    { role: 'user', content: 'write the notes' },
    {
      role: 'assistant',
      content: 'On it.',
      toolCalls: [{ id: 'c1', name: 'write_file', arguments: { path: 'NOTES.md' } }],
    },
    { role: 'tool', toolCallId: 'c1', content: result },
    { role: 'assistant', content: 'Done.' },
  ]);
}

function approvalRequest(
  toolCallId: string,
  path: string,
  stage: 'execution' | 'result' = 'execution',
): UserInteractionRequest {
  return {
    interactionId: `i-${toolCallId}-${stage}`,
    threadId: 't1',
    workflowId: 'chat-agent',
    nodeId: 'agent',
    operationType: 'TOOL_APPROVAL',
    prompt: 'Approve?',
    timeout: 60_000,
    deadline: null,
    metadata: {},
    session: { channel: 'chat', chatId: 'c1' },
    requestedAt: AT,
    toolApproval: {
      toolCallId,
      toolName: 'write_file',
      toolDescription: 'Write a file',
      toolParameters: { path },
      category: 'write',
      riskLevel: 'MEDIUM',
      rule: 'ask:risk:MEDIUM',
      stage,
      rememberable: false,
    },
  };
}

function personDecision(toolCallId: string, path: string, outcome: 'allow' | 'deny', responder: string): AuditEntry {
  return {
    threadId: 't1',
    toolCallId,
    toolName: 'write_file',
    outcome,
    decidedBy: 'person',
    rule: 'ask:risk:MEDIUM',
    reason: 'a person decided',
    responder,
    stage: 'execution',
    originalArguments: { path },
    sequence: 1,
    at: '2026-11-22T10:01:00.000Z',
    previousHash: '0',
    hash: '1',
  };
}

function sources(overrides: Partial<TranscriptSources>): TranscriptSources {
  return {
    thread: thread([]),
    pending: [],
    audit: [],
    seen: new Map(),
    delivered: [],
    notes: [],
    queued: [],
    firstSeen: () => AT,
    ...overrides,
  };
}

describe('buildTranscript', () => {
  it('shows an answered approval right after the assistant message that proposed the call, with who answered', () => {
    const transcript = buildTranscript(
      sources({
        thread: notesWritten('[SUCCESS] wrote 10 characters to NOTES.md'),
        audit: [personDecision('c1', 'NOTES.md', 'allow', 'alice')],
      }),
    );

    expect(transcript.map((entry) => [entry.role, entry.text])).toEqual([
      ['user', 'write the notes'],
      ['assistant', 'On it.'],
      ['approval', 'Allowed write_file with {"path":"NOTES.md"} (approved by alice).'],
      ['notice', 'write_file: [SUCCESS] wrote 10 characters to NOTES.md'],
      ['assistant', 'Done.'],
    ]);
  });

  it('puts pending approvals last, asking for yes or no', () => {
    const transcript = buildTranscript(
      sources({
        thread: thread([{ role: 'user', content: 'write the notes' }]),
        pending: [approvalRequest('c1', 'NOTES.md')],
      }),
    );

    expect(transcript.at(-1)).toMatchObject({
      role: 'approval',
      interactionId: 'i-c1-execution',
      text: 'The agent wants to run write_file with {"path":"NOTES.md"}. Reply "yes" to allow it or "no" to refuse it.',
      approval: { status: 'pending', toolName: 'write_file', arguments: { path: 'NOTES.md' } },
    });
  });

  it('says how many approvals a call that needs several has (F51)', () => {
    const request = approvalRequest('c1', 'NOTES.md');
    const waiting = {
      ...request,
      toolApproval: { ...request.toolApproval!, quorum: { required: 2, given: 1, approvedBy: ['alice'] } },
    };
    const [entry] = buildTranscript(sources({ pending: [waiting] }));

    expect(entry?.text).toBe(
      'The agent wants to run write_file with {"path":"NOTES.md"}. It needs 2 approvals (1 of 2 so far). Reply "yes" to approve it or "no" to refuse it.',
    );
  });

  it('asks about the result, not the run, for a result approval', () => {
    const [entry] = buildTranscript(sources({ pending: [approvalRequest('c1', 'NOTES.md', 'result')] }));

    expect(entry?.text).toBe(
      'write_file with {"path":"NOTES.md"} has run. Reply "yes" to give its result to the agent or "no" to withhold it.',
    );
  });

  it('keeps a note after the line it followed when that line moves, and queued messages at the very end', () => {
    const consumed: ChatEntry = { id: 'note-1', role: 'user', text: 'yes', at: AT, author: 'alice', consumed: true };
    const queued: ChatEntry = { id: 'note-2', role: 'user', text: 'and then?', at: AT, author: 'bob', queued: true };
    const transcript = buildTranscript(
      sources({
        thread: notesWritten('[SUCCESS] wrote'),
        audit: [personDecision('c1', 'NOTES.md', 'allow', 'alice')],
        notes: [{ entry: consumed, after: 'approval-c1-execution' }],
        queued: [queued],
      }),
    );

    expect(transcript.map((entry) => entry.text)).toEqual([
      'write the notes',
      'On it.',
      'Allowed write_file with {"path":"NOTES.md"} (approved by alice).',
      'yes',
      'write_file: [SUCCESS] wrote',
      'Done.',
      'and then?',
    ]);
  });

  it('names who sent the messages this process delivered, matching from the latest', () => {
    const transcript = buildTranscript(
      sources({
        thread: thread([
          { role: 'user', content: 'hello' },
          { role: 'assistant', content: 'Hi.' },
          { role: 'user', content: 'bye' },
        ]),
        delivered: [{ text: 'bye', author: 'bob', at: '2026-11-22T10:05:00.000Z' }],
      }),
    );

    expect(
      transcript.filter((entry) => entry.role === 'user').map((entry) => [entry.text, entry.author, entry.at]),
    ).toEqual([
      ['hello', undefined, AT],
      ['bye', 'bob', '2026-11-22T10:05:00.000Z'],
    ]);
  });

  it('shows an approval answered or timed out in another process as ended, with its id, before the audit says so (F57)', () => {
    const settled = (request: UserInteractionRequest, record: Partial<InteractionRecord>): InteractionRecord => ({
      interactionId: request.interactionId,
      threadId: 't1',
      nodeId: 'agent',
      request,
      status: 'processed',
      deadline: null,
      createdAt: AT,
      updatedAt: AT,
      ...record,
    });
    const proposed: Message = {
      role: 'assistant',
      content: '',
      toolCalls: [
        { id: 'c1', name: 'write_file', arguments: { path: 'A.md' } },
        { id: 'c2', name: 'write_file', arguments: { path: 'B.md' } },
      ],
    };
    const transcript = buildTranscript(
      sources({
        thread: thread([{ role: 'user', content: 'write both' }, proposed]),
        settled: [
          settled(approvalRequest('c1', 'A.md'), {
            response: { input: { approved: true }, responder: 'cli:ops', respondedAt: AT },
          }),
          settled(approvalRequest('c2', 'B.md'), { status: 'failed', failureReason: 'timeout' }),
        ],
      }),
    );

    expect(
      transcript
        .filter((entry) => entry.role === 'approval')
        .map((entry) => [entry.interactionId, entry.approval?.status, entry.approval?.answeredBy]),
    ).toEqual([
      ['i-c1-execution', 'approved', 'cli:ops'],
      ['i-c2-execution', 'expired', undefined],
    ]);
  });
});
