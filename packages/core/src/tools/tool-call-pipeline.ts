import { inject, injectable } from 'inversify';
import type { ApprovalStage } from '@interlock/sdk-types';
import type { AuditLog } from '../audit/audit-log.js';
import { TYPES } from '../di/tokens.js';
import type { Clock } from '../engine/clock.js';
import { failpointAfterCommit } from '../engine/durability.js';
import type { NodeExecutionContext } from '../engine/node-executor.js';
import { isStop } from '../engine/shutdown.js';
import { fenceOf } from '../engine/thread-claims.js';
import type { InteractionGateway } from '../interaction/interaction-gateway.js';
import type { ICheckpointStore, InteractionRecord } from '../persistence/checkpoint-store.js';
import type { ApprovalPolicy } from '../policy/approval-policy.js';
import type { MessageBus } from '../policy/message-bus.js';
import { admit, refuseEdit, ruling } from './admission.js';
import { approvalSpecs, readAnswer, type AuditDraft } from './approval-requests.js';
import { askAutomatically, automaticApprover, toolUseOf, type AutomaticApprover } from './automatic-approvers.js';
import type { Tool } from './define-tool.js';
import { ToolExecution } from './tool-execution.js';
import { ToolPins } from './tool-pins.js';
import type { ToolRegistry } from './tool-registry.js';
import {
  abandon,
  approve,
  awaitAnswer,
  describeCall,
  finish,
  isAwaiting,
  type AwaitingCall,
  type NewCall,
  type ReadyCall,
  type TurnCall,
  type TurnState,
} from './turn-state.js';

/** How a batch of calls ended in this run. */
export type TurnProgress = 'done' | 'suspend' | 'cancelled';

export interface TurnOptions {
  nodeId: string;
  /** The tools this node offers; a call to any other is NOT_FOUND. */
  allowedTools: readonly string[];
}

const UNASKED_PHASE = { result: 'awaiting-result', recovery: 'awaiting-recovery' } as const;

/**
 * Decides, asks about, runs and reports the tool calls of one model turn (or one TOOL
 * node), F13–F19, F44: every call goes through the approval pipeline; the calls that need
 * a person are requested together; the allowed ones run at once; one rejection never
 * drops the others. The turn state is checkpointed, so a wait can resume in any process.
 *
 * The stages live beside it: admission (admission.ts, pure), the automatic approvers
 * (automatic-approvers.ts), the questions and the reading of their answers
 * (approval-requests.ts, pure), and running a call behind its write-ahead record
 * (tool-execution.ts). Calls move only by the transitions of turn-state.ts; this class
 * drives them and does the audit, the events and the session memory.
 */
@injectable()
export class ToolCallPipeline {
  private readonly pins: ToolPins;
  private readonly execution: ToolExecution;

