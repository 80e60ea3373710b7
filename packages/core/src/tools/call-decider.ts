import type { Clock } from '../engine/clock.js';
import type { NodeExecutionContext } from '../engine/node-executor.js';
import type { ApprovalPolicy } from '../policy/approval-policy.js';
import type { MessageBus } from '../policy/message-bus.js';
import { admit, ruling } from './admission.js';
import { askAutomatically, automaticApprover, toolUseOf, type AutomaticApprover } from './automatic-approvers.js';
import type { Tool } from './define-tool.js';
import type { ToolPins } from './tool-pins.js';
import type { ToolRegistry } from './tool-registry.js';
import { scopeOf, type TurnRecorder } from './turn-recorder.js';
import { approve, describeCall, finish, type NewCall, type TurnCall, type TurnOptions } from './turn-state.js';

/**
 * Decides one new call (F13–F16, F26–F28): admission, then the rules (with a remembered
 * approval and the tool's pin), then an automatic approver when the rules say ask. The
 * call comes back approved, finished (refused or denied, audited and announced), or still
 * new: then it waits for a person.
 */
export class CallDecider {
  constructor(
    private readonly tools: ToolRegistry,
    private readonly policy: ApprovalPolicy,
    private readonly bus: MessageBus,
    private readonly pins: ToolPins,
    private readonly recorder: TurnRecorder,
    private readonly clock: Clock,
  ) {}

  async decide(call: NewCall, context: NodeExecutionContext, { nodeId, allowedTools }: TurnOptions): Promise<TurnCall> {
    context.emit({ type: 'TOOL_CALL_REQUESTED', ...describeCall(call, nodeId) });
    const tool = this.tools.find(call.name);
    const admission = admit(call, tool, allowedTools);
    if (admission.kind === 'refused') {
      if (admission.audited)
        await this.recorder.record(call, context, {
          outcome: 'deny',
          decidedBy: admission.audited.rule,
          ...admission.audited,
          stage: 'execution',
        });
      return this.recorder.report(finish(call, admission.status, admission.message), context, nodeId);
    }
    const proposed = { toolName: call.name, arguments: admission.finalArguments };
    const scope = scopeOf(context);
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
      ...describeCall(decided, nodeId),
      decision: decision.outcome,
      rule: decision.rule,
    });
    if (decision.outcome === 'ask') {
      const approver = automaticApprover(this.policy, this.bus);
      return approver && tool ? this.askApprover(decided, tool, approver, context, nodeId) : decided;
    }
    await this.recorder.record(decided, context, {
      outcome: decision.outcome,
      decidedBy: decision.rule,
      rule: decision.rule,
      reason: decision.reason,
      stage: 'execution',
    });
    const verdict = ruling(decided, decision, this.tools.names());
    if (!verdict.runs) return this.recorder.report(finish(decided, verdict.status, verdict.message), context, nodeId);
    await this.recorder.pinApproved(call.name);
    return approve(decided, decision.rule);
  }

  /** The callback (or bus handler) decides when the rules did not (F26); errors and bad answers deny (F28). */
  private async askApprover(
    call: NewCall,
    tool: Tool,
    approver: AutomaticApprover,
    context: NodeExecutionContext,
    nodeId: string,
  ): Promise<TurnCall> {
    const { thread } = context;
    const rule = call.rule ?? 'ask';
    const verdict = await askAutomatically(approver, toolUseOf(call.finalArguments, tool, rule, thread), tool, {
      timeoutMs: thread.toolApproval.approvalTimeout,
      clock: this.clock,
      denies: (edited) =>
        this.policy.decide({ toolName: tool.name, arguments: edited }, scopeOf(context)).outcome === 'deny',
    });
    const reason = verdict.approved ? `${approver.name} approved` : verdict.reason;
    await this.recorder.record(call, context, {
      outcome: verdict.approved ? 'allow' : 'deny',
      decidedBy: approver.name,
      rule,
      reason,
      stage: 'execution',
    });
    const next = verdict.approved ? { ...call, finalArguments: verdict.finalArguments } : call;
    context.emit({
      type: 'TOOL_CALL_DECIDED',
      ...describeCall(next, nodeId),
      decision: verdict.approved ? 'allow' : 'deny',
      rule: approver.name,
    });
    if (!verdict.approved) return this.recorder.report(finish(call, 'EXECUTION_REJECTED', reason), context, nodeId);
    await this.recorder.pinApproved(call.name);
    return approve(next, approver.name);
  }
}
