import { ToolPins } from './tool-pins.js';
import { inject, injectable } from 'inversify';
import { ToolApprovalResponse, type ApprovalStage, type InteractionFailureReason } from '@interlock/sdk-types';
import type { AuditLog } from '../audit/audit-log.js';
import { fenceOf } from '../engine/thread-claims.js';
import { TYPES } from '../di/tokens.js';
import { toInterlockError } from '../errors/interlock-error.js';
import type { NodeExecutionContext } from '../engine/node-executor.js';
import { isStop } from '../engine/shutdown.js';
import type { InteractionGateway, InteractionSpec } from '../interaction/interaction-gateway.js';
import type { ICheckpointStore, InteractionRecord, ToolExecutionRecord, ToolExecutionStatus } from '../persistence/checkpoint-store.js';
import { hashArguments } from '../policy/canonical-arguments.js';
import { parseStrictly } from './strict-arguments.js';
import type { Clock } from '../engine/clock.js';
import { durable, failpointAfterCommit } from '../engine/durability.js';
import { failpoint } from '../engine/failpoints.js';
import type { ApprovalPolicy } from '../policy/approval-policy.js';
import type { ApprovalDecision } from '../policy/decide-approval.js';
import type { ToolApproveResult, ToolUse } from '../policy/approval-options.js';
import type { MessageBus } from '../policy/message-bus.js';
import type { Tool } from './define-tool.js';
import { toolMessage } from './tool-messages.js';
import type { ToolRegistry } from './tool-registry.js';
import type { TurnCall, TurnState } from './turn-state.js';

const PROMPTS: Record<ApprovalStage, (toolName: string) => string> = {
  execution: (toolName) => `Allow ${toolName} to run with these arguments?`,
  result: (toolName) => `Let the model see the result of ${toolName}?`,
  recovery: (toolName) =>
    `${toolName} started before the process stopped and its outcome is unknown. Did it run (done), should it run again (retry), or did it fail (fail)?`,
};

const AWAITING = { execution: 'awaiting-approval', result: 'awaiting-result', recovery: 'awaiting-recovery' } as const;

/** How a batch of calls ended in this run. */
export type TurnProgress = 'done' | 'suspend' | 'cancelled';

export interface TurnOptions {
  nodeId: string;
  /** The tools this node offers; a call to any other is NOT_FOUND. */
  allowedTools: readonly string[];
}

/**
 * Decides, asks about, runs and reports the tool calls of one model turn (or one TOOL
 * node), F13–F19, F44: every call goes through the approval pipeline; the calls that need
 * a person are requested together; the allowed ones run at once; one rejection never
 * drops the others. The turn state is checkpointed, so a wait can resume in any process.
 */
@injectable()
export class ToolCallPipeline {
  private readonly pins: ToolPins;

  constructor(
    @inject(TYPES.ToolRegistry) private readonly tools: ToolRegistry,
    @inject(TYPES.ApprovalPolicy) private readonly policy: ApprovalPolicy,
    @inject(TYPES.InteractionGateway) private readonly gateway: InteractionGateway,
    @inject(TYPES.CheckpointStore) private readonly store: ICheckpointStore,
    @inject(TYPES.AuditLog) private readonly audit: AuditLog,
    @inject(TYPES.WorkspaceRoot) private readonly workspaceRoot: string,
    @inject(TYPES.MessageBus) private readonly bus: MessageBus,
    @inject(TYPES.Clock) private readonly clock: Clock,
  ) {
    this.pins = new ToolPins(store);
  }

