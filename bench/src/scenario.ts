/**
 * The "approval round trip" (SCENARIO.md v1) on Interlock, through the public API only:
 * `createInterlock`, a model implementing `ModelProvider`, `defineTool`, and the SQLite or
 * memory store. A thread is one LLM node that proposes `write_file`; the default approval
 * mode asks a person about a MEDIUM-risk write tool, so the thread waits durably until
 * `interlock.respond()` approves it.
 */
import { createRequire } from 'node:module';
import {
  createInterlock,
  defineTool,
  TYPES,
  type ICheckpointStore,
  type Interlock,
  type ModelProvider,
  type ModelRequest,
  type ModelResponse,
} from '@interlock/core';
import type { UserInteractionRequest, WorkflowDefinitionInput } from '@interlock/sdk-types';
import {
  FINAL_TEXT,
  runWriteFileEffect,
  scriptedTurn,
  threadCtx,
  TOOL_NAME,
  USER_PROMPT,
  type WriteFileArguments,
} from './common.js';

/** Resolves packages the way @interlock/core does, so the harness shares its copies of zod and better-sqlite3. */
export const requireFromCore = createRequire(import.meta.resolve('@interlock/core'));

type ToolDefinitionInput = Parameters<typeof defineTool>[0];
interface ZodSubset {
  object(shape: Record<string, unknown>): ToolDefinitionInput['parameters'];
  string(): unknown;
}
const { z } = requireFromCore('zod') as { z: ZodSubset };

export const WORKFLOW_ID = 'approval-round-trip';

/**
 * START → LLM (the user message, tool write_file) → END. `approvalTimeout = 0` waits until
 * answered, as the peers' pauses do (the default 30 s would time out the scale test).
 */
export const workflow: WorkflowDefinitionInput = {
  id: WORKFLOW_ID,
  name: 'Approval round trip (bench scenario v1)',
  version: '1',
  config: { toolApproval: { approvalTimeout: 0 } },
  variables: [{ name: 'reply', scope: 'thread' }],
  nodes: [
    { id: 'start', type: 'START' },
    { id: 'agent', type: 'LLM', config: { prompt: USER_PROMPT, tools: [TOOL_NAME], outputVariable: 'reply' } },
    { id: 'end', type: 'END', config: { output: '{{ reply }}' } },
  ],
  edges: [
    { from: 'start', to: 'agent' },
    { from: 'agent', to: 'end' },
  ],
};

/** The scripted, zero-latency model of the scenario, plugged in as a normal `ModelProvider`. */
export class ScenarioModel implements ModelProvider {
  readonly name = 'scenario-scripted';

  async complete(request: ModelRequest): Promise<ModelResponse> {
    const last = request.messages[request.messages.length - 1];
    const turn = scriptedTurn(last?.role === 'tool');
    if (turn.kind === 'text') return { text: turn.text };
    return { text: '', toolCalls: [{ id: turn.id, name: turn.name, arguments: { ...turn.args } }] };
  }
}

export const writeFileTool = defineTool({
  name: TOOL_NAME,
  description: 'Write a file (requires human approval).',
  category: 'write',
  riskLevel: 'MEDIUM',
  parameters: z.object({ path: z.string(), content: z.string() }),
  execute: async (args: unknown) => runWriteFileEffect(args as WriteFileArguments),
});

export type StoreKind = 'sqlite' | 'memory';

/** The SQLite store's options as `createInterlock({ store: { type: 'sqlite', path, ...these } })` takes them. */
export interface SqliteStoreOptions {
  /** `full` is core's default (an fsync per commit, the scenario's stated durability); `normal` is what the peers run at. */
  synchronous?: 'full' | 'normal';
  /** Concurrent threads share commits (a separately labelled row per SCENARIO.md §2). */
  groupCommit?: boolean;
}

/** The store options in effect (core's defaults made explicit), for every record. */
export function storeOptionsOf(kind: StoreKind, options: SqliteStoreOptions = {}): Record<string, unknown> {
  if (kind === 'memory') return { type: 'memory' };
  return { type: 'sqlite', synchronous: options.synchronous ?? 'full', groupCommit: options.groupCommit ?? false };
}

/**
 * The `durability` label of a record (like the peers' labelled rows): `synchronous=FULL`
 * (core's default, the scenario's), `synchronous=NORMAL`, `+ group commit`; `none (memory)`.
 */
export function durabilityOf(kind: StoreKind, options: SqliteStoreOptions = {}): string {
  if (kind === 'memory') return 'none (memory)';
  return `synchronous=${(options.synchronous ?? 'full').toUpperCase()}${options.groupCommit ? ', group commit' : ''}`;
}

export interface Engine {
  interlock: Interlock;
  /** The instance's own store, reached through the documented `configureContainer` hook, to read threads by id. */
  store: ICheckpointStore;
}

