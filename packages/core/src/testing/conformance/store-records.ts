import { createHash } from 'node:crypto';
import { WorkflowDefinition, type Message, type ThreadError, type UserInteractionRequest } from '@interlock/sdk-types';
import { expect } from 'vitest';
import { InterlockError } from '../../errors/interlock-error.js';
import type {
  ClaimChange,
  ICheckpointStore,
  LiveThread,
  ThreadStatus,
  InteractionRecord,
  InteractionResponseRecord,
  ThreadChange,
  ThreadRecord,
  ToolCallDraft,
  UnitOfWork,
} from '../../persistence/checkpoint-store.js';

/** A fixed moment, so records compare equal after a round trip. */
export const CREATED_AT = '2026-01-02T03:04:05.678Z';

/**
 * Fields of a thread a test sets, whatever its status (a conformance test stores threads no
 * engine would write: a store keeps what it is given).
 */
export type ThreadOverrides = {
  [K in keyof LiveThread]?: K extends 'status'
    ? ThreadStatus
    : K extends 'output'
      ? unknown
      : K extends 'error'
        ? ThreadError
        : LiveThread[K];
};

/** A thread as the engine creates it; `overrides` replace whole fields. */
export function threadRecord(overrides: ThreadOverrides = {}): ThreadRecord {
  return {
    threadId: 'thread-1',
    workflowId: 'workflow-a',
    workflowVersion: '1.0.0',
    status: 'running',
    channel: 'cli',
    input: { task: 'tidy the docs' },
    frames: [{ workflowId: 'workflow-a', workflowVersion: '1.0.0', cursor: 'start', variables: {}, loops: [] }],
    variables: { count: 0 },
    conversation: [],
    toolApproval: { autoApprovedTools: ['read_file'], approvalTimeout: 30_000 },
    session: { sessionId: 'session-1' },
    pendingInteractionIds: [],
    activeNode: null,
    steps: 0,
    epoch: 1,
    version: 1,
    createdAt: CREATED_AT,
    updatedAt: CREATED_AT,
    ...overrides,
  } as ThreadRecord;
}

/** A user message of the conversation. */
export function userMessage(content: string): Message {
  return { role: 'user', content, nodeId: 'ask' };
}

/** An assistant message proposing one tool call. */
export function toolCallMessage(callId: string, args: Record<string, unknown>): Message {
  return {
    role: 'assistant',
    content: '',
    toolCalls: [{ id: callId, name: 'write_file', arguments: args }],
    nodeId: 'agent',
  };
}

/** The request of a TOOL_APPROVAL interaction. */
export function approvalRequest(
  interactionId: string,
  threadId: string,
  parameters: Record<string, unknown>,
): UserInteractionRequest {
  return {
    interactionId,
    threadId,
    workflowId: 'workflow-a',
    nodeId: 'agent',
    operationType: 'TOOL_APPROVAL',
    prompt: 'May the agent write this file?',
    timeout: 60_000,
    deadline: '2026-01-02T03:05:05.678Z',
    metadata: {},
    session: { channel: 'cli', sessionId: 'session-1' },
    requestedAt: CREATED_AT,
    toolApproval: {
      toolCallId: 'call-1',
      toolName: 'write_file',
      toolDescription: 'Writes a file',
      toolParameters: parameters,
      category: 'write',
      riskLevel: 'HIGH',
      rule: 'risk:HIGH',
      stage: 'execution',
      rememberable: false,
    },
  };
}

/** A pending interaction as the engine creates it; `overrides` replace whole fields. */
export function interactionRecord(overrides: Partial<InteractionRecord> = {}): InteractionRecord {
  const interactionId = overrides.interactionId ?? 'interaction-1';
  const threadId = overrides.threadId ?? 'thread-1';
  return {
    interactionId,
    threadId,
    nodeId: 'agent',
    request: approvalRequest(interactionId, threadId, { path: 'README.md', content: 'hello' }),
    status: 'pending',
    deadline: '2026-01-02T03:05:05.678Z',
    createdAt: CREATED_AT,
    updatedAt: CREATED_AT,
    ...overrides,
  };
}

/** Text no store may mangle: emoji (with ZWJ and skin tone), CJK, RTL with marks, combining accents. */
export const UNICODE_TEXT = '👩🏽‍💻 🧵 — 中文 日本語 한국어 — עברית שלום ‏مرحبا‎ — é (e\u0301) — 𝄞';

/** Text with NUL characters and an unpaired surrogate, which no database text column holds as-is. */
export const AWKWARD_TEXT = 'before\u0000middle\u0000\u0000after \uD800 lone \uDFFF end';

