import {
  createApprovalGate,
  InterlockError,
  runWithReceipts,
  UNKNOWN_GATE_TOOL,
  type ApprovalGate,
  type ApprovalGateOptions,
  type GateDecision,
  type GatePause,
  type GatePending,
  type GateToolPolicy,
  type ScopedReceipt,
} from '@interlock/core';
import type { BaseCheckpointSaver, StreamMode } from '@langchain/langgraph';
import { exportThread, importThread } from './checkpoint-transfer.js';
import {
  callsOf,
  resumeCommand,
  schemasOf,
  toolsOfGraph,
  type GraphInterrupt,
  type GraphTool,
} from './graph-decisions.js';
import { receiptsOfResume } from './graph-receipts.js';

export type { HitlDecision, HitlRequest } from './graph-decisions.js';

/** What the adapter needs of a compiled graph (a `StateGraph` compiled with a checkpointer, or `createAgent(…).graph`). */
export interface InterruptibleGraph {
  invoke(input: unknown, config: { configurable: { thread_id: string } }): Promise<unknown>;
  /** Needed for {@link InterlockGraphOptions.onStreamChunk}: the graph's `stream`. */
  stream?(
    input: unknown,
    config: { configurable: { thread_id: string }; streamMode: StreamMode | StreamMode[] },
  ): Promise<AsyncIterable<unknown>>;
  getState(config: { configurable: { thread_id: string } }): Promise<{
    values?: unknown;
    tasks: readonly { interrupts?: readonly { id?: string; value?: unknown }[] }[];
  }>;
}

export interface InterlockGraphOptions extends Omit<ApprovalGateOptions, 'continuation' | 'name'> {
  /** The graph: its interrupts that carry a human-in-the-loop request are decided by Interlock. */
  graph: InterruptibleGraph;
  /** The graph's checkpointer: a paused thread's checkpoints are stored beside its decisions, and written back into it to resume. */
  checkpointer: BaseCheckpointSaver;
  /** The gate's name (one per graph in a store). Default `langgraph`. */
  name?: string;
  /** How Interlock sees each tool, by name. A tool left out is category `ask`: a person decides every call. */
  tools?: Record<string, GateToolPolicy>;
  /** Told when a thread that was paused finishes, in whichever process continued it. */
  onFinished?: (result: unknown, pause: GatePause & { threadId: string }) => void | Promise<void>;
  /**
   * Given: the graph runs streamed (`graph.stream(input, { streamMode })`) — the first run
   * and every resume, in whichever process resumes it — and each chunk is handed here as it
   * comes (awaited, in order). A stream ends where the graph interrupts for a person; the
   * resume's stream goes on from the decisions. The result is then the thread's state values.
   */
  onStreamChunk?: (chunk: unknown, context: { threadId: string }) => void | Promise<void>;
  /** The stream mode(s) of {@link onStreamChunk}. Default `values`; `messages` streams the model's tokens. */
  streamMode?: StreamMode | StreamMode[];
}

/** What an invocation came to: finished, or paused until people answer (it goes on in any process of the gate). */
export type InterlockGraphOutcome =
  | { status: 'completed'; result: unknown }
  | { status: 'paused'; pauseId: string; pending: GatePending[]; decided: GateDecision[] };

/**
 * A LangGraph graph whose human-in-the-loop interrupts Interlock answers (F56): each action
 * request of an interrupt is a decision of the approval gate — by rule at once, or by a
 * person in the inbox — and the thread resumes with `Command({ resume: { decisions } })`:
 * approve, edit (the edited arguments, checked against the tool's schema) or reject with
 * the reason. A paused thread's checkpoints are stored with the decisions, so whichever
 * process of the gate sees the last answer resumes it.
 */
export class InterlockGraph {
  private gateOf: ApprovalGate | undefined;

  /** @internal Use {@link interlockGraph}. */
  constructor(
    private readonly options: InterlockGraphOptions,
    /** The graph's LangChain tools: their schemas check an approved edit once more before it runs. */
    private readonly tools: readonly GraphTool[] = [],
  ) {}

  /** The gate: its Interlock answers, lists what waits and reads the audit. */
  get gate(): ApprovalGate {
    if (this.gateOf === undefined) throw new InterlockError('INVALID_OPTIONS', 'the graph has no gate yet');
    return this.gateOf;
  }

  /** @internal */
  attach(gate: ApprovalGate): void {
    this.gateOf = gate;
  }

  /** Invokes the graph on thread `threadId`; interrupts are decided, and a call that needs a person pauses it. */
  async invoke(input: unknown, options: { threadId: string; sessionId?: string }): Promise<InterlockGraphOutcome> {
    return this.runFrom(input, options.threadId, options.sessionId ?? options.threadId);
  }

  /** Takes a paused thread on: the gate's continuation, in whichever process learns the last decision. */
  async continue(pause: GatePause): Promise<unknown> {
    const { threadId, checkpoints } = JSON.parse(pause.state) as PausedThread;
    await importThread(this.options.checkpointer, checkpoints);
    // The decisions answer the interrupts the imported thread stands at, in their order (F62).
    const interrupts = await this.interruptsOf({ configurable: { thread_id: threadId } });
    const resume = await resumeCommand(this.gate, interrupts, pause.decisions, this.tools);
    const receipts = await receiptsOfResume(this.gate, interrupts, pause.decisions, this.tools);
    const outcome = await this.runFrom(resume, threadId, pause.session.sessionId, receipts);
    if (outcome.status === 'paused') return { status: 'paused', pauseId: outcome.pauseId };
    await this.options.onFinished?.(outcome.result, { ...pause, threadId });
    return { status: 'completed' };
  }

  /** Stops the gate (paused threads stay in the store for the next process). */
  close(): Promise<void> {
    return this.gate.close();
  }

