import { inject, injectable } from 'inversify';
import type { ApprovalStage } from '@interlock/sdk-types';
import type { AuditLog } from '../audit/audit-log.js';
import { TYPES } from '../di/tokens.js';
import type { Clock } from '../engine/clock.js';
import { failpoint, isArmed } from '../engine/failpoints.js';
import type { EmittedEvent, NodeExecutionContext } from '../engine/node-executor.js';
import { isStop } from '../engine/shutdown.js';
import type { InteractionGateway } from '../interaction/interaction-gateway.js';
import type { ICheckpointStore, InteractionRecord, ThreadRecord } from '../persistence/checkpoint-store.js';
import type { ToolCallChange } from '../persistence/unit-of-work.js';
import type { ApprovalPolicy } from '../policy/approval-policy.js';
import { quorumOf } from '../policy/approval-quorum.js';
import type { MessageBus } from '../policy/message-bus.js';
import { AnswerApplier } from './answer-applier.js';
import { approvalSpecs } from './approval-requests.js';
import { CallDecider, type Decided } from './call-decider.js';
import type { Receipts } from '../receipts/receipts.js';
import { receiptsOf } from './call-receipts.js';
import { ToolExecution } from './tool-execution.js';
import { ToolPins } from './tool-pins.js';
import type { ToolRegistry } from './tool-registry.js';
import { TurnRecorder } from './turn-recorder.js';
import {
  abandon,
  argumentsOf,
  awaitAnswer,
  describeCall,
  finish,
  isAwaiting,
  type AwaitingCall,
  type ReadyCall,
  type TurnCall,
  type TurnOptions,
  type TurnState,
} from './turn-state.js';

export type { TurnOptions } from './turn-state.js';

/** How a batch of calls ended in this run. */
export type TurnProgress = 'done' | 'suspend' | 'cancelled';

/** Where a node keeps its turn in its resumable state. */
export interface TurnLens {
  get(thread: ThreadRecord): TurnState;
  set(thread: ThreadRecord, turn: TurnState): ThreadRecord;
}

const UNASKED_PHASE = { result: 'awaiting-result', recovery: 'awaiting-recovery' } as const;

/**
 * Decides, asks about, runs and reports the tool calls of one model turn (or one TOOL
 * node), F13–F19, F44: every call goes through the approval pipeline; the calls that need
 * a person are requested together; the allowed ones run at once; one rejection never
 * drops the others. The turn is part of the thread's value (the node's state, through a
 * lens): each call moves by the transitions of turn-state.ts, in a step whose effects
 * carry what the move writes and says.
 *
 * The stages live beside it: deciding a new call (call-decider.ts: admission.ts, pure,
 * then the rules and automatic-approvers.ts), the questions and the reading of their
 * answers (approval-requests.ts, pure; answer-applier.ts applies them), and running a call
 * behind its write-ahead record (tool-execution.ts); turn-recorder.ts drafts their audit
 * entries and events. This class is the loop that drives them.
 */
@injectable()
export class ToolCallPipeline {
  private readonly pins: ToolPins;
  private readonly execution: ToolExecution;
  private readonly recorder: TurnRecorder;
  private readonly decider: CallDecider;
  private readonly answers: AnswerApplier;

  constructor(
    @inject(TYPES.ToolRegistry) private readonly tools: ToolRegistry,
    @inject(TYPES.ApprovalPolicy) private readonly policy: ApprovalPolicy,
    @inject(TYPES.InteractionGateway) private readonly gateway: InteractionGateway,
    @inject(TYPES.CheckpointStore) store: ICheckpointStore,
    @inject(TYPES.AuditLog) audit: AuditLog,
    @inject(TYPES.WorkspaceRoot) private readonly workspaceRoot: string,
    @inject(TYPES.MessageBus) bus: MessageBus,
    @inject(TYPES.Clock) private readonly clock: Clock,
    @inject(TYPES.Receipts) private readonly receipts: Receipts,
  ) {
    this.pins = new ToolPins(store);
    this.execution = new ToolExecution(clock, workspaceRoot);
    this.recorder = new TurnRecorder(tools, audit);
    this.decider = new CallDecider(tools, policy, bus, this.pins, this.recorder, clock);
    this.answers = new AnswerApplier(tools, policy, this.execution, this.recorder, this.decider, clock);
  }