  async run(turn: TurnState, context: NodeExecutionContext, options: TurnOptions): Promise<TurnProgress> {
    // Interactions whose responder is elsewhere (or deferred) are not asked again in this run.
    const elsewhere = new Set<string>();
    for (;;) {
      // Closing the process stops here: approved calls not yet run stay 'ready' in the checkpoint.
      if (context.signal.aborted && isStop(context.signal.reason)) return 'suspend';
      const toAsk = await this.decideNewCalls(turn, context, options);
      if (toAsk.length > 0) await this.requestApprovals(toAsk, 'execution', context, options);
      await this.runReadyCalls(turn, context, options);

      const awaiting = turn.calls.filter((call) => call.phase.startsWith('awaiting-'));
      if (awaiting.length === 0) return 'done';
      const waiting = awaiting.filter((call) => !elsewhere.has(call.interactionId ?? ''));
      if (waiting.length === 0) return 'suspend';
      const records = await Promise.all(waiting.map((call) => this.gateway.load(call.interactionId ?? '')));
      const { settled, suspendedIds } = await this.gateway.settle(records, context);
      for (const id of suspendedIds) elsewhere.add(id);
      if (context.signal.aborted && !isStop(context.signal.reason)) {
        for (const record of settled) {
          this.gateway.release(record.interactionId, context);
          if (record.status === 'failed') {
            context.emit({
              type: 'USER_INTERACTION_FAILED',
              interactionId: record.interactionId,
              nodeId: record.nodeId,
              operationType: 'TOOL_APPROVAL',
              reason: record.failureReason ?? 'cancelled',
              message: record.failureMessage ?? 'the thread was cancelled',
            });
          }
        }
        this.closeCancelled(turn, context, options);
        return 'cancelled';
      }
      for (const record of settled) {
        const call = waiting.find((candidate) => candidate.interactionId === record.interactionId);
        if (call) await this.applyAnswer(call, record, context, options);
      }
      // Nothing settled (every question waits elsewhere): the checkpoint before asking stands.
      if (settled.length > 0) await context.checkpoint();
    }
  }

