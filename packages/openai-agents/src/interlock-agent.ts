import {
  createApprovalGate,
  mismatchOf,
  UNKNOWN_GATE_TOOL,
  type ApprovalGate,
  type ApprovalGateOptions,
  type GateCall,
  type GateDecision,
  type GatePause,
  type GatePending,
  type GateToolPolicy,
} from '@interlock/core';
import {
  run,
  RunState,
  type Agent,
  type RunResult,
  type RunStreamEvent,
  type RunToolApprovalItem,
  type StreamedRunResult,
} from '@openai/agents';
import { distinctCallIds } from './distinct-call-ids.js';
import { ApprovedRuns, argumentsOf, interlockedTools, type ReceiptSigner } from './interlocked-tools.js';

/** Any agent: the SDK's `Agent` is invariant in its context and output types. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- see above
type AnyAgent = Agent<any, any>;

/** The result of one run of the agent: streamed when the agent runs with {@link InterlockAgentOptions.onStreamEvent}. */
export type AgentRunResult<TAgent extends AnyAgent> = RunResult<unknown, TAgent> | StreamedRunResult<unknown, TAgent>;

/** How Interlock sees a tool of the agent: its category and risk, and where its command or path is (the JSON Schema comes from the tool). */
export type AgentToolPolicy = Omit<GateToolPolicy, 'jsonSchema'>;

export interface InterlockAgentOptions<TAgent extends AnyAgent> extends Omit<
  ApprovalGateOptions,
  'name' | 'continuation' | 'tools'
> {
  /** The agent. Its function tools are given `needsApproval`, so every call is an interruption Interlock decides. */
  agent: TAgent;
  /** The gate's name (one per agent in a store). Default `openai-agents.<agent name>`. */
  name?: string;
  /** How Interlock sees each tool, by name. A tool left out is category `ask`: a person decides every call. */
  tools?: Record<string, AgentToolPolicy>;
  /** Most turns of one run (the SDK's `maxTurns`). */
  maxTurns?: number;
  /** Told when a run that was paused finishes, in whichever process continued it. */
  onFinished?: (result: AgentRunResult<TAgent>, pause: GatePause) => void | Promise<void>;
  /**
   * Given: the agent runs streamed (`run(agent, input, { stream: true })`) — the first run
   * and every continuation, in whichever process continues it — and each event of the
   * stream is handed here as it comes (awaited, in order). A stream ends where the run
   * pauses for a person; the continuation's stream goes on from the approved calls.
   */
  onStreamEvent?: (event: RunStreamEvent) => void | Promise<void>;
}

/** What a run came to: finished, or paused until people answer (it goes on in any process of the gate). */
export type InterlockRunOutcome<TAgent extends AnyAgent> =
  | { status: 'completed'; finalOutput: AgentRunResult<TAgent>['finalOutput']; result: AgentRunResult<TAgent> }
  | { status: 'paused'; pauseId: string; pending: GatePending[]; decided: GateDecision[] };

/**
 * An OpenAI Agents SDK agent whose tool calls Interlock decides (F56): one Interlock
 * interaction per interruption, the run state (`RunState.toString()`) stored with them,
 * and the run resumed from it (`RunState.fromString`) in whichever process of the gate
 * sees the last answer — approvals, rejections with their reason, edited arguments.
 */
export class InterlockAgent<TAgent extends AnyAgent> {
  /** @internal Use {@link interlockAgent}. */
  constructor(
    /** The agent as it runs: the given one with its tools wrapped. */
    readonly agent: TAgent,
    private readonly options: InterlockAgentOptions<TAgent>,
    private readonly approved: ApprovedRuns,
  ) {}

  private gateOf: ApprovalGate | undefined;

  /** The gate: its Interlock answers, lists what waits and reads the audit. */
  get gate(): ApprovalGate {
    if (this.gateOf === undefined) throw new Error('the agent has no gate yet');
    return this.gateOf;
  }

  /** @internal */
  attach(gate: ApprovalGate): void {
    this.gateOf = gate;
  }

  /** Runs the agent on `input`; a call that needs a person pauses the run (see {@link InterlockRunOutcome}). */
  run(input: string, options: { sessionId?: string } = {}): Promise<InterlockRunOutcome<TAgent>> {
    return this.runFrom(input, options.sessionId === undefined ? {} : { sessionId: options.sessionId });
  }

  /** Takes a paused run on: the gate's continuation, in whichever process learns the last decision. */
  async continue(pause: GatePause): Promise<unknown> {
    const state = await RunState.fromString(this.agent, pause.state);
    this.apply(state, state.getInterruptions(), pause.decisions);
    const outcome = await this.runFrom(state, pause.session);
    if (outcome.status === 'paused') return { status: 'paused', pauseId: outcome.pauseId };
    await this.options.onFinished?.(outcome.result, pause);
    return { status: 'completed', finalOutput: toJson(outcome.finalOutput) };
  }

  /** Stops the gate (pauses stay in the store for the next process). */
  close(): Promise<void> {
    return this.gate.close();
  }

