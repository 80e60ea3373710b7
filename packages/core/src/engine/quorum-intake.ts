import type { ToolApprovalResponse } from '@interlock/sdk-types';
import { AuditLog } from '../audit/audit-log.js';
import { InterlockError } from '../errors/interlock-error.js';
import type {
  ICheckpointStore,
  InteractionRecord,
  InteractionResponseRecord,
  ThreadRecord,
} from '../persistence/checkpoint-store.js';
import type { Conflict, InteractionChange } from '../persistence/unit-of-work.js';
import { personOf } from '../policy/approval-quorum.js';
import { hashArguments } from '../policy/canonical-arguments.js';
import type { Clock } from './clock.js';

/** What counting an answer toward a call's quorum came to (F51). */
export type QuorumCount =
  /** The call needs no quorum, or the answer is a rejection (anyone may end it): an answer like any other. */
  | { kind: 'answer' }
  /** The approval is stored (or was, `repeated`); the call waits for `required - given` more. */
  | { kind: 'waiting'; given: number; required: number; repeated?: true }
  /** The last approval: `change` goes into the unit that stores the answer, and fails it should the count have moved. */
  | { kind: 'last'; change: InteractionChange }
  /** The store refused the approval: the interaction is no longer pending. */
  | { kind: 'refused'; conflict: Extract<Conflict, { kind: 'interaction-not-pending' | 'interaction-not-found' }> };

/** How often an approval is counted again after another approval of the same call came first. */
const MAX_RECOUNTS = 20;

/**
 * Counts approvals of a call that needs several approvers (F51), for `respond()`: the
 * requester never counts, each person counts once, only approvals of the same arguments add
 * up (an edit resets the others), an escalation approver counts only once the call was
 * escalated. An approval that is not the last is stored at once, audited, in one unit of work
 * (`approve-partially`, refused when another approval of the call came first: counted again);
 * the last one goes with the answer.
 */
export class QuorumIntake {
  private readonly audit: AuditLog;

  constructor(
    private readonly store: ICheckpointStore,
    private readonly clock: Clock,
  ) {
    this.audit = new AuditLog(store, () => clock.now());
  }

  /**
   * @throws InterlockError APPROVAL_NOT_ALLOWED for an approval that cannot count: the
   * requester's, one without a responder, an escalation approver's before the escalation.
   */
  async count(
    interaction: InteractionRecord,
    thread: ThreadRecord,
    response: InteractionResponseRecord,
  ): Promise<QuorumCount> {
    const details = interaction.request.toolApproval;
    const quorum = details?.quorum;
    const answer = response.input as ToolApprovalResponse;
    if (details === undefined || quorum === undefined || details.stage !== 'execution' || !answer.approved)
      return { kind: 'answer' };
    const { responder } = response;
    this.assertMayCount(responder, thread, quorum.escalation, interaction.quorum?.escalatedAt);
    const person = personOf(responder);
    const argumentsHash = hashArguments(answer.editedParameters ?? details.toolParameters);
    let current = interaction;
    for (let attempt = 1; ; attempt += 1) {
      const same = (current.quorum?.approvals ?? []).filter((given) => given.argumentsHash === argumentsHash);
      if (same.some((given) => personOf(given.responder) === person))
        return { kind: 'waiting', given: same.length, required: quorum.required, repeated: true };
      const change: InteractionChange = {
        kind: 'approve-partially',
        interactionId: interaction.interactionId,
        approval: {
          responder,
          argumentsHash,
          ...(answer.editedParameters === undefined ? {} : { editedParameters: answer.editedParameters }),
          approvedAt: response.respondedAt,
        },
        seen: same.length,
      };
      const given = same.length + 1;
      if (given >= quorum.required) return { kind: 'last', change };
      const result = await this.store.commit({
        interactions: [change],
        audit: [
          this.audit.draft({
            threadId: interaction.threadId,
            toolCallId: details.toolCallId,
            toolName: details.toolName,
            outcome: 'allow',
            decidedBy: 'person',
            rule: 'quorum:partial',
            reason: `approval ${given} of ${quorum.required}: the call runs once ${quorum.required} different approvers approve the same arguments`,
            responder,
            stage: 'execution',
            originalArguments: details.toolParameters,
            ...(answer.editedParameters === undefined ? {} : { editedArguments: answer.editedParameters }),
            interactionId: interaction.interactionId,
          }),
        ],
      });
      if (result.status === 'committed') return { kind: 'waiting', given, required: quorum.required };
      const { conflict } = result;
      if (conflict.kind === 'interaction-not-pending' || conflict.kind === 'interaction-not-found')
        return { kind: 'refused', conflict };
      if (conflict.kind !== 'quorum-changed' || attempt >= MAX_RECOUNTS)
        throw new InterlockError(
          'STORE_CONFLICT',
          `the approvals of interaction ${interaction.interactionId} kept changing while this one was counted: answer again`,
          { details: { conflict } },
        );
      current = conflict.interaction;
    }
  }

  private assertMayCount(
    responder: string | undefined,
    thread: ThreadRecord,
    escalation: { at: string; approvers: readonly string[] } | undefined,
    escalatedAt: string | undefined,
  ): asserts responder is string {
    if (responder === undefined)
      throw new InterlockError(
        'APPROVAL_NOT_ALLOWED',
        'this call needs approvals from several people: say who approves (respond(id, input, { responder }))',
      );
    const person = personOf(responder);
    const requester = thread.session.requestedBy;
    if (requester !== undefined && personOf(requester) === person)
      throw new InterlockError(
        'APPROVAL_NOT_ALLOWED',
        `${responder} asked for this thread, so their approval does not count: another approver must approve it (a rejection is taken)`,
        { details: { responder, reason: 'requester' } },
      );
    const onEscalationList = escalation?.approvers.some((approver) => personOf(approver) === person) ?? false;
    if (
      escalation !== undefined &&
      onEscalationList &&
      escalatedAt === undefined &&
      Date.parse(escalation.at) > this.clock.now()
    )
      throw new InterlockError(
        'APPROVAL_NOT_ALLOWED',
        `${responder} approves this call only once it is escalated, at ${escalation.at}`,
        { details: { responder, reason: 'not-escalated', escalatesAt: escalation.at } },
      );
  }
}
