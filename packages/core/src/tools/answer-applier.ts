import { isoTime, type Clock } from '../engine/clock.js';
import type { EmittedEvent, NodeExecutionContext } from '../engine/node-executor.js';
import { combineEffects, type Effects } from '../engine/step.js';
import type { InteractionRecord } from '../persistence/checkpoint-store.js';
import type { ApprovalPolicy } from '../policy/approval-policy.js';
import { refuseEdit } from './admission.js';
import { grantOf } from '../receipts/receipt-grant.js';
import { readAnswer } from './approval-requests.js';
import type { CallDecider, Decided } from './call-decider.js';
import type { ToolExecution } from './tool-execution.js';
import type { ToolRegistry } from './tool-registry.js';
import { scopeOf, type TurnRecorder } from './turn-recorder.js';
import { argumentsOf, describeCall, type AwaitingCall } from './turn-state.js';

/**
 * Applies a person's answer to the call that waited on it (F17–F19, F44): reads it
 * (approval, denial, an edit the rules must allow, a result or a recovery choice) and
 * returns the call's next phase with what goes with it — its audit entry, the answer
 * consumed, a remembered approval, a pin, its events — all in the step that applies it,
 * so the answer is consumed in the commit that holds its effect. A failed wait (timeout,
 * cancel) ends the call.
 */
export class AnswerApplier {
  constructor(
    private readonly tools: ToolRegistry,
    private readonly policy: ApprovalPolicy,
    private readonly execution: ToolExecution,
    private readonly recorder: TurnRecorder,
    private readonly decider: CallDecider,
    private readonly clock: Clock,
  ) {}

  async apply(
    call: AwaitingCall,
    record: InteractionRecord,
    context: NodeExecutionContext,
    nodeId: string,
  ): Promise<Decided> {
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
    const audit = [this.recorder.entry(call, context, { ...reading.audit, interactionId: record.interactionId })];
    if (reading.kind === 'failed') {
      return {
        call: reading.next,
        effects: {
          audit,
          events: [
            { type: 'USER_INTERACTION_FAILED', ...base, reason: reading.reason, message: reading.message },
            ...this.recorder.reported(reading.next, nodeId),
          ],
          durable: 'soon',
        },
      };
    }
    const { response, responder } = reading;
    const events: EmittedEvent[] = [
      {
        type: 'USER_INTERACTION_RESPONDED',
        ...base,
        input: response,
        ...(responder === undefined ? {} : { responder }),
      },
    ];
    const consumed: Effects = {
      audit,
      interactions: [{ kind: 'consume', interactionId: record.interactionId, at: isoTime(this.clock.now()) }],
      durable: 'soon',
    };
    if (reading.kind === 'refused-edit') {
      return {
        call: reading.next,
        effects: combineEffects(consumed, {
          events: [
            ...events,
            ...this.recorder.reported(reading.next, nodeId),
            { type: 'USER_INTERACTION_PROCESSED', ...base },
          ],
        }),
      };
    }
    events.push({
      type: 'TOOL_CALL_DECIDED',
      ...describeCall(reading.next, nodeId),
      decision: response.approved ? 'allow' : 'deny',
      rule: 'person',
    });
    const memory = reading.remember
      ? this.policy.memoryEntry({ toolName: call.name, arguments: argumentsOf(reading.next) }, scopeOf(context))
      : undefined;
    let next: Decided = { call: reading.next, effects: {} };
    if (reading.resolution)
      next = this.execution.resolve(reading.next, reading.resolution, response.denyReason, context);
    else if (next.call.phase === 'ready')
      next = { call: next.call, effects: { globals: await this.decider.pinOf(this.tools.find(call.name)) } };
    // The call runs on this answer: its receipt names the entry that records it, and every approver (F63).
    if (next.call.phase === 'ready' && response.approved)
      next = {
        ...next,
        call: { ...next.call, grant: grantOf(audit[0] as (typeof audit)[number], approversOf(record)) },
      };
    return {
      call: next.call,
      effects: combineEffects(consumed, next.effects, {
        ...(memory === undefined ? {} : { remember: [memory] }),
        events: [
          ...events,
          ...this.recorder.reported(next.call, nodeId),
          { type: 'USER_INTERACTION_PROCESSED', ...base },
        ],
      }),
    };
  }
}

/** Who approved the call an interaction asked about: each approval of a quorum (F51), and the answer's responder. */
function approversOf(record: InteractionRecord): string[] {
  const given = record.quorum?.approvals.map((approval) => approval.responder) ?? [];
  const responder = record.response?.responder;
  return responder === undefined ? given : [...given, responder];
}