/** A string of exactly 1 MiB of ASCII. */
export const ONE_MEGABYTE = 'x'.repeat(1024 * 1024);

/** Resolves to the InterlockError code a promise rejects with, or fails when it resolves. */
export async function errorCodeOf(promise: Promise<unknown>): Promise<string> {
  const error: unknown = await promise.then(
    () => expect.unreachable('expected the store to refuse'),
    (reason: unknown) => reason,
  );
  if (!InterlockError.is(error)) throw error;
  return error.code;
}

/** The value, or a failed expectation when there is none. */
export function present<T>(value: T | null | undefined): T {
  if (value === null || value === undefined) return expect.unreachable('expected the store to return a value');
  return value;
}

/** An answer, recorded at a fixed moment. */
export const response = (input: unknown, responder = 'ada'): InteractionResponseRecord => ({
  input,
  responder,
  respondedAt: '2026-01-02T03:04:30.000Z',
});

/** What a `start` change writes of a tool call. */
export type ToolApprovalRecord = ToolCallDraft;

/** The SHA-256 of some arguments' JSON, as the engine hashes them (the store only compares it). */
export function argumentsHashOf(toolArguments: Record<string, unknown>): string {
  return createHash('sha256').update(JSON.stringify(toolArguments)).digest('hex');
}

/** The draft of a `write_file` call; `overrides` replace whole fields (pass a matching hash with new arguments). */
export function toolApproval(overrides: Partial<ToolApprovalRecord> = {}): ToolApprovalRecord {
  const toolArguments = { path: 'README.md', content: 'hello' };
  return {
    threadId: 'thread-1',
    toolCallId: 'call-1',
    toolName: 'write_file',
    argumentsHash: argumentsHashOf(toolArguments),
    arguments: toolArguments,
    approvedBy: 'rule:risk:HIGH',
    idempotent: false,
    createdAt: CREATED_AT,
    ...overrides,
  };
}

/** Commits a unit and returns what the store says, failing the test when it refuses it. */
export async function committed(store: ICheckpointStore, unit: UnitOfWork) {
  const result = await store.commit(unit);
  if (result.status !== 'committed')
    return expect.unreachable(`the store refused the unit: ${JSON.stringify(result.conflict)}`);
  return result;
}

/** Commits a unit the store must refuse, and returns the conflict. */
export async function refused(store: ICheckpointStore, unit: UnitOfWork) {
  const result = await store.commit(unit);
  if (result.status !== 'conflict') return expect.unreachable('expected the store to refuse the unit');
  return result.conflict;
}

/** Stores a new thread (version 1) and returns it as stored. */
export async function createThread(
  store: ICheckpointStore,
  thread: ThreadRecord = threadRecord(),
): Promise<ThreadRecord> {
  await committed(store, { thread: { kind: 'create', thread } });
  return present(await store.getThread(thread.threadId));
}

/** The save of `thread` as read (its version and epoch), keeping the claim. */
export function save(
  thread: ThreadRecord,
  changes: ThreadOverrides = {},
  claim: ClaimChange = { kind: 'keep' },
  /** How many of the stored messages stay (the rest are replaced): all that both conversations have, by default. */
  messagesFrom?: number,
): ThreadChange {
  const next = { ...thread, ...changes } as ThreadRecord;
  return {
    kind: 'save',
    thread: next,
    expectedVersion: thread.version,
    claim,
    messagesFrom: messagesFrom ?? Math.min(thread.conversation.length, next.conversation.length),
    storedMessages: thread.conversation.length,
  };
}

/** A later moment than {@link CREATED_AT}, for status changes. */
export const LATER = '2026-01-02T03:04:40.000Z';

/** A workflow definition as the engine keeps it: parsed, defaults applied; `overrides` replace whole fields. */
export function workflowDefinition(overrides: Partial<WorkflowDefinition> = {}): WorkflowDefinition {
  return {
    ...WorkflowDefinition.parse({
      id: 'workflow-a',
      name: 'Test workflow',
      version: '1.0.0',
      variables: [{ name: 'output', scope: 'thread' }],
      nodes: [
        { id: 'start', type: 'START' },
        {
          id: 'ask',
          type: 'USER_INTERACTION',
          config: {
            operationType: 'UPDATE_VARIABLES',
            prompt: 'Your answer?',
            timeout: '1h',
            variables: [{ variableName: 'output', expression: '{{ input }}' }],
          },
        },
        { id: 'end', type: 'END', config: { output: '{{ output }}' } },
      ],
      edges: [
        { from: 'start', to: 'ask' },
        { from: 'ask', to: 'end' },
      ],
    }),
    ...overrides,
  };
}
