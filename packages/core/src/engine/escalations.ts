import { AuditLog } from '../audit/audit-log.js';
import type { ICheckpointStore, InteractionRecord, ThreadRecord } from '../persistence/checkpoint-store.js';
import type { Clock } from './clock.js';
import type { EmittedEvent } from './node-executor.js';

/** The escalation of a request, if it has one (F51). */
export function escalationOf(request: InteractionRecord['request']) {
  return request.toolApproval?.quorum?.escalation;
}

/**
 * Escalation (F51): a call whose approvals still wait at its escalation time is offered to the
 * escalation approvers too. Recorded on the interaction and audited in one unit of work (the
 * first process to do it wins; the others do nothing), then USER_INTERACTION_ESCALATED is
 * published. In one process a timer does it (ThreadRunner); in a deployment, a worker's
 * `escalate` job. Whether an escalation approver may approve goes by the time alone
 * (engine/quorum-intake.ts), so a late timer or job never keeps them waiting.
 */
export class Escalations {
  private readonly audit: AuditLog;

  constructor(
    private readonly store: ICheckpointStore,
    private readonly clock: Clock,
    private readonly publish: (thread: ThreadRecord, event: EmittedEvent) => void,
  ) {
    this.audit = new AuditLog(store, () => clock.now());
  }

  /** Escalates the interaction if it still waits and its time came; returns whether this call did. */
  async escalate(interactionId: string): Promise<boolean> {
    const interaction = await this.store.getInteraction(interactionId);
    if (interaction === undefined || interaction.status !== 'pending') return false;
    const { request } = interaction;
    const escalation = escalationOf(request);
    const details = request.toolApproval;
    if (escalation === undefined || details?.quorum === undefined || interaction.quorum?.escalatedAt !== undefined)
      return false;
    const now = this.clock.now();
    if (Date.parse(escalation.at) > now) return false;
    const given = interaction.quorum?.approvals.length ?? 0;
    const result = await this.store.commit({
      interactions: [{ kind: 'escalate', interactionId, at: new Date(now).toISOString() }],
      audit: [
        this.audit.draft({
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
        }),
      ],
    });
    if (result.status !== 'committed') return false;
    const thread = await this.store.getThread(interaction.threadId);
    if (thread !== undefined)
      this.publish(thread, {
        type: 'USER_INTERACTION_ESCALATED',
        interactionId,
        nodeId: interaction.nodeId,
        operationType: request.operationType,
        approvers: [...escalation.approvers],
      });
    return true;
  }
}
