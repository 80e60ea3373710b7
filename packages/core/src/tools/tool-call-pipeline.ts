import { inject, injectable } from 'inversify';
import type { ApprovalStage } from '@interlock/sdk-types';
import type { AuditLog } from '../audit/audit-log.js';
import { TYPES } from '../di/tokens.js';
import type { Clock } from '../engine/clock.js';
import { failpointAfterCommit } from '../engine/durability.js';
import type { NodeExecutionContext } from '../engine/node-executor.js';
import { isStop } from '../engine/shutdown.js';
import type { InteractionGateway } from '../interaction/interaction-gateway.js';
import type { ICheckpointStore, InteractionRecord } from '../persistence/checkpoint-store.js';
import type { ApprovalPolicy } from '../policy/approval-policy.js';
import type { MessageBus } from '../policy/message-bus.js';
import { AnswerApplier } from './answer-applier.js';
import { approvalSpecs } from './approval-requests.js';
import { CallDecider } from './call-decider.js';
import { ToolExecution } from './tool-execution.js';
import { ToolPins } from './tool-pins.js';
import type { ToolRegistry } from './tool-registry.js';
import { TurnRecorder } from './turn-recorder.js';
import {
  abandon,
  awaitAnswer,
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

const UNASKED_PHASE = { result: 'awaiting-result', recovery: 'awaiting-recovery' } as const;

/**
 * Decides, asks about, runs and reports the tool calls of one model turn (or one TOOL
 * node), F13–F19, F44: every call goes through the approval pipeline; the calls that need
 * a person are requested together; the allowed ones run at once; one rejection never
 * drops the others. The turn state is checkpointed, so a wait can resume in any process.
 *
 * The stages live beside it: deciding a new call (call-decider.ts: admission.ts, pure,
 * then the rules and automatic-approvers.ts), the questions and the reading of their
 * answers (approval-requests.ts, pure; answer-applier.ts applies them), and running a call
 * behind its write-ahead record (tool-execution.ts); turn-recorder.ts is where their audit
 * entries and events go. Calls move only by the transitions of turn-state.ts; this class
 * is the loop that drives them.
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
    @inject(TYPES.ApprovalPolicy) policy: ApprovalPolicy,
    @inject(TYPES.InteractionGateway) private readonly gateway: InteractionGateway,
    @inject(TYPES.CheckpointStore) private readonly store: ICheckpointStore,
    @inject(TYPES.AuditLog) audit: AuditLog,
    @inject(TYPES.WorkspaceRoot) workspaceRoot: string,
    @inject(TYPES.MessageBus) bus: MessageBus,
    @inject(TYPES.Clock) clock: Clock,
  ) {
    this.pins = new ToolPins(store);
    this.execution = new ToolExecution(store, clock, workspaceRoot);
    this.recorder = new TurnRecorder(tools, audit, this.pins, clock);
    this.decider = new CallDecider(tools, policy, bus, this.pins, this.recorder, clock);
    this.answers = new AnswerApplier(tools, policy, gateway, this.execution, this.recorder);
  }

  async run(turn: TurnState, context: NodeExecutionContext, options: TurnOptions): Promise<TurnProgress> {
    // Interactions whose responder is elsewhere (or deferred) are not asked again in this run.
    const elsewhere = new Set<string>();
    for (;;) {
      // Closing the process stops here: approved calls not yet run stay 'ready' in the checkpoint.
      if (context.signal.aborted && isStop(context.signal.reason)) return 'suspend';
      await this.decideNewCalls(turn, context, options);
      await this.runReadyCalls(turn, context, options);

      const awaiting = turn.calls.filter(isAwaiting);
      if (awaiting.length === 0) return 'done';
      const waiting = awaiting.filter((call) => !elsewhere.has(call.interactionId ?? ''));
      if (waiting.length === 0) return 'suspend';
      const records = await Promise.all(waiting.map((call) => this.gateway.load(call.interactionId ?? '')));
      const { settled, suspendedIds } = await this.gateway.settle(records, context);
      for (const id of suspendedIds) elsewhere.add(id);
      if (context.signal.aborted && !isStop(context.signal.reason)) {
        this.cancel(turn, settled, context, options);
        return 'cancelled';
      }
      for (const record of settled) {
        const index = turn.calls.findIndex((call) => isAwaiting(call) && call.interactionId === record.interactionId);
        const call = turn.calls[index] as AwaitingCall | undefined;
        if (call) turn.calls[index] = await this.answers.apply(call, record, context, options.nodeId);
      }
      // Nothing settled (every question waits elsewhere): the checkpoint before asking stands.
      if (settled.length > 0) {
        await failpointAfterCommit('interaction:applied', this.store);
        await context.checkpoint();
      }
    }
  }

  /** Decides each new call; those that need a person are asked together. */
  private async decideNewCalls(turn: TurnState, context: NodeExecutionContext, options: TurnOptions): Promise<void> {
    const toAsk: number[] = [];
    for (const [index, call] of turn.calls.entries()) {
      if (call.phase !== 'new') continue;
      const next = await this.decider.decide(call, context, options);
      turn.calls[index] = next;
      // Still new once decided: it waits for a person.
      if (next.phase === 'new') toAsk.push(index);
    }
    if (toAsk.length > 0) await this.requestApprovals(turn, toAsk, 'execution', context, options);
  }

  /** Opens one interaction per call; the calls learn their interaction ids before the checkpoint, so a crash never orphans one. */
  private async requestApprovals(
    turn: TurnState,
    indices: number[],
    stage: ApprovalStage,
    context: NodeExecutionContext,
    options: TurnOptions,
  ): Promise<void> {
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
    const specs = approvalSpecs(calls, stage, {
      nodeId: options.nodeId,
      timeout: context.thread.toolApproval.approvalTimeout,
      toolOf,
      ...(changes ? { changes } : {}),
    });
    await this.gateway.open(specs, context, (records) =>
      records.forEach((record, n) => {
        const index = indices[n];
        const call = calls[n];
        if (index !== undefined && call) turn.calls[index] = awaitAnswer(call, stage, record.interactionId);
      }),
    );
  }

  /** Runs every call that may run, concurrently; results and unknown outcomes that need a person are asked about together. */
  private async runReadyCalls(turn: TurnState, context: NodeExecutionContext, options: TurnOptions): Promise<void> {
    if (context.signal.aborted) return;
    const ready = indicesOf(turn, (call): call is ReadyCall => call.phase === 'ready');
    await Promise.all(
      ready.map(async (index) => {
        const call = turn.calls[index] as ReadyCall;
        turn.calls[index] = this.recorder.report(
          options.decideOnly === true
            ? finish(call, 'SUCCESS', call.finalArguments)
            : await this.execution.run(call, this.tools.find(call.name), context, options.nodeId),
          context,
          options.nodeId,
        );
      }),
    );
    for (const stage of ['result', 'recovery'] as const) {
      const unasked = indicesOf(
        turn,
        (call) => call.phase === UNASKED_PHASE[stage] && call.interactionId === undefined,
      );
      if (unasked.length > 0) await this.requestApprovals(turn, unasked, stage, context, options);
    }
    // The outcomes are in the write-ahead records: a crash before the next checkpoint replays them.
    if (ready.length > 0) context.checkpointLater();
  }

  /** The thread was cancelled while calls waited: settled waits are let go, every unfinished call ends rejected. */
  private cancel(
    turn: TurnState,
    settled: InteractionRecord[],
    context: NodeExecutionContext,
    options: TurnOptions,
  ): void {
    for (const record of settled) {
      this.gateway.release(record.interactionId, context);
      if (record.status !== 'failed') continue;
      context.emit({
        type: 'USER_INTERACTION_FAILED',
        interactionId: record.interactionId,
        nodeId: record.nodeId,
        operationType: 'TOOL_APPROVAL',
        reason: record.failureReason ?? 'cancelled',
        message: record.failureMessage ?? 'the thread was cancelled',
      });
    }
    const reason = typeof context.signal.reason === 'string' ? context.signal.reason : 'the thread was cancelled';
    for (const [index, call] of turn.calls.entries()) {
      if (call.phase !== 'done')
        turn.calls[index] = this.recorder.report(
          abandon(call, `the thread was cancelled: ${reason}`),
          context,
          options.nodeId,
        );
    }
  }
}

function indicesOf(turn: TurnState, test: (call: TurnCall) => boolean): number[] {
  return turn.calls.flatMap((call, index) => (test(call) ? [index] : []));
}