  private async runFrom(
    input: string | RunState<unknown, TAgent>,
    session: { sessionId?: string; chatId?: string },
  ): Promise<InterlockRunOutcome<TAgent>> {
    let result = await this.runOnce(input);
    for (;;) {
      const items = result.interruptions;
      if (items.length === 0) return { status: 'completed', finalOutput: result.finalOutput, result };
      const state = result.state;
      const outcome = await this.gate.decide(items.map(callOf), {
        state: () => state.toString(),
        ...(session.sessionId === undefined ? {} : { session }),
      });
      if (outcome.status === 'paused') {
        return {
          status: 'paused',
          pauseId: outcome.pauseId,
          pending: outcome.decisions.filter((decision): decision is GatePending => decision.status === 'pending'),
          decided: outcome.decisions.filter((decision): decision is GateDecision => decision.status !== 'pending'),
        };
      }
      this.apply(state, items, outcome.decisions);
      result = await this.runOnce(state);
    }
  }

  /** One run of the SDK, streamed to `onStreamEvent` when it is given. */
  private async runOnce(input: string | RunState<unknown, TAgent>): Promise<AgentRunResult<TAgent>> {
    const runOptions = this.options.maxTurns === undefined ? {} : { maxTurns: this.options.maxTurns };
    const onStreamEvent = this.options.onStreamEvent;
    if (onStreamEvent === undefined) return run(this.agent, input, runOptions);
    const streamed = await run(this.agent, input, { ...runOptions, stream: true });
    for await (const event of streamed) await onStreamEvent(event);
    await streamed.completed;
    const failure: unknown = streamed.error;
    if (failure !== undefined && failure !== null)
      throw failure instanceof Error ? failure : new Error(`the streamed run failed: ${JSON.stringify(failure)}`);
    return streamed;
  }

  /**
   * Approves or rejects each interruption as decided: `decisions[i]` is `items[i]`'s, and is
   * applied only if it decided exactly that call (F62) — tool, arguments, definition; the
   * model's call ids prove nothing. An approval lets that one call run (an edit and an
   * instruction go with it); anything else is rejected.
   */
  private apply(
    state: RunState<unknown, TAgent>,
    items: readonly RunToolApprovalItem[],
    decisions: readonly (GateDecision | GatePending)[],
  ): void {
    items.forEach((item, index) => {
      const call = callOf(item);
      const given = decisions[index];
      // Fail closed: a call without a decision of its own is rejected.
      const decision = given !== undefined && this.gate.decidedExactly(given, call) ? given : mismatchOf(call);
      if (decision.status === 'approved') {
        this.approved.add(call.toolCallId, decision);
        state.approve(item);
      } else {
        state.reject(item, {
          message:
            decision.status === 'rejected' ? `Interlock: ${decision.reason}` : 'Interlock: no decision was found',
        });
      }
    });
  }
}

/** One interruption as the gate's call. */
function callOf(item: RunToolApprovalItem): GateCall {
  const raw = item.rawItem as { callId?: string; id?: string; arguments?: string };
  return {
    toolCallId: raw.callId ?? raw.id ?? '',
    toolName: item.name ?? 'unknown',
    arguments: argumentsOf(item.arguments),
  };
}

function toJson(value: unknown): unknown {
  return value === undefined ? null : (JSON.parse(JSON.stringify(value)) as unknown);
}

/**
 * Puts an OpenAI Agents SDK agent under Interlock's approvals (F56). Every process that may
 * continue the agent (after a restart, or a worker beside the web inbox) calls it with the
 * same agent and store.
 *
 * @example
 * const guarded = await interlockAgent({
 *   agent,
 *   store: { type: 'sqlite', path: '.interlock/interlock.db' },
 *   tools: { read_file: { category: 'read', riskLevel: 'LOW' }, write_file: { category: 'write', riskLevel: 'MEDIUM', pathArgument: 'path' } },
 *   onFinished: (result) => console.log(result.finalOutput),
 * });
 * const outcome = await guarded.run('Tidy the README');   // 'completed', or 'paused' until someone answers
 */
export async function interlockAgent<TAgent extends AnyAgent>(
  options: InterlockAgentOptions<TAgent>,
): Promise<InterlockAgent<TAgent>> {
  const {
    agent,
    name,
    tools = {},
    maxTurns: _maxTurns,
    onFinished: _onFinished,
    onStreamEvent: _onStreamEvent,
    ...gateOptions
  } = options;
  const approved = new ApprovedRuns();
  const model = typeof agent.model === 'string' ? agent.model : distinctCallIds(agent.model);
  // Late-bound: the gate is made after the agent it continues.
  const sign: ReceiptSigner = (decision, call) => guarded.gate.receipt(decision, call);
  const wrapped = agent.clone({ tools: interlockedTools(agent.tools, approved, sign), model }) as TAgent;
  const guarded: InterlockAgent<TAgent> = new InterlockAgent(wrapped, options, approved);
  const policies: Record<string, GateToolPolicy> = {};
  for (const tool of agent.tools) {
    if (tool.type !== 'function') continue;
    // The tool's own parameters check an approver's edit, for a tool left out of `tools` too (F19).
    const policy = Object.hasOwn(tools, tool.name)
      ? (tools[tool.name] as AgentToolPolicy)
      : (gateOptions.unknownTool ?? UNKNOWN_GATE_TOOL);
    policies[tool.name] = { ...policy, jsonSchema: tool.parameters as Record<string, unknown> };
  }
  const gate = await createApprovalGate({
    ...gateOptions,
    name: name ?? `openai-agents.${agent.name.replace(/[^A-Za-z0-9_.-]/g, '-')}`,
    tools: policies,
    // A pause left by a process that died may be continued while the gate starts, before it is returned.
    continuation: (pause, { gate }) => {
      guarded.attach(gate);
      return guarded.continue(pause);
    },
  });
  guarded.attach(gate);
  return guarded;
}
