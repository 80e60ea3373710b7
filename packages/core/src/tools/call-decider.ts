import { isoTime, type Clock } from '../engine/clock.js';
import type { EmittedEvent, NodeExecutionContext } from '../engine/node-executor.js';
import type { Effects } from '../engine/step.js';
import type { ApprovalPolicy } from '../policy/approval-policy.js';
import { needsQuorum, quorumOf } from '../policy/approval-quorum.js';
import type { MessageBus } from '../policy/message-bus.js';
import { grantOf } from '../receipts/receipt-grant.js';
import { admit, ruling } from './admission.js';
import { askAutomatically, automaticApprover, toolUseOf, type AutomaticApprover } from './automatic-approvers.js';
import type { Tool } from './define-tool.js';
import type { ToolPins } from './tool-pins.js';
import type { ToolRegistry } from './tool-registry.js';
import { scopeOf, type TurnRecorder } from './turn-recorder.js';
import {
  approve,
  argumentsOf,
  describeCall,
  finish,
  withArguments,
  type NewCall,
  type TurnCall,
  type TurnOptions,
} from './turn-state.js';

/** A call as decided, and what deciding it writes and says. */
export interface Decided {
  call: TurnCall;
  effects: Effects;
}

/**
 * Decides one new call (F13–F16, F26–F28): admission, then the rules (with a remembered
 * approval and the tool's pin), then an automatic approver when the rules say ask. The
 * call comes back approved, finished (refused or denied), or still new: then it waits for
 * a person. Its audit entry, pin and events are effects of the step that applies it.
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

  async decide(call: NewCall, context: NodeExecutionContext, { nodeId, allowedTools }: TurnOptions): Promise<Decided> {
    const events: EmittedEvent[] = [{ type: 'TOOL_CALL_REQUESTED', ...describeCall(call, nodeId) }];
    const tool = this.tools.find(call.name);
    const admission = admit(call, tool, allowedTools);
    if (admission.kind === 'refused') {
      const done = finish(call, admission.status, admission.message);
      const audit = admission.audited
        ? [
            this.recorder.entry(call, context, {
              outcome: 'deny',
              decidedBy: admission.audited.rule,
              ...admission.audited,
              stage: 'execution',
            }),
          ]
        : [];
      return { call: done, effects: { audit, events: [...events, ...this.recorder.reported(done, nodeId)] } };
    }
    const proposed = { toolName: call.name, arguments: admission.finalArguments };
    const scope = scopeOf(context);
    // A worker's job brings the scope's remembered approvals: no read then (issue 38).
    const remembered =
      tool?.riskLevel === 'MEDIUM' && (await this.policy.isRemembered(proposed, scope, context.run.remembered));
    const autoApprovedTools = context.thread.toolApproval.autoApprovedTools;
    const decision = await this.pins.checkDecision(
      tool,
      this.policy.decide(proposed, { ...scope, autoApprovedTools }, remembered),
    );
    const decided: NewCall = {
      ...withArguments(call, admission.finalArguments),
      rule: decision.rule,
      rememberable: decision.rememberable,
    };
    events.push({
      type: 'TOOL_CALL_DECIDED',
      ...describeCall(decided, nodeId),
      decision: decision.outcome,
      rule: decision.rule,
    });
    if (decision.outcome === 'ask') {
      // A call that needs several people goes to people (F51): an automatic approver is one voice, not N.
      const people = needsQuorum(quorumOf(context.thread, this.policy.options), tool?.riskLevel ?? 'HIGH');
      const approver = people ? undefined : automaticApprover(this.policy, this.bus);
      if (approver && tool) return this.askApprover(decided, tool, approver, context, nodeId, events);
      return { call: decided, effects: { events } };
    }
    const audit = [
      this.recorder.entry(decided, context, {
        outcome: decision.outcome,
        decidedBy: decision.rule,
        rule: decision.rule,
        reason: decision.reason,
        stage: 'execution',
      }),
    ];
    const verdict = ruling(decided, decision, this.tools.names());
    if (!verdict.runs) {
      const done = finish(decided, verdict.status, verdict.message);
      return { call: done, effects: { audit, events: [...events, ...this.recorder.reported(done, nodeId)] } };
    }
    const approved = { ...approve(decided, decision.rule), grant: grantOf(audit[0] as (typeof audit)[number]) };
    return { call: approved, effects: { audit, events, globals: await this.pinOf(tool) } };
  }

  /** The callback (or bus handler) decides when the rules did not (F26); errors and bad answers deny (F28). */
  private async askApprover(
    call: NewCall,
    tool: Tool,
    approver: AutomaticApprover,
    context: NodeExecutionContext,
    nodeId: string,
    events: EmittedEvent[],
  ): Promise<Decided> {
    const { thread } = context;
    const rule = call.rule ?? 'ask';
    const verdict = await askAutomatically(approver, toolUseOf(argumentsOf(call), tool, rule, thread), tool, {
      timeoutMs: thread.toolApproval.approvalTimeout,
      clock: this.clock,
      denies: (edited) =>
        this.policy.decide({ toolName: tool.name, arguments: edited }, scopeOf(context)).outcome === 'deny',
    });
    const reason = verdict.approved ? `${approver.name} approved` : verdict.reason;
    const audit = [
      this.recorder.entry(call, context, {
        outcome: verdict.approved ? 'allow' : 'deny',
        decidedBy: approver.name,
        rule,
        reason,
        stage: 'execution',
      }),
    ];
    const next = verdict.approved ? withArguments(call, verdict.finalArguments) : call;
    events.push({
      type: 'TOOL_CALL_DECIDED',
      ...describeCall(next, nodeId),
      decision: verdict.approved ? 'allow' : 'deny',
      rule: approver.name,
    });
    if (!verdict.approved) {
      const done = finish(call, 'EXECUTION_REJECTED', reason);
      return { call: done, effects: { audit, events: [...events, ...this.recorder.reported(done, nodeId)] } };
    }
    const approved = { ...approve(next, approver.name), grant: grantOf(audit[0] as (typeof audit)[number]) };
    return { call: approved, effects: { audit, events, globals: await this.pinOf(tool) } };
  }

  /** The pin an approval of `tool` writes, if any. */
  async pinOf(tool: Tool | undefined) {
    const change = tool === undefined ? undefined : await this.pins.pinChange(tool, isoTime(this.clock.now()));
    return change === undefined ? [] : [change];
  }
}