  constructor(
    @inject(TYPES.ToolRegistry) private readonly tools: ToolRegistry,
    @inject(TYPES.ApprovalPolicy) private readonly policy: ApprovalPolicy,
    @inject(TYPES.InteractionGateway) private readonly gateway: InteractionGateway,
    @inject(TYPES.CheckpointStore) private readonly store: ICheckpointStore,
    @inject(TYPES.AuditLog) private readonly audit: AuditLog,
    @inject(TYPES.WorkspaceRoot) workspaceRoot: string,
    @inject(TYPES.MessageBus) private readonly bus: MessageBus,
    @inject(TYPES.Clock) private readonly clock: Clock,
  ) {
    this.pins = new ToolPins(store);
    this.execution = new ToolExecution(store, clock, workspaceRoot);
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
        if (index >= 0) await this.applyAnswer(turn, index, record, context, options);
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
      const next = await this.decide(call, context, options);
      turn.calls[index] = next;
      // Still new once decided: it waits for a person.
      if (next.phase === 'new') toAsk.push(index);
    }
    if (toAsk.length > 0) await this.requestApprovals(turn, toAsk, 'execution', context, options);
  }

  /** Admission, then the rules, then an automatic approver when the rules say ask. */
  private async decide(call: NewCall, context: NodeExecutionContext, options: TurnOptions): Promise<TurnCall> {
    context.emit({ type: 'TOOL_CALL_REQUESTED', ...describeCall(call, options.nodeId) });
    const tool = this.tools.find(call.name);
    const admission = admit(call, tool, options.allowedTools);
    if (admission.kind === 'refused') {
      if (admission.audited)
        await this.record(call, context, {
          outcome: 'deny',
          decidedBy: admission.audited.rule,
          ...admission.audited,
          stage: 'execution',
        });
      return this.report(finish(call, admission.status, admission.message), context, options);
    }
    const proposed = { toolName: call.name, arguments: admission.finalArguments };
    const scope = this.scopeOf(context);
    const remembered = tool?.riskLevel === 'MEDIUM' && (await this.policy.isRemembered(proposed, scope));
    const autoApprovedTools = context.thread.toolApproval.autoApprovedTools;
    const decision = await this.pins.checkDecision(
      tool,
      this.policy.decide(proposed, { ...scope, autoApprovedTools }, remembered),
    );
    const decided: NewCall = {
      ...call,
      finalArguments: admission.finalArguments,
      rule: decision.rule,
      rememberable: decision.rememberable,
    };
    context.emit({
      type: 'TOOL_CALL_DECIDED',
      ...describeCall(decided, options.nodeId),
      decision: decision.outcome,
      rule: decision.rule,
    });
    if (decision.outcome === 'ask') {
      const approver = automaticApprover(this.policy, this.bus);
      return approver && tool ? this.askApprover(decided, tool, approver, context, options) : decided;
    }
    await this.record(decided, context, {
      outcome: decision.outcome,
      decidedBy: decision.rule,
      rule: decision.rule,
      reason: decision.reason,
      stage: 'execution',
    });
    const verdict = ruling(decided, decision, this.tools.names());
    if (!verdict.runs) return this.report(finish(decided, verdict.status, verdict.message), context, options);
    await this.pinApproved(call.name);
    return approve(decided, decision.rule);
  }

  /** The callback (or bus handler) decides when the rules did not (F26); errors and bad answers deny (F28). */
  private async askApprover(
    call: NewCall,
    tool: Tool,
    approver: AutomaticApprover,
    context: NodeExecutionContext,
    options: TurnOptions,
  ): Promise<TurnCall> {
    const { thread } = context;
    const rule = call.rule ?? 'ask';
    const verdict = await askAutomatically(approver, toolUseOf(call.finalArguments, tool, rule, thread), tool, {
      timeoutMs: thread.toolApproval.approvalTimeout,
      clock: this.clock,
      denies: (edited) =>
        this.policy.decide({ toolName: tool.name, arguments: edited }, this.scopeOf(context)).outcome === 'deny',
    });
    const reason = verdict.approved ? `${approver.name} approved` : verdict.reason;
    await this.record(call, context, {
      outcome: verdict.approved ? 'allow' : 'deny',
      decidedBy: approver.name,
      rule,
      reason,
      stage: 'execution',
    });
    const next = verdict.approved ? { ...call, finalArguments: verdict.finalArguments } : call;
    context.emit({
      type: 'TOOL_CALL_DECIDED',
      ...describeCall(next, options.nodeId),
      decision: verdict.approved ? 'allow' : 'deny',
      rule: approver.name,
    });
    if (!verdict.approved) return this.report(finish(call, 'EXECUTION_REJECTED', reason), context, options);
    await this.pinApproved(call.name);
    return approve(next, approver.name);
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
        turn.calls[index] = this.report(
          await this.execution.run(call, this.tools.find(call.name), context, options.nodeId),
          context,
          options,
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

  /** Applies a person's answer (or the failure of the wait) to its call. */
  private async applyAnswer(
    turn: TurnState,
    index: number,
    record: InteractionRecord,
    context: NodeExecutionContext,
    options: TurnOptions,
  ): Promise<void> {
    const call = turn.calls[index] as AwaitingCall;
    this.gateway.release(record.interactionId, context);
    const base = {
      interactionId: record.interactionId,
      nodeId: record.nodeId,
      operationType: 'TOOL_APPROVAL' as const,
    };
    const automaticMemory = this.policy.options.sessionMemory === 'automatic';
    const reading = readAnswer(
      call,
      record,
      (edited) =>
        refuseEdit(call.name, this.tools.find(call.name), edited, (args) =>
          this.policy.decide(args, this.scopeOf(context)),
        ),
      automaticMemory,
    );
    if (reading.kind === 'failed') {
      context.emit({ type: 'USER_INTERACTION_FAILED', ...base, reason: reading.reason, message: reading.message });
      await this.record(call, context, reading.audit);
      turn.calls[index] = this.report(reading.next, context, options);
      return;
    }
    const { response, responder } = reading;
    context.emit({
      type: 'USER_INTERACTION_RESPONDED',
      ...base,
      input: response,
      ...(responder === undefined ? {} : { responder }),
    });
    await this.record(call, context, reading.audit);
    if (reading.kind === 'refused-edit') {
      turn.calls[index] = this.report(reading.next, context, options);
      return;
    }
    context.emit({
      type: 'TOOL_CALL_DECIDED',
      ...describeCall(reading.next, options.nodeId),
      decision: response.approved ? 'allow' : 'deny',
      rule: 'person',
    });
    if (reading.remember)
      await this.policy.remember(
        { toolName: call.name, arguments: reading.next.finalArguments },
        this.scopeOf(context),
      );
    let next = reading.next;
    if (reading.resolution) next = await this.execution.resolve(next, reading.resolution, response.denyReason, context);
    else if (next.phase === 'ready') await this.pinApproved(call.name);
    turn.calls[index] = this.report(next, context, options);
    context.answerApplied(record.interactionId);
    context.emit({ type: 'USER_INTERACTION_PROCESSED', ...base });
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
        turn.calls[index] = this.report(abandon(call, `the thread was cancelled: ${reason}`), context, options);
    }
  }

  /** Announces a call that just finished (COMPLETED or FAILED); any other call passes through. */
  private report(call: TurnCall, context: NodeExecutionContext, options: TurnOptions): TurnCall {
    if (call.phase !== 'done') return call;
    const described = describeCall(call, options.nodeId);
    if (call.status === 'SUCCESS')
      context.emit({ type: 'TOOL_CALL_COMPLETED', ...described, status: call.status, result: call.output });
    else context.emit({ type: 'TOOL_CALL_FAILED', ...described, status: call.status, message: call.content });
    return call;
  }

  /** The first approval of a pinned tool pins its definition; an approval of a changed one moves the pin. */
  private async pinApproved(toolName: string): Promise<void> {
    const tool = this.tools.find(toolName);
    if (tool) await this.pins.pinApproved(tool, new Date(this.clock.now()).toISOString());
  }

  private async record(call: TurnCall, context: NodeExecutionContext, entry: AuditDraft): Promise<void> {
    const tool = this.tools.find(call.name);
    await this.audit.append(
      {
        threadId: context.thread.threadId,
        toolCallId: call.id,
        toolName: call.name,
        originalArguments: call.arguments,
        ...entry,
        ...(tool?.pinned ? { toolDefinitionHash: tool.definitionHash } : {}),
      },
      fenceOf(context.thread),
    );
  }

  /** Session memory is keyed channel:chatId; a thread without a chat id is its own session. */
  private scopeOf(context: NodeExecutionContext) {
    return {
      channel: context.thread.channel,
      chatId: context.thread.session.chatId ?? context.thread.session.sessionId,
    };
  }
}

function indicesOf(turn: TurnState, test: (call: TurnCall) => boolean): number[] {
  return turn.calls.flatMap((call, index) => (test(call) ? [index] : []));
}
