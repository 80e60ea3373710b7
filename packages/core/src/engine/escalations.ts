import type { AuditEntryInput } from '../audit/audit-log.js';
import type { InteractionRecord } from '../persistence/checkpoint-store.js';
import type { InteractionChange } from '../persistence/unit-of-work.js';

/** The escalation of a request, if it has one (F51). */
export function escalationOf(request: InteractionRecord['request']) {
  return request.toolApproval?.quorum?.escalation;
}

/** What escalating a call writes, and whom it is offered to. */
export interface EscalationPlan {
  change: Extract<InteractionChange, { kind: 'escalate' }>;
  audit: AuditEntryInput;
  approvers: string[];
}

/**
 * Escalation (F51): a call whose approvals still wait at its escalation time is offered to the
 * escalation approvers too. Pure: what the answer desk writes (the interaction marked escalated
 * and an audit entry, one unit; the first process to write it wins), or undefined when there
 * is nothing to escalate — the interaction no longer waits, has no escalation, was escalated,
 * or its time has not come (`now`, ms since the epoch). In one process a timer asks for it
 * (engine/deadline-timers.ts); in a deployment, a worker's `escalate` job. Whether an
 * escalation approver may approve goes by the time alone (engine/answer-plan.ts), so a late
 * timer or job never keeps them waiting.
 */
export function planEscalation(interaction: InteractionRecord | undefined, now: number): EscalationPlan | undefined {
  if (interaction === undefined || interaction.status !== 'pending') return undefined;
  const { request, interactionId } = interaction;
  const escalation = escalationOf(request);
  const details = request.toolApproval;
  if (escalation === undefined || details?.quorum === undefined || interaction.quorum?.escalatedAt !== undefined)
    return undefined;
  if (Date.parse(escalation.at) > now) return undefined;
  const given = interaction.quorum?.approvals.length ?? 0;
  return {
    change: { kind: 'escalate', interactionId, at: new Date(now).toISOString() },
    audit: {
      threadId: interaction.threadId,
      toolCallId: details.toolCallId,
      toolName: details.toolName,
      // Not allowed yet: the call still waits, now for the escalation approvers too.
      outcome: 'deny',
      decidedBy: 'escalation',
      rule: 'quorum:escalated',
      reason: `${given} of ${details.quorum.required} approvals by ${escalation.at}: offered to ${escalation.approvers.join(', ')}`,
      stage: details.stage,
      originalArguments: details.toolParameters,
      interactionId,
    },
    approvers: [...escalation.approvers],
  };
}
