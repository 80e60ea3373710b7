import { z } from 'zod';
import { AuditLog } from '../../audit/audit-log.js';
import type { Clock } from '../../engine/clock.js';
import type { EmittedEvent, NodeExecutionContext } from '../../engine/node-executor.js';
import { Run, type RunContext } from '../../engine/run.js';
import { currentFrame, stopWaitingOn, withNodeState } from '../../engine/transitions.js';
import { VariableScopes } from '../../engine/variable-scopes.js';
import type {
  CommitResult,
  ICheckpointStore,
  InteractionRecord,
  RememberedApprovals,
  ThreadRecord,
  ToolExecutionRecord,
  UnitOfWork,
} from '../../persistence/checkpoint-store.js';
import { InMemoryCheckpointStore } from '../../persistence/memory/in-memory-checkpoint-store.js';
import { resolveApprovalOptions, type ApprovalOptions } from '../../policy/approval-options.js';
import { ApprovalPolicy } from '../../policy/approval-policy.js';
import type { ShellClassifierPort } from '../../policy/decide-approval.js';
import { MessageBus } from '../../policy/message-bus.js';
import {
  CREATED_AT,
  committed,
  createThread,
  present,
  save,
  threadRecord,
  workflowDefinition,
  type ThreadOverrides,
} from '../../testing/conformance/store-records.js';
import { AnswerApplier } from '../answer-applier.js';
import { CallDecider, type Decided } from '../call-decider.js';
import { defineTool, type Tool } from '../define-tool.js';
import { ToolExecution } from '../tool-execution.js';
import { ToolPins } from '../tool-pins.js';
import { ToolRegistry } from '../tool-registry.js';
import { TurnRecorder } from '../turn-recorder.js';
import { describeCall, type ReadyCall, type TurnCall, type TurnState } from '../turn-state.js';
import { safeShellClassifier } from '../../testing/test-tools.js';

/*
 * The parts a turn's stages are built from, by hand, over a real run: an in-memory store
 * (that keeps every unit it commits) with one thread, a `Run` of it read from the store, and
 * a node's context whose steps go to that run. The turn lives in the node's state, as the
 * pipeline keeps it, so a call's move changes the thread and is committed with it.
 */

export const clock: Clock = { now: () => Date.parse(CREATED_AT) };
/** How long this process's claim lasts, by `clock`. */
export const LEASE_MS = 30_000;
/** This process's owner id. */
export const OWNER = 'this-process';
/** The node the turn belongs to. */
export const NODE_ID = 'agent';

/** Shell rules that find every command safe. */
export const safeShell: ShellClassifierPort = safeShellClassifier();

/** A MEDIUM-risk write (asks by default), its runs recorded. */
export function noteTool(runs: string[] = []) {
  return defineTool({
    name: 'note',
    description: 'Writes a note',
    category: 'write',
    riskLevel: 'MEDIUM',
    parameters: z.object({ text: z.string() }),
    execute: async ({ text }) => {
      runs.push(text);
      return `noted ${text}`;
    },
  });
}

/** A LOW-risk read (allowed by default). */
export const lookupTool = defineTool({
  name: 'lookup',
  description: 'Looks a word up',
  category: 'read',
  riskLevel: 'LOW',
  parameters: z.object({ word: z.string() }),
  execute: async ({ word }) => `${word}: a word`,
});

/** The in-memory store, keeping every unit it was given and what came of it. */
export class RecordingStore extends InMemoryCheckpointStore {
  readonly units: { unit: UnitOfWork; result: CommitResult }[] = [];

  override async commit(unit: UnitOfWork): Promise<CommitResult> {
    const result = await super.commit(unit);
    this.units.push({ unit, result });
    return result;
  }

  /** The units it committed (not those it refused). */
  committedUnits(): UnitOfWork[] {
    return this.units.filter(({ result }) => result.status === 'committed').map(({ unit }) => unit);
  }

  /** The write-ahead record of a call of thread-1, as stored. */
  async toolCall(toolCallId: string): Promise<ToolExecutionRecord | undefined> {
    return (await this.listToolExecutions({ threadId: 'thread-1' })).find((call) => call.toolCallId === toolCallId);
  }
}

/** The turn kept in the thread's active node. */
export function turnOf(thread: ThreadRecord): TurnState {
  const state: unknown = thread.activeNode?.state;
  if (typeof state !== 'object' || state === null || !('calls' in state) || !Array.isArray(state.calls))
    throw new Error(`thread ${thread.threadId} keeps no turn in its active node`);
  return { calls: state.calls as TurnCall[] };
}

/** Thread-1, running node `agent` with these calls in its turn. */
export function threadWithTurn(calls: TurnCall[] = [], overrides: ThreadOverrides = {}): ThreadRecord {
  return threadRecord({
    activeNode: { workflowId: 'workflow-a', nodeId: NODE_ID, state: { calls } },
    steps: 1,
    ...overrides,
  });
}

export interface TurnPartsOptions {
  approval?: ApprovalOptions;
  /** The thread as stored before the run reads it (default: running `agent` with an empty turn). */
  thread?: ThreadRecord;
  /** What other processes left in the store (a call started, a question answered) before the run reads the thread. */
  seed?: (store: RecordingStore) => Promise<void>;
  /** Whether the run takes the thread's claim (a first commit) before the test; default true. */
  claimed?: boolean;
  /** The remembered approvals the thread's copy came with (a worker's job on PostgreSQL, issue 38). */
  remembered?: RememberedApprovals;
}