  async run(context: NodeExecutionContext, options: TurnOptions, lens: TurnLens): Promise<TurnProgress> {
    // Interactions whose responder is elsewhere (or deferred) are not asked again in this run.
    const elsewhere = new Set<string>();
    for (;;) {
      // Closing the process stops here: approved calls not yet run stay 'ready' in the thread.
      if (context.signal.aborted && isStop(context.signal.reason)) return 'suspend';
      await this.decideNewCalls(context, options, lens);
      await this.runReadyCalls(context, options, lens);

      const awaiting = lens.get(context.thread).calls.filter(isAwaiting);
      if (awaiting.length === 0) return 'done';
      const waiting = awaiting.filter((call) => !elsewhere.has(call.interactionId ?? ''));
      if (waiting.length === 0) return 'suspend';
      const records = waiting.map((call) => this.gateway.load(call.interactionId ?? '', context));
      const { settled, suspendedIds } = await this.gateway.settle(records, context);
      for (const id of suspendedIds) elsewhere.add(id);
      if (context.signal.aborted && !isStop(context.signal.reason)) {
        await this.cancel(context, lens, settled, options);
        return 'cancelled';
      }
      for (const record of settled) {
        const turn = lens.get(context.thread);
        const index = turn.calls.findIndex((call) => isAwaiting(call) && call.interactionId === record.interactionId);
        const call = turn.calls[index] as AwaitingCall | undefined;
        if (!call) continue;
        const decided = await this.answers.apply(call, record, context, options.nodeId);
        await this.update(context, lens, index, decided, (thread) =>
          this.gateway.release(thread, record.interactionId),
        );
      }
      // A crash test kills the process here: the answers applied, nothing of it committed.
      if (settled.length > 0) failpoint('interaction:applied');
    }
  }

  /** Moves call `index` of the turn to `decided.call`, with its effects, in one step. */
  private async update(
    context: NodeExecutionContext,
    lens: TurnLens,
    index: number,
    decided: Decided,
    also: (thread: ThreadRecord) => ThreadRecord = (thread) => thread,
  ): Promise<void> {
    const thread = also(context.thread);
    const turn = lens.get(thread);
    const calls = [...turn.calls];
    calls[index] = decided.call;
    await context.apply({ next: lens.set(thread, { ...turn, calls }), effects: decided.effects });
  }

  /** Decides each new call; those that need a person are asked together. */
  private async decideNewCalls(context: NodeExecutionContext, options: TurnOptions, lens: TurnLens): Promise<void> {
    const toAsk: number[] = [];
    for (const [index, call] of lens.get(context.thread).calls.entries()) {
      if (call.phase !== 'new') continue;
      const decided = await this.decider.decide(call, context, options);
      await this.update(context, lens, index, decided);
      // Still new once decided: it waits for a person.
      if (decided.call.phase === 'new') toAsk.push(index);
    }
    if (toAsk.length > 0) await this.requestApprovals(context, lens, toAsk, 'execution', options);
  }

  /** Opens one interaction per call, in the step that makes the calls wait on them (a crash never orphans one). */
  private async requestApprovals(
    context: NodeExecutionContext,
    lens: TurnLens,
    indices: number[],
    stage: ApprovalStage,
    options: TurnOptions,
  ): Promise<void> {
    const turn = lens.get(context.thread);
    const calls = indices.map((index) => turn.calls[index]).filter((call): call is TurnCall => call !== undefined);
    const toolOf = (name: string) => this.tools.find(name);
    const changes =
      stage === 'execution'
        ? await Promise.all(
            calls.map((call) => {
              const tool = toolOf(call.name);
              return tool ? this.pins.changeOf(tool) : Promise.resolve(undefined);
            }),
          )
        : undefined;
    const quorum = quorumOf(context.thread, this.policy.options);
    const specs = approvalSpecs(calls, stage, {
      nodeId: options.nodeId,
      timeout: context.thread.toolApproval.approvalTimeout,
      toolOf,
      workspaceRoot: this.workspaceRoot,
      ...(changes ? { changes } : {}),
      ...(quorum === undefined ? {} : { quorum, now: this.clock.now() }),
    });
    await this.gateway.open(specs, context, (thread, records) => {
      const current = lens.get(thread);
      const next = [...current.calls];
      records.forEach((record, n) => {
        const index = indices[n];
        const call = calls[n];
        if (index !== undefined && call) next[index] = awaitAnswer(call, stage, record.interactionId);
      });
      return lens.set(thread, { ...current, calls: next });
    });
  }

