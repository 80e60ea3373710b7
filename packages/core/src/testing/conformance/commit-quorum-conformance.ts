import { describe, expect, it } from 'vitest';
import type { GivenApproval, ICheckpointStore } from '../../persistence/checkpoint-store.js';
import type { InteractionChange } from '../../persistence/unit-of-work.js';
import { committed, createThread, refused } from './commit-helpers.js';
import {
  AWKWARD_TEXT,
  CREATED_AT,
  LATER,
  argumentsHashOf,
  interactionRecord,
  present,
  response,
  threadRecord,
} from './store-records.js';

const PROPOSED = argumentsHashOf({ path: 'README.md', content: 'hello' });
const EDITED_ARGUMENTS = { path: 'README.md', content: AWKWARD_TEXT };
const EDITED = argumentsHashOf(EDITED_ARGUMENTS);

/** An approval by `responder` of the proposal, or of the edited arguments. */
function approval(responder: string, edited = false): GivenApproval {
  return {
    responder,
    argumentsHash: edited ? EDITED : PROPOSED,
    ...(edited ? { editedParameters: EDITED_ARGUMENTS } : {}),
    approvedAt: LATER,
  };
}

function approve(responder: string, seen: number, edited = false): InteractionChange {
  return { kind: 'approve-partially', interactionId: 'interaction-1', approval: approval(responder, edited), seen };
}

/** What `commit` does with the approvals of a call that needs several (F51) and its escalation. */
export function describeQuorumCommits(store: () => ICheckpointStore): void {
  describe('commit: approvals of a call that needs several (F51)', () => {
    const open = () => committed(store(), { interactions: [{ kind: 'open', interaction: interactionRecord() }] });

    it('stores each approval on the pending interaction, once per responder, if the count read still holds', async () => {
      await open();
      await committed(store(), { interactions: [approve('web:alice', 0)] });
      const one = present(await store().getInteraction('interaction-1'));
      expect(one.status).toBe('pending');
      expect(one.quorum).toEqual({ approvals: [approval('web:alice')] });
      // Another approver who read no approval comes second: refused, to read again.
      expect(await refused(store(), { interactions: [approve('web:bob', 0)] })).toEqual({
        kind: 'quorum-changed',
        interaction: one,
      });
      // The same approver again keeps their first approval.
      await committed(store(), { interactions: [approve('web:alice', 1)] });
      expect((await store().getInteraction('interaction-1'))?.quorum?.approvals).toHaveLength(1);
      await committed(store(), { interactions: [approve('web:bob', 1)] });
      expect((await store().listInteractions({ status: 'pending' }))[0]?.quorum).toEqual({
        approvals: [approval('web:alice'), approval('web:bob')],
      });
      await createThread(store(), threadRecord({ status: 'waiting', pendingInteractionIds: ['interaction-1'] }));
      expect((await store().loadThread('thread-1'))?.interactions[0]?.quorum?.approvals).toHaveLength(2);
    });

    it('drops the approvals of other arguments when an approver edits them, keeping the edit exactly', async () => {
      await open();
      await committed(store(), { interactions: [approve('web:alice', 0)] });
      await committed(store(), { interactions: [approve('web:bob', 0, true)] });
      const edited = present(await store().getInteraction('interaction-1'));
      expect(edited.quorum).toEqual({ approvals: [approval('web:bob', true)] });
      expect(edited.quorum?.approvals[0]?.editedParameters).toEqual(EDITED_ARGUMENTS);
      // Alice approves the edit: two approvals of the same arguments.
      await committed(store(), { interactions: [approve('web:alice', 1, true)] });
      expect((await store().getInteraction('interaction-1'))?.quorum?.approvals.map((a) => a.responder)).toEqual([
        'web:bob',
        'web:alice',
      ]);
    });

    it('stores the last approval and the answer in one unit, or neither', async () => {
      await open();
      await committed(store(), { interactions: [approve('web:alice', 0)] });
      const last = {
        interactions: [
          approve('web:bob', 1),
          { kind: 'answer' as const, interactionId: 'interaction-1', response: response(true, 'web:bob') },
        ],
      };
      // A stale count (an edit came in between) refuses the answer too.
      await committed(store(), { interactions: [approve('web:carol', 0, true)] });
      expect((await refused(store(), last)).kind).toBe('quorum-changed');
      expect((await store().getInteraction('interaction-1'))?.status).toBe('pending');
      await committed(store(), { interactions: [approve('web:alice', 1, true)] });
      await committed(store(), {
        interactions: [
          approve('web:bob', 2, true),
          { kind: 'answer', interactionId: 'interaction-1', response: response(true, 'web:bob') },
        ],
      });
      const answered = present(await store().getInteraction('interaction-1'));
      expect(answered.status).toBe('responded');
      expect(answered.quorum?.approvals.map((a) => a.responder)).toEqual(['web:carol', 'web:alice', 'web:bob']);
    });

    it('refuses an approval once the interaction is answered, failed or missing, and writes nothing of its unit', async () => {
      await open();
      await committed(store(), {
        interactions: [{ kind: 'answer', interactionId: 'interaction-1', response: response(false) }],
      });
      const answered = present(await store().getInteraction('interaction-1'));
      expect(
        await refused(store(), {
          interactions: [approve('web:alice', 0)],
          globals: [{ kind: 'set', scope: 'workflow-a', name: 'written', value: 1 }],
        }),
      ).toEqual({ kind: 'interaction-not-pending', interaction: answered });
      expect(await store().getGlobalVariables('workflow-a')).toEqual({});
      expect(
        await refused(store(), {
          interactions: [
            { kind: 'approve-partially', interactionId: 'nobody', approval: approval('web:alice'), seen: 0 },
          ],
        }),
      ).toEqual({ kind: 'interaction-not-found', interactionId: 'nobody' });
    });

    it('escalates a pending interaction once, keeping its approvals', async () => {
      await open();
      await committed(store(), { interactions: [approve('web:alice', 0)] });
      const escalate = { kind: 'escalate' as const, interactionId: 'interaction-1', at: LATER };
      await committed(store(), { interactions: [escalate] });
      const escalated = present(await store().getInteraction('interaction-1'));
      expect(escalated.quorum).toEqual({ approvals: [approval('web:alice')], escalatedAt: LATER });
      expect(escalated.status).toBe('pending');
      expect(await refused(store(), { interactions: [escalate] })).toEqual({
        kind: 'quorum-changed',
        interaction: escalated,
      });
      await committed(store(), {
        interactions: [{ kind: 'fail', interactionId: 'interaction-1', reason: 'timeout', message: 'late', at: LATER }],
      });
      await committed(store(), {
        interactions: [
          { kind: 'open', interaction: interactionRecord({ interactionId: 'interaction-2', createdAt: CREATED_AT }) },
        ],
      });
      expect((await refused(store(), { interactions: [{ ...escalate, interactionId: 'interaction-1' }] })).kind).toBe(
        'interaction-not-pending',
      );
      expect((await store().getInteraction('interaction-2'))?.quorum).toBeUndefined();
    });
  });
}