export async function turnParts(options: TurnPartsOptions = {}) {
  const runs: string[] = [];
  const tools = new ToolRegistry([noteTool(runs), lookupTool]);
  const store = new RecordingStore();
  await createThread(store, options.thread ?? threadWithTurn());
  await options.seed?.(store);
  const events: EmittedEvent[] = [];
  const policy = new ApprovalPolicy(tools, resolveApprovalOptions(options.approval ?? {}), safeShell, store, clock);
  const pins = new ToolPins(store);
  const recorder = new TurnRecorder(tools, new AuditLog(store, () => clock.now()));
  const bus = new MessageBus();
  const execution = new ToolExecution(clock, '/workspace');
  const decider = new CallDecider(tools, policy, bus, pins, recorder, clock);
  const applier = new AnswerApplier(tools, policy, execution, recorder, decider, clock);

  /**
   * A run of thread-1 as read from the store now (a process that starts, or takes over after
   * a crash). `dying`: a process about to die, whose commits never reach the store.
   */
  async function openRun(how: { dying?: boolean } = {}) {
    const controller = new AbortController();
    const runContext: RunContext = {
      store: how.dying === true ? cutOff(store) : store,
      owner: OWNER,
      leaseUntil: () => new Date(clock.now() + LEASE_MS).toISOString(),
      nowIso: () => new Date(clock.now()).toISOString(),
      publish: (_thread, event) => events.push(event),
    };
    const stored = present(await store.loadThread('thread-1'));
    const run = Run.fromStored(
      runContext,
      options.remembered === undefined ? stored : { ...stored, remembered: options.remembered },
    );
    const workflow = workflowDefinition();
    const context: NodeExecutionContext = {
      get thread() {
        return run.thread;
      },
      get frame() {
        return currentFrame(run.thread);
      },
      get fence() {
        return run.fence;
      },
      workflow,
      scopes: new VariableScopes(run.thread, currentFrame(run.thread), workflow, {}),
      signal: controller.signal,
      run,
      emit: (event) => events.push(event),
      apply: (step) => run.apply(step),
      nodeState: <State>() => (run.thread.activeNode?.state ?? undefined) as State | undefined,
    };

    /** Where the call with this id is in the turn; a call not there yet is put there first (the step of its decision). */
    async function place(call: TurnCall): Promise<number> {
      const turn = turnOf(context.thread);
      const index = turn.calls.findIndex((known) => known.id === call.id);
      if (index >= 0) return index;
      await context.apply({ next: withNodeState(context.thread, { calls: [...turn.calls, call] }) });
      return turn.calls.length;
    }

    /**
     * Moves a call of the turn to `decided.call` with its effects, in one step, as the
     * pipeline does; `released`: the thread stops waiting on that interaction in the same step.
     */
    async function settle(decided: Decided, released?: string): Promise<void> {
      const index = await place(decided.call);
      const thread = released === undefined ? context.thread : stopWaitingOn(context.thread, released);
      const calls = [...turnOf(thread).calls];
      calls[index] = decided.call;
      await context.apply({ next: withNodeState(thread, { calls }), effects: decided.effects });
    }

    /**
     * Runs a ready call the way the pipeline does: its plan; a start is committed (with
     * TOOL_CALL_STARTED, `Run.startCalls`) before `execute`, then the outcome is applied; then a commit.
     */
    async function runReady(call: ReadyCall, tool: Tool | undefined): Promise<TurnCall> {
      await place(call);
      const plan = execution.plan(call, tool, context, NODE_ID);
      if (plan.kind === 'settled') {
        await settle(plan);
        await run.commit();
        return plan.call;
      }
      const started = await run.startCalls({
        next: context.thread,
        effects: {
          toolCalls: [plan.change],
          events: [{ type: 'TOOL_CALL_STARTED', ...describeCall(call, NODE_ID) }],
        },
      });
      const done = await execution.execute(call, present(tool), context, NODE_ID, started);
      await settle(done);
      await run.commit();
      return done.call;
    }

    if (options.claimed !== false && how.dying !== true) {
      // The run takes the thread forward: its first commit claims it (a new epoch).
      await run.apply({ next: { ...run.thread, status: 'running' } as ThreadRecord, effects: { durable: 'now' } });
    }
    return { run, context, controller, place, settle, runReady };
  }

  return {
    store,
    tools,
    runs,
    events,
    policy,
    pins,
    recorder,
    bus,
    execution,
    decider,
    applier,
    ...(await openRun()),
    openRun,
    eventTypes: () => events.map((event) => event.type),
    /** The audit as stored, reduced to who decided what by which rule. */
    audit: async () =>
      (await store.listAuditEntries()).map(({ decidedBy, outcome, rule }) => ({ decidedBy, outcome, rule })),
    /** Another process takes the thread once this process's claim ran out (its epoch moves on). */
    takenByAnotherProcess: async () => {
      const stored = present(await store.getThread('thread-1'));
      const after = clock.now() + LEASE_MS + 1;
      await committed(store, {
        thread: save(
          stored,
          {},
          {
            kind: 'take',
            owner: 'another-process',
            until: new Date(after + LEASE_MS).toISOString(),
            now: new Date(after).toISOString(),
          },
        ),
      });
    },
  };
}

/** The store as a process that dies sees it: it reads, and nothing it commits ever arrives. */
function cutOff(store: ICheckpointStore): ICheckpointStore {
  return new Proxy(store, {
    get(target, property) {
      if (property === 'commit') return () => new Promise<never>(() => undefined);
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

/** A pending interaction of thread-1 opened, and answered with `input` by ada. */
export async function answeredInteraction(
  store: RecordingStore,
  interaction: InteractionRecord,
  input: unknown,
): Promise<void> {
  await committed(store, { interactions: [{ kind: 'open', interaction }] });
  await committed(store, {
    interactions: [
      {
        kind: 'answer',
        interactionId: interaction.interactionId,
        response: { input, responder: 'ada', respondedAt: '2026-01-02T03:04:30.000Z' },
      },
    ],
  });
}