  /** Runs the pipeline on each new call; returns the calls that need a person. */
  private async decideNewCalls(turn: TurnState, context: NodeExecutionContext, options: TurnOptions): Promise<TurnCall[]> {
    const toAsk: TurnCall[] = [];
    for (const call of turn.calls.filter((candidate) => candidate.phase === 'new')) {
      context.emit({ type: 'TOOL_CALL_REQUESTED', ...this.describe(call, options) });
      if (!options.allowedTools.includes(call.name)) {
        const offered = options.allowedTools.join(', ') || 'none';
        await this.record(call, context, { outcome: 'deny', decidedBy: 'tool:not-offered', rule: 'tool:not-offered', reason: `not among this node's tools (${offered})`, stage: 'execution' });
        this.finish(call, 'NOT_FOUND', `No tool named "${call.name}" is available here. Available tools: ${offered}.`, context, options);
        continue;
      }
      const tool = this.tools.find(call.name);
      if (tool && call.argumentsError !== undefined) {
        this.finish(call, 'ERROR', `The arguments were not a usable JSON object (${call.argumentsError}). Call ${call.name} again with arguments that match its schema.`, context, options);
        continue;
      }
      if (tool) {
        const parsed = tool.parameters.safeParse(call.arguments);
        if (!parsed.success) {
          const problems = parsed.error.issues.map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`).join('; ');
          this.finish(call, 'ERROR', `The arguments do not match the schema of ${tool.name}: ${problems}. Fix them and call again.`, context, options);
          continue;
        }
        call.finalArguments = parsed.data as Record<string, unknown>;
      }
      const proposed = { toolName: call.name, arguments: call.finalArguments };
      const scope = this.scopeOf(context);
      const remembered = tool?.riskLevel === 'MEDIUM' && (await this.policy.isRemembered(proposed, scope));
      const decision = await this.pins.checkDecision(tool, this.policy.decide(proposed, { ...scope, autoApprovedTools: context.thread.toolApproval.autoApprovedTools }, remembered));
      call.rule = decision.rule;
      call.rememberable = decision.rememberable;
      context.emit({ type: 'TOOL_CALL_DECIDED', ...this.describe(call, options), decision: decision.outcome, rule: decision.rule });
      const responder = this.automaticResponder();
      if (decision.outcome === 'ask' && responder && tool) {
        await this.askCallback(call, tool, decision, responder, context, options);
        continue;
      }
      await this.applyDecision(call, decision, context, options, toAsk);
    }
    return toAsk;
  }

  private async applyDecision(call: TurnCall, decision: ApprovalDecision, context: NodeExecutionContext, options: TurnOptions, toAsk: TurnCall[]): Promise<void> {
    if (decision.outcome === 'ask') {
      toAsk.push(call);
      return;
    }
    await this.record(call, context, { outcome: decision.outcome, decidedBy: decision.rule, rule: decision.rule, reason: decision.reason, stage: 'execution' });
    if (decision.outcome === 'allow') {
      await this.pinApproved(call.name);
      call.phase = 'ready';
      call.approvedBy = decision.rule;
    } else if (decision.notFound) {
      this.finish(call, 'NOT_FOUND', `No tool named "${call.name}". Available tools: ${this.tools.names().join(', ') || 'none'}.`, context, options);
    } else {
      this.finish(call, 'EXECUTION_REJECTED', `denied by policy (${decision.rule}): ${decision.reason}`, context, options);
    }
  }

  /** The first approval of a pinned tool pins its definition; an approval of a changed one moves the pin. */
  private async pinApproved(toolName: string): Promise<void> {
    const tool = this.tools.find(toolName);
    if (tool) await this.pins.pinApproved(tool, this.now());
  }

  /** `onToolApprove`, else a `toolApproval` handler on the message bus, else nobody (a person is asked). */
  private automaticResponder(): { name: string; ask: (toolUse: ToolUse) => ToolApproveResult | Promise<ToolApproveResult> } | undefined {
    const callback = this.policy.options.onToolApprove;
    if (callback) return { name: 'callback:onToolApprove', ask: callback };
    if (this.bus.has('toolApproval')) {
      return { name: 'bus:toolApproval', ask: (toolUse) => this.bus.request('toolApproval', { toolUse, category: toolUse.category, sessionId: toolUse.sessionId }) };
    }
    return undefined;
  }

  /** The callback (or bus handler) decides when the pipeline did not (F26); errors and bad answers deny (F28). */
  private async askCallback(
    call: TurnCall,
    tool: Tool,
    decision: ApprovalDecision,
    responder: { name: string; ask: (toolUse: ToolUse) => ToolApproveResult | Promise<ToolApproveResult> },
    context: NodeExecutionContext,
    options: TurnOptions,
  ): Promise<void> {
    let approved = false;
    let reason = `${responder.name} said no`;
    try {
      const answer = await withTimeout(context.thread.toolApproval.approvalTimeout, responder.name, responder.ask({
        toolName: tool.name,
        arguments: call.finalArguments,
        category: tool.category,
        riskLevel: tool.riskLevel,
        rule: decision.rule,
        threadId: context.thread.threadId,
        sessionId: context.thread.session.sessionId,
        channel: context.thread.channel,
      }));
      if (typeof answer === 'boolean') approved = answer;
      else if (answer && typeof answer === 'object') {
        approved = answer.approved === true;
        if (answer.denyReason) reason = answer.denyReason;
        if (approved && answer.params) {
          const edited = parseStrictly(tool.parameters, answer.params);
          const again = edited.ok ? this.policy.decide({ toolName: tool.name, arguments: edited.value }, this.scopeOf(context)) : undefined;
          if (!edited.ok || again?.outcome === 'deny') {
            approved = false;
            reason = `${responder.name} returned params that are invalid or denied${edited.ok ? '' : ` (${edited.problem})`}`;
          } else {
            call.finalArguments = edited.value;
          }
        }
      } else {
        reason = `${responder.name} returned neither a boolean nor a decision`;
      }
    } catch (error) {
      reason = `${responder.name} failed: ${toInterlockError(error).message}`;
    }
    await this.record(call, context, {
      outcome: approved ? 'allow' : 'deny',
      decidedBy: responder.name,
      rule: decision.rule,
      reason: approved ? `${responder.name} approved` : reason,
      stage: 'execution',
    });
    context.emit({ type: 'TOOL_CALL_DECIDED', ...this.describe(call, options), decision: approved ? 'allow' : 'deny', rule: responder.name });
    if (approved) {
      await this.pinApproved(call.name);
      call.phase = 'ready';
      call.approvedBy = responder.name;
    } else {
      this.finish(call, 'EXECUTION_REJECTED', reason, context, options);
    }
  }

  private async requestApprovals(calls: TurnCall[], stage: ApprovalStage, context: NodeExecutionContext, options: TurnOptions): Promise<void> {
    const batchId = calls[0]?.id ?? '';
    const changes = await Promise.all(calls.map(async (call) => {
      const tool = this.tools.find(call.name);
      return stage === 'execution' && tool ? this.pins.changeOf(tool) : undefined;
    }));
    const specs = calls.map((call, index): InteractionSpec => {
      const tool = this.tools.find(call.name);
      const definitionChange = changes[index];
      return {
        nodeId: options.nodeId,
        operationType: 'TOOL_APPROVAL',
        prompt: definitionChange ? `The definition of ${call.name} changed since it was approved (see the diff). ${PROMPTS[stage](call.name)}` : PROMPTS[stage](call.name),
        timeout: context.thread.toolApproval.approvalTimeout,
        metadata: {},
        toolApproval: {
          toolCallId: call.id,
          toolName: call.name,
          toolDescription: tool?.description ?? '',
          toolParameters: call.finalArguments,
          ...(tool ? { parametersSchema: tool.jsonSchema } : {}),
          category: tool?.category ?? 'command',
          riskLevel: tool?.riskLevel ?? 'HIGH',
          rule: call.rule ?? 'ask',
          stage,
          ...(stage === 'result' ? { result: call.result } : {}),
          rememberable: stage === 'execution' && call.rememberable === true,
          ...(definitionChange ? { definitionChange } : {}),
          batch: { id: `${options.nodeId}:${batchId}`, index, size: calls.length },
        },
      };
    });
    // The calls learn their interaction ids before the checkpoint, so a crash never orphans one.
    await this.gateway.open(specs, context, (records) =>
      records.forEach((record, index) => {
        const call = calls[index];
        if (!call) return;
        call.interactionId = record.interactionId;
        call.phase = AWAITING[stage];
      }),
    );
  }

  /** Runs every call that may run, concurrently; results that need approval are asked about together. */
  private async runReadyCalls(turn: TurnState, context: NodeExecutionContext, options: TurnOptions): Promise<void> {
    const ready = turn.calls.filter((call) => call.phase === 'ready');
    if (ready.length === 0 || context.signal.aborted) return;
    await Promise.all(ready.map((call) => this.execute(call, context, options)));
    const needResultApproval = ready.filter((call) => call.phase === 'awaiting-result' && call.interactionId === undefined);
    if (needResultApproval.length > 0) await this.requestApprovals(needResultApproval, 'result', context, options);
    const unknown = ready.filter((call) => call.phase === 'awaiting-recovery' && call.interactionId === undefined);
    if (unknown.length > 0) await this.requestApprovals(unknown, 'recovery', context, options);
    // The outcomes are in the write-ahead records: a crash before the next checkpoint replays them.
    context.checkpointLater();
  }

  private async execute(call: TurnCall, context: NodeExecutionContext, options: TurnOptions): Promise<void> {
    const tool = this.tools.find(call.name);
    if (!tool) {
      this.finish(call, 'NOT_FOUND', `No tool named "${call.name}".`, context, options);
      return;
    }
    if (!(await this.startExecution(call, tool, context, options))) return;
    context.emit({ type: 'TOOL_CALL_STARTED', ...this.describe(call, options) });
    try {
      const result = await tool.execute(tool.parameters.parse(call.finalArguments), {
        threadId: context.thread.threadId,
        nodeId: options.nodeId,
        toolCallId: call.id,
        signal: context.signal,
        workspaceRoot: this.workspaceRoot,
        ...(call.userInstruction === undefined && call.responder === undefined
          ? {}
          : {
              approval: {
                ...(call.userInstruction === undefined ? {} : { userInstruction: call.userInstruction }),
                ...(call.responder === undefined ? {} : { responder: call.responder }),
              },
            }),
      });
      await failpointAfterCommit('tool:effect-done', this.store);
      await this.store.markToolFinished(
        context.thread.threadId,
        call.id,
        { status: 'SUCCESS', output: result, content: toolMessage('SUCCESS', result) },
        this.now(),
        fenceOf(context.thread),
      );
      if (tool.requireResultApproval) {
        call.result = result;
        delete call.interactionId;
        call.phase = 'awaiting-result';
        return;
      }
      this.finish(call, 'SUCCESS', result, context, options);
    } catch (error) {
      const failure = toInterlockError(error);
      // The claim was taken meanwhile (this process froze past it): write nothing more.
      if (failure.code === 'STORE_CONFLICT') throw failure;
      const message = failure.message;
      // A tool that did not answer in time (an MCP server that hangs) ends as TIMEOUT, anything else as ERROR.
      const status = failure.code === 'TOOL_TIMEOUT' ? 'TIMEOUT' : 'ERROR';
      const detail = status === 'TIMEOUT' ? failure : message;
      await this.store.markToolFinished(context.thread.threadId, call.id, { status, content: toolMessage(status, detail) }, this.now(), fenceOf(context.thread));
      this.finish(call, status, detail, context, options);
    }
  }

  /**
   * The write-ahead record of a call (F40): its approval is stored bound to the hash of the
   * exact arguments, then `started` only if that hash matches. A call found `finished` is
   * never run again; one found `started` (the process died while it ran) is run again only
   * if its tool is idempotent, otherwise a person decides what happened. Returns whether the
   * tool may run now.
   */
  private async startExecution(call: TurnCall, tool: Tool, context: NodeExecutionContext, options: TurnOptions): Promise<boolean> {
    const { threadId } = context.thread;
    const fence = fenceOf(context.thread);
    const argumentsHash = hashArguments(call.finalArguments);
    await this.store.recordToolApproval(
      {
      threadId,
      toolCallId: call.id,
      toolName: tool.name,
      argumentsHash,
      arguments: call.finalArguments,
      approvedBy: call.approvedBy ?? call.rule ?? 'unknown',
      idempotent: tool.idempotent === true,
      createdAt: this.now(),
      },
      fence,
    );
    await failpointAfterCommit('tool:approved', this.store);
    const from: ToolExecutionStatus[] = tool.idempotent ? ['approved', 'started'] : ['approved'];
    if (await this.store.markToolStarted(threadId, call.id, argumentsHash, from, this.now(), fence)) {
      // Write-ahead: the approval and `started` are durable before the side effect.
      await durable(this.store);
      failpoint('tool:started');
      return true;
    }
    // It did not start: it finished before (its outcome stands) or died while running.
    let execution = await this.store.getToolExecution(threadId, call.id);
    // Started and unfinished: this run's claim was taken from a process that died or froze
    // past its lease while the call ran. Unknown, unless that process's outcome landed first.
    if (execution?.status === 'started' && !(await this.store.setToolExecutionStatus(threadId, call.id, ['started'], 'unknown', this.now(), fence))) {
      execution = await this.store.getToolExecution(threadId, call.id);
    }
    if (execution?.status === 'finished' && execution.outcome) {
      this.replayOutcome(call, tool, execution.outcome, context, options);
      return false;
    }
    if (execution?.status === 'started') {
      context.emit({ type: 'TOOL_CALL_OUTCOME_UNKNOWN', ...this.describe(call, options) });
      call.phase = 'awaiting-recovery';
      delete call.interactionId;
      return false;
    }
    if (execution?.status === 'unknown') {
      call.phase = 'awaiting-recovery';
      delete call.interactionId;
      return false;
    }
    this.finish(call, 'ERROR', 'No stored approval matches these exact arguments, so the call was not run.', context, options);
    return false;
  }

  /** A call that finished before a crash: its stored outcome stands; it does not run again. */
  private replayOutcome(call: TurnCall, tool: Tool, outcome: NonNullable<ToolExecutionRecord['outcome']>, context: NodeExecutionContext, options: TurnOptions): void {
    if (outcome.status === 'SUCCESS' && tool.requireResultApproval) {
      call.result = outcome.output;
      delete call.interactionId;
      call.phase = 'awaiting-result';
      return;
    }
    this.finish(call, outcome.status, outcome.status === 'SUCCESS' ? outcome.output : outcome.content.replace(/^\[[A-Z_]+\] /, ''), context, options);
  }

  private now(): string {
    return new Date(this.clock.now()).toISOString();
  }

  /** Why arguments a person edited may not run (they do not fit the tool's schema, or a rule denies them), or undefined. */
  private refuseEdit(call: TurnCall, edited: Record<string, unknown>, context: NodeExecutionContext): string | undefined {
    const tool = this.tools.find(call.name);
    if (!tool) return `the edited arguments were refused: tool ${call.name} is not available here`;
    const parsed = parseStrictly(tool.parameters, edited);
    if (!parsed.ok) return `the edited arguments were refused: they do not match the schema of ${tool.name} (${parsed.problem})`;
    const decision = this.policy.decide({ toolName: tool.name, arguments: parsed.value }, this.scopeOf(context));
    return decision.outcome === 'deny' ? `the edited arguments were refused (${decision.rule}): ${decision.reason}` : undefined;
  }

  /** Applies a person's answer (or the failure of the wait) to its call. */
  private async applyAnswer(call: TurnCall, record: InteractionRecord, context: NodeExecutionContext, options: TurnOptions): Promise<void> {
    this.gateway.release(record.interactionId, context);
    const stage: ApprovalStage = call.phase === 'awaiting-result' ? 'result' : call.phase === 'awaiting-recovery' ? 'recovery' : 'execution';
    const base = { interactionId: record.interactionId, nodeId: record.nodeId, operationType: 'TOOL_APPROVAL' as const };
    if (record.status === 'failed') {
      const reason: InteractionFailureReason = record.failureReason ?? 'handler_error';
      const message = record.failureMessage ?? reason;
      context.emit({ type: 'USER_INTERACTION_FAILED', ...base, reason, message });
      await this.record(call, context, { outcome: 'deny', decidedBy: `interaction:${reason}`, rule: call.rule ?? 'ask', reason: message, stage });
      if (stage === 'result') this.finish(call, 'RESULT_REJECTED', `no approval (${reason})`, context, options);
      else if (reason === 'timeout') this.finish(call, 'TIMEOUT', message, context, options);
      else this.finish(call, 'EXECUTION_REJECTED', `no approval (${reason}): ${message}`, context, options);
      return;
    }
    const response = ToolApprovalResponse.parse(record.response?.input);
    const responder = record.response?.responder;
    context.emit({ type: 'USER_INTERACTION_RESPONDED', ...base, input: response, ...(responder === undefined ? {} : { responder }) });
    const refusedEdit = response.approved && response.editedParameters ? this.refuseEdit(call, response.editedParameters, context) : undefined;
    if (refusedEdit !== undefined) {
      // Checked again where the tool lives: an answer stored by another process (a
      // deployment's inbox, which has not the tool) never runs arguments the tool or the rules refuse.
      await this.record(call, context, { outcome: 'deny', decidedBy: 'person', rule: 'edit:refused', reason: refusedEdit, stage });
      this.finish(call, 'EXECUTION_REJECTED', refusedEdit, context, options);
      return;
    }
    if (response.approved && response.editedParameters) call.finalArguments = response.editedParameters;
    if (response.userInstruction) call.userInstruction = response.userInstruction;
    if (responder !== undefined) call.responder = responder;
    await this.record(call, context, {
      outcome: response.approved ? 'allow' : 'deny',
      decidedBy: 'person',
      rule: call.rule ?? 'ask',
      reason: response.approved ? 'approved by a person' : (response.denyReason ?? 'rejected by a person'),
      stage,
      ...(responder === undefined ? {} : { responder }),
      ...(response.editedParameters && response.approved ? { editedArguments: response.editedParameters } : {}),
    });
    context.emit({ type: 'TOOL_CALL_DECIDED', ...this.describe(call, options), decision: response.approved ? 'allow' : 'deny', rule: 'person' });
    // Seed 003: an approved MEDIUM call is remembered for the window, unless sessionMemory is `explicit`.
    const remember = response.remember === true || (this.policy.options.sessionMemory === 'automatic' && stage === 'execution');
    if (response.approved && remember && call.rememberable) {
      await this.policy.remember({ toolName: call.name, arguments: call.finalArguments }, this.scopeOf(context));
    }
    if (stage === 'recovery') {
      await this.resolveUnknown(call, response, context, options);
    } else if (stage === 'result') {
      if (response.approved) this.finish(call, 'SUCCESS', call.result, context, options);
      else this.finish(call, 'RESULT_REJECTED', response.denyReason ?? '', context, options);
      delete call.result;
    } else if (response.approved) {
      await this.pinApproved(call.name);
      call.phase = 'ready';
      call.approvedBy = responder === undefined ? 'person' : `person:${responder}`;
      delete call.interactionId;
    } else {
      this.finish(call, 'EXECUTION_REJECTED', `the user rejected it${response.denyReason ? `: ${response.denyReason}` : ''}`, context, options);
    }
    await this.store.markProcessed(record.interactionId, fenceOf(context.thread));
    context.emit({ type: 'USER_INTERACTION_PROCESSED', ...base });
  }

  /** A person said what became of a call whose outcome was unknown: done, retry, or fail. */
  private async resolveUnknown(call: TurnCall, response: ToolApprovalResponse, context: NodeExecutionContext, options: TurnOptions): Promise<void> {
    const { threadId } = context.thread;
    const resolution = response.resolution ?? (response.approved ? 'retry' : 'fail');
    delete call.interactionId;
    if (resolution === 'retry') {
      await this.store.setToolExecutionStatus(threadId, call.id, ['unknown'], 'approved', this.now(), fenceOf(context.thread));
      call.phase = 'ready';
      return;
    }
    const status = resolution === 'done' ? 'SUCCESS' : 'ERROR';
    const detail = resolution === 'done' ? 'A person confirmed the call ran; its result was lost in a restart.' : `The call's outcome is unknown and a person marked it failed${response.denyReason ? `: ${response.denyReason}` : ''}.`;
    await this.store.markToolFinished(threadId, call.id, { status, content: toolMessage(status, detail) }, this.now(), fenceOf(context.thread));
    this.finish(call, status, detail, context, options);
  }

  private closeCancelled(turn: TurnState, context: NodeExecutionContext, options: TurnOptions): void {
    const reason = typeof context.signal.reason === 'string' ? context.signal.reason : 'the thread was cancelled';
    for (const call of turn.calls.filter((candidate) => candidate.phase !== 'done')) {
      this.finish(call, 'EXECUTION_REJECTED', `the thread was cancelled: ${reason}`, context, options);
    }
  }

  private finish(call: TurnCall, status: NonNullable<TurnCall['status']>, detail: unknown, context: NodeExecutionContext, options: TurnOptions): void {
    call.phase = 'done';
    call.status = status;
    call.content = toolMessage(status, detail);
    if (status === 'SUCCESS') {
      call.output = detail;
      context.emit({ type: 'TOOL_CALL_COMPLETED', ...this.describe(call, options), status, result: detail });
    } else {
      context.emit({ type: 'TOOL_CALL_FAILED', ...this.describe(call, options), status, message: call.content });
    }
  }

  private async record(
    call: TurnCall,
    context: NodeExecutionContext,
    entry: {
      outcome: 'allow' | 'deny';
      decidedBy: string;
      rule: string;
      reason: string;
      stage: ApprovalStage;
      responder?: string;
      editedArguments?: Record<string, unknown>;
    },
  ): Promise<void> {
    const tool = this.tools.find(call.name);
    await this.audit.append(
      { threadId: context.thread.threadId, toolCallId: call.id, toolName: call.name, originalArguments: call.arguments, ...entry, ...(tool?.pinned ? { toolDefinitionHash: tool.definitionHash } : {}) },
      fenceOf(context.thread),
    );
  }

  private describe(call: TurnCall, options: TurnOptions) {
    return { nodeId: options.nodeId, toolCallId: call.id, toolName: call.name, arguments: call.finalArguments };
  }

  /** Session memory is keyed channel:chatId; a thread without a chat id is its own session. */
  private scopeOf(context: NodeExecutionContext) {
    return { channel: context.thread.channel, chatId: context.thread.session.chatId ?? context.thread.session.sessionId };
  }
}

/** Resolves like `promise`, or rejects after `timeoutMs` (0 waits forever); the timer never outlives it. */
async function withTimeout<T>(timeoutMs: number, name: string, promise: T | Promise<T>): Promise<T> {
  if (timeoutMs <= 0) return promise;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${name} did not answer within ${timeoutMs} ms`)), timeoutMs);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