  private async runFrom(
    input: unknown,
    threadId: string,
    sessionId: string,
    receipts: readonly ScopedReceipt[] = [],
  ): Promise<InterlockGraphOutcome> {
    const config = { configurable: { thread_id: threadId } };
    let result = await this.runOnce(input, config, receipts);
    for (;;) {
      const interrupts = await this.interruptsOf(config);
      if (interrupts.length === 0) return { status: 'completed', result };
      const outcome = await this.gate.decide(callsOf(interrupts), {
        session: { sessionId },
        state: async () =>
          JSON.stringify({
            threadId,
            checkpoints: await exportThread(this.options.checkpointer, threadId),
          } satisfies PausedThread),
      });
      if (outcome.status === 'paused') {
        return {
          status: 'paused',
          pauseId: outcome.pauseId,
          pending: outcome.decisions.filter((decision): decision is GatePending => decision.status === 'pending'),
          decided: outcome.decisions.filter((decision): decision is GateDecision => decision.status !== 'pending'),
        };
      }
      const resume = await resumeCommand(this.gate, interrupts, outcome.decisions, this.tools);
      const receipts = await receiptsOfResume(this.gate, interrupts, outcome.decisions, this.tools);
      result = await this.runOnce(resume, config, receipts);
    }
  }

  private async interruptsOf(config: { configurable: { thread_id: string } }): Promise<GraphInterrupt[]> {
    return (await this.options.graph.getState(config)).tasks.flatMap((task) => task.interrupts ?? []);
  }

  /**
   * One run of the graph: invoked, or streamed to `onStreamChunk` when it is given. The
   * approved calls' receipts are at hand while it runs (F63): its tools read them with
   * `currentReceipt()`.
   */
  private runOnce(
    input: unknown,
    config: { configurable: { thread_id: string } },
    receipts: readonly ScopedReceipt[] = [],
  ): Promise<unknown> {
    return runWithReceipts(receipts, () => this.runGraph(input, config));
  }

  private async runGraph(input: unknown, config: { configurable: { thread_id: string } }): Promise<unknown> {
    const { graph, onStreamChunk, streamMode = 'values' } = this.options;
    if (onStreamChunk === undefined) return graph.invoke(input, config);
    if (graph.stream === undefined)
      throw new InterlockError('INVALID_OPTIONS', 'onStreamChunk needs a graph with stream() (a compiled graph)');
    const threadId = config.configurable.thread_id;
    for await (const chunk of await graph.stream(input, { ...config, streamMode }))
      await onStreamChunk(chunk, { threadId });
    return (await graph.getState(config)).values;
  }
}

interface PausedThread {
  threadId: string;
  checkpoints: string;
}

/**
 * Puts a LangGraph graph (or a LangChain 1 agent's `graph`) under Interlock's approvals
 * (F56). Every process that may continue it calls this with the same graph and store.
 *
 * @example
 * const checkpointer = new MemorySaver();
 * const agent = createAgent({ model, tools, checkpointer, middleware: [humanInTheLoopMiddleware({ interruptOn: interruptOnEvery(tools) })] });
 * const guarded = await interlockGraph({ graph: agent.graph, checkpointer, store: { type: 'sqlite' }, tools: { write_file: { category: 'write', riskLevel: 'MEDIUM' } } });
 * const outcome = await guarded.invoke({ messages: [{ role: 'user', content: 'Tidy the README' }] }, { threadId: 't1' });
 */
export async function interlockGraph(options: InterlockGraphOptions): Promise<InterlockGraph> {
  const {
    graph: _graph,
    checkpointer: _checkpointer,
    name,
    onFinished: _onFinished,
    onStreamChunk: _onStreamChunk,
    streamMode: _streamMode,
    ...gateOptions
  } = options;
  // The graph's own tools' schemas check an approver's edit where the app gave no JSON Schema (F19).
  const tools = toolsOfGraph(options.graph);
  const guarded = new InterlockGraph(options, tools);
  const schemas = schemasOf(tools);
  guarded.attach(
    await createApprovalGate({
      ...gateOptions,
      name: name ?? 'langgraph',
      tools: withSchemas(gateOptions.tools ?? {}, gateOptions.unknownTool ?? UNKNOWN_GATE_TOOL, schemas),
      // A pause left by a process that died may be continued while the gate starts, before it is returned.
      continuation: (pause, { gate }) => {
        guarded.attach(gate);
        return guarded.continue(pause);
      },
    }),
  );
  return guarded;
}

/** `interruptOn` for `humanInTheLoopMiddleware`: every tool interrupts, so Interlock decides every call (approve, edit or reject). */
export function interruptOnEvery(
  tools: readonly { name: string }[],
): Record<string, { allowedDecisions: ('approve' | 'edit' | 'reject')[] }> {
  return Object.fromEntries(tools.map((tool) => [tool.name, { allowedDecisions: ['approve', 'edit', 'reject'] }]));
}

/** The policies, each given its tool's JSON Schema when the app gave none; a tool of the graph left out is `unknown`'s, with its schema. */
function withSchemas(
  policies: Record<string, GateToolPolicy>,
  unknown: GateToolPolicy,
  schemas: Record<string, Record<string, unknown>>,
): Record<string, GateToolPolicy> {
  const names = new Set([...Object.keys(policies), ...Object.keys(schemas)]);
  return Object.fromEntries(
    [...names].map((name) => {
      const policy = Object.hasOwn(policies, name) ? (policies[name] as GateToolPolicy) : unknown;
      const jsonSchema = policy.jsonSchema ?? schemas[name];
      return [name, jsonSchema === undefined ? policy : { ...policy, jsonSchema }];
    }),
  );
}