/** One Interlock instance on a SQLite file (`{ type: 'sqlite', path, synchronous?, groupCommit? }`) or in memory. */
export async function createEngine(kind: StoreKind, file?: string, sqlite: SqliteStoreOptions = {}): Promise<Engine> {
  let store: ICheckpointStore | undefined;
  const interlock = await createInterlock({
    store:
      kind === 'sqlite'
        ? {
            type: 'sqlite',
            ...(file === undefined ? {} : { path: file }),
            ...(sqlite.synchronous === undefined ? {} : { synchronous: sqlite.synchronous }),
            ...(sqlite.groupCommit === undefined ? {} : { groupCommit: sqlite.groupCommit }),
          }
        : { type: 'memory' },
    models: { default: new ScenarioModel() },
    tools: [writeFileTool],
    configureContainer: (container) => {
      store = container.get(TYPES.CheckpointStore);
    },
  });
  if (!store) throw new Error('configureContainer did not run');
  interlock.registerWorkflow(workflow);
  return { interlock, store };
}

export const threadIdFor = (i: number): string => `t-${i}`;

export interface PendingApproval {
  interactionId: string;
  toolName: string;
  arguments: Record<string, unknown>;
}

/** Starts thread i; resolves when it waits durably for the approval, with what is asked. */
export function startThread(engine: Engine, i: number): Promise<PendingApproval> {
  return threadCtx.run({ threadIndex: i }, async () => {
    const handle = await engine.interlock.start(WORKFLOW_ID, { threadId: threadIdFor(i) });
    const outcome = await handle.done();
    if (outcome.status !== 'waiting' || outcome.pendingInteractionIds.length !== 1) {
      throw new Error(`thread ${i}: expected to wait on one approval, got ${JSON.stringify(outcome)}`);
    }
    // The run's events are replayed to a late subscriber and have completed: this is synchronous.
    let request: UserInteractionRequest | undefined;
    handle.events$
      .subscribe((event) => {
        if (event.type === 'USER_INTERACTION_REQUESTED') request = event.request;
      })
      .unsubscribe();
    const approval = request?.toolApproval;
    if (!approval) throw new Error(`thread ${i}: no tool approval was requested`);
    return {
      interactionId: outcome.pendingInteractionIds[0] ?? '',
      toolName: approval.toolName,
      arguments: approval.toolParameters,
    };
  });
}

/**
 * Approves thread i from the store: reads the thread by id (`interlock.thread`), answers its pending
 * interaction with `interlock.respond`, and waits until the run finishes. Returns the final text.
 */
export function approveThread(engine: Engine, i: number): Promise<unknown> {
  return threadCtx.run({ threadIndex: i }, async () => {
    const thread = await engine.interlock.thread(threadIdFor(i));
    const interactionId = thread?.pendingInteractionIds[0];
    if (!thread || thread.status !== 'waiting' || interactionId === undefined) {
      throw new Error(`thread ${i}: not waiting in the store (${thread?.status ?? 'absent'})`);
    }
    const result = await engine.interlock.respond(interactionId, { approved: true });
    if (result.status !== 'accepted' || !result.thread) throw new Error(`thread ${i}: respond said ${result.status}`);
    const outcome = await result.thread.done();
    if (outcome.status !== 'completed') throw new Error(`thread ${i}: ended ${JSON.stringify(outcome)}`);
    return outcome.output;
  });
}

/** Reads thread i back from the store: finished, exactly one tool result, final text "done", the tool call finished. */
export async function verifyThread(engine: Engine, i: number): Promise<{ ok: boolean; why?: string }> {
  const thread = await engine.store.getThread(threadIdFor(i));
  if (!thread) return { ok: false, why: 'absent' };
  if (thread.status !== 'completed') return { ok: false, why: `status ${thread.status}` };
  const toolMessages = thread.conversation.filter((message) => message.role === 'tool');
  const last = thread.conversation[thread.conversation.length - 1];
  if (toolMessages.length !== 1) return { ok: false, why: `${toolMessages.length} tool results` };
  if (last?.role !== 'assistant' || last.content !== FINAL_TEXT || thread.output !== FINAL_TEXT)
    return { ok: false, why: 'final text is not done' };
  const execution = (await engine.store.listToolExecutions({ threadId: thread.threadId })).find(
    (call) => call.toolCallId === `call_${i}`,
  );
  if (execution?.status !== 'finished') return { ok: false, why: `tool execution ${execution?.status ?? 'absent'}` };
  return { ok: true };
}

export async function verifyAll(engine: Engine, n: number): Promise<{ ok: number; of: number; bad: unknown[] }> {
  let ok = 0;
  const bad: unknown[] = [];
  for (let i = 0; i < n; i++) {
    const verdict = await verifyThread(engine, i);
    if (verdict.ok) ok++;
    else if (bad.length < 5) bad.push({ i, ...verdict });
  }
  return { ok, of: n, bad };
}
