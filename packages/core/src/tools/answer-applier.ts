import type { NodeExecutionContext } from '../engine/node-executor.js';
import type { InteractionGateway } from '../interaction/interaction-gateway.js';
import type { InteractionRecord } from '../persistence/checkpoint-store.js';
import type { ApprovalPolicy } from '../policy/approval-policy.js';
import { refuseEdit } from './admission.js';
import { readAnswer } from './approval-requests.js';
import type { ToolExecution } from './tool-execution.js';
import type { ToolRegistry } from './tool-registry.js';
import { scopeOf, type TurnRecorder } from './turn-recorder.js';
import { describeCall, type AwaitingCall, type TurnCall } from './turn-state.js';

/**
 * Applies a person's answer to the call that waited on it (F17–F19, F44): reads it
 * (approval, denial, an edit the rules must allow, a result or a recovery choice), audits
 * it, remembers it when asked to, and returns the call's next phase; an answer that
 * decided its call (a refused edit included) is consumed with the next checkpoint. A
 * failed wait (timeout, cancel) ends the call.
 */
export class AnswerApplier {
  constructor(
    private readonly tools: ToolRegistry,
    private readonly policy: ApprovalPolicy,
    private readonly gateway: InteractionGateway,
    private readonly execution: ToolExecution,
    private readonly recorder: TurnRecorder,
  ) {}

  async apply(
    call: AwaitingCall,
    record: InteractionRecord,
    context: NodeExecutionContext,
    nodeId: string,
  ): Promise<TurnCall> {
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
        refuseEdit(call.name, this.tools.find(call.name), edited, (args) => this.policy.decide(args, scopeOf(context))),
      automaticMemory,
    );
    if (reading.kind === 'failed') {
      context.emit({ type: 'USER_INTERACTION_FAILED', ...base, reason: reading.reason, message: reading.message });
      await this.recorder.recordAnswer(call, context, reading.audit, record.interactionId);
      return this.recorder.report(reading.next, context, nodeId);
    }
    const { response, responder } = reading;
    context.emit({
      type: 'USER_INTERACTION_RESPONDED',
      ...base,
      input: response,
      ...(responder === undefined ? {} : { responder }),
    });
    await this.recorder.recordAnswer(call, context, reading.audit, record.interactionId);
    if (reading.kind === 'refused-edit')
      return this.consumed(this.recorder.report(reading.next, context, nodeId), base, context);
    context.emit({
      type: 'TOOL_CALL_DECIDED',
      ...describeCall(reading.next, nodeId),
      decision: response.approved ? 'allow' : 'deny',
      rule: 'person',
    });
    if (reading.remember)
      await this.policy.remember({ toolName: call.name, arguments: reading.next.finalArguments }, scopeOf(context));
    let next = reading.next;
    if (reading.resolution) next = await this.execution.resolve(next, reading.resolution, response.denyReason, context);
    else if (next.phase === 'ready') await this.recorder.pinApproved(call.name);
    return this.consumed(this.recorder.report(next, context, nodeId), base, context);
  }

  /** The answer decided the call: the checkpoint that saves `call` marks it processed. */
  private consumed(
    call: TurnCall,
    base: { interactionId: string; nodeId: string; operationType: 'TOOL_APPROVAL' },
    context: NodeExecutionContext,
  ): TurnCall {
    context.answerApplied(base.interactionId);
    context.emit({ type: 'USER_INTERACTION_PROCESSED', ...base });
    return call;
  }
}