  /**
   * Runs every call that may run: they start together in one durability point (their
   * write-ahead records, with everything pending), then run concurrently; results and
   * unknown outcomes that need a person are asked about together.
   */
  private async runReadyCalls(context: NodeExecutionContext, options: TurnOptions, lens: TurnLens): Promise<void> {
    if (context.signal.aborted) return;
    const { nodeId } = options;
    const turn = lens.get(context.thread);
    const ready = indicesOf(turn, (call): call is ReadyCall => call.phase === 'ready');
    const starting: { index: number; call: ReadyCall; change: ToolCallChange }[] = [];
    for (const index of ready) {
      const call = turn.calls[index] as ReadyCall;
      if (options.decideOnly === true) {
        await this.update(context, lens, index, { call: finish(call, 'SUCCESS', argumentsOf(call)), effects: {} });
        continue;
      }
      const plan = this.execution.plan(call, this.tools.find(call.name), context, nodeId);
      if (plan.kind === 'start') starting.push({ index, call, change: plan.change });
      else
        await this.update(context, lens, index, {
          call: plan.call,
          effects: {
            ...plan.effects,
            events: [...(plan.effects.events ?? []), ...this.recorder.reported(plan.call, nodeId)],
          },
        });
    }
    if (starting.length > 0) {
      // A crash test kills the process here with the calls approved and not started.
      if (isArmed('tool:approved')) {
        await context.run.commit();
        failpoint('tool:approved');
      }
      // Write-ahead: the starts are durable before any side effect, with their receipts (F63).
      const events: EmittedEvent[] = starting.map(({ call }) => ({
        type: 'TOOL_CALL_STARTED',
        ...describeCall(call, nodeId),
      }));
      // Signing takes a turn of the event loop: what is pending (the answer just applied)
      // is committed with the starts, not alone in that turn.
      const receipts = await context.run.holdingCommit(() =>
        receiptsOf(
          this.receipts,
          starting.map(({ call }) => ({ call, tool: this.tools.find(call.name) })),
          context,
        ),
      );
      const kept = receipts.flatMap((receipt) => (receipt === undefined ? [] : [receipt.change]));
      // The starts and the receipts they run with are committed before any side effect (F40, F63).
      const started = await context.run.startCalls({
        next: context.thread,
        effects: { toolCalls: starting.map(({ change }) => change), globals: kept, events },
      });
      failpoint('tool:started');
      // A call whose tool returned after the signal was aborted did not finish (ToolExecution
      // throws): the run stops there, and the call is asked about by whoever goes on.
      await Promise.all(
        starting.map(async ({ index, call }, n) => {
          const tool = this.tools.find(call.name);
          if (!tool) return;
          const done = await this.execution.execute(call, tool, context, nodeId, started, receipts[n]?.token);
          await this.update(context, lens, index, {
            call: done.call,
            effects: { ...done.effects, events: this.recorder.reported(done.call, nodeId) },
          });
        }),
      );
    }
    for (const stage of ['result', 'recovery'] as const) {
      const unasked = indicesOf(
        lens.get(context.thread),
        (call) => call.phase === UNASKED_PHASE[stage] && call.interactionId === undefined,
      );
      if (unasked.length > 0) await this.requestApprovals(context, lens, unasked, stage, options);
    }
  }

  /** The thread was cancelled while calls waited: settled waits are let go, every unfinished call ends rejected. */
  private async cancel(
    context: NodeExecutionContext,
    lens: TurnLens,
    settled: InteractionRecord[],
    options: TurnOptions,
  ): Promise<void> {
    let thread = context.thread;
    const events: EmittedEvent[] = [];
    for (const record of settled) {
      thread = this.gateway.release(thread, record.interactionId);
      if (record.status !== 'failed') continue;
      events.push({
        type: 'USER_INTERACTION_FAILED',
        interactionId: record.interactionId,
        nodeId: record.nodeId,
        operationType: 'TOOL_APPROVAL',
        reason: record.failureReason ?? 'cancelled',
        message: record.failureMessage ?? 'the thread was cancelled',
      });
    }
    const reason = typeof context.signal.reason === 'string' ? context.signal.reason : 'the thread was cancelled';
    const turn = lens.get(thread);
    const calls = turn.calls.map((call) => {
      if (call.phase === 'done') return call;
      const done = abandon(call, `the thread was cancelled: ${reason}`);
      events.push(...this.recorder.reported(done, options.nodeId));
      return done;
    });
    await context.apply({ next: lens.set(thread, { ...turn, calls }), effects: { events } });
  }
}

function indicesOf(turn: TurnState, test: (call: TurnCall) => boolean): number[] {
  return turn.calls.flatMap((call, index) => (test(call) ? [index] : []));
}
