import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AuditEntry } from '../../audit/audit-log.js';
import { errorCodeOf, present, interactionRecord, threadRecord, toolApproval } from './store-records.js';
import type { ClaimFence, ICheckpointStore } from '../../persistence/checkpoint-store.js';

const NOW = '2026-01-02T03:04:05.000Z';
const LATER = '2026-01-02T03:04:15.000Z';
const MUCH_LATER = '2026-01-02T03:05:00.000Z';

/**
 * Thread claims every ICheckpointStore must keep (ThreadLease, issue 11): one live holder
 * at a time, a new epoch per claim, renewal and release only under the current epoch, and
 * every fenced write refused once another claim took the thread. A vitest suite next to
 * {@link describeStoreConformance}.
 */
export function describeLeaseConformance(
  name: string,
  makeStore: () => Promise<ICheckpointStore>,
  dispose?: (store: ICheckpointStore) => Promise<void>,
): void {
  describe(`${name} (thread claim conformance)`, () => {
    let store: ICheckpointStore;

    beforeEach(async () => {
      store = await makeStore();
      await store.createThread(threadRecord());
    });

    afterEach(async () => {
      await store.close();
      await dispose?.(store);
    });

    async function claim(owner: string, until = LATER, now = NOW): Promise<ClaimFence> {
      const version = present(await store.getThread('thread-1')).version;
      const result = await store.claimThread('thread-1', owner, until, now, version);
      if (result.status !== 'claimed') throw new Error(`${owner} could not claim: ${result.status}`);
      return { threadId: 'thread-1', epoch: result.epoch };
    }

    it("stores the creator's claim with the thread, and a save neither writes nor frees it", async () => {
      const created = await store.createThread(
        threadRecord({ threadId: 'claimed', epoch: 1, lease: { owner: 'a', until: LATER } }),
      );
      const { lease: _lease, ...unleased } = created;
      await store.saveThread({ ...unleased, epoch: 7 });
      const stored = await store.getThread('claimed');
      expect(stored?.lease).toEqual({ owner: 'a', until: LATER });
      expect(stored?.epoch).toBe(1);
    });

    it('claims a free thread with a new epoch and version, and refuses another owner while the claim lives', async () => {
      const first = await claim('a');
      const stored = await store.getThread('thread-1');
      expect(stored).toMatchObject({ epoch: first.epoch, version: 2, lease: { owner: 'a', until: LATER } });
      expect(await store.claimThread('thread-1', 'b', MUCH_LATER, NOW, present(stored).version)).toEqual({
        status: 'busy',
        lease: { owner: 'a', until: LATER },
      });
    });

    it('refuses a claim at a version that is no longer stored, so the claimer reads the thread again', async () => {
      expect(await store.claimThread('thread-1', 'a', LATER, NOW, 99)).toEqual({ status: 'changed' });
      expect((await store.getThread('thread-1'))?.lease).toBeUndefined();
    });

    it('renews a claim without changing the version, only under its own epoch', async () => {
      const fence = await claim('a');
      expect(await store.renewClaim(fence, 'a', MUCH_LATER)).toBe(true);
      expect(await store.getThread('thread-1')).toMatchObject({ version: 2, lease: { owner: 'a', until: MUCH_LATER } });
      expect(await store.renewClaim({ ...fence, epoch: fence.epoch - 1 }, 'a', MUCH_LATER)).toBe(false);
      expect(await store.renewClaim(fence, 'b', MUCH_LATER)).toBe(false);
    });

    it('lets another owner take an expired claim with a higher epoch; the old owner can then neither renew nor release it', async () => {
      const old = await claim('a', LATER, NOW);
      const taken = await claim('b', MUCH_LATER, LATER);
      expect(taken.epoch).toBeGreaterThan(old.epoch);
      expect(await store.renewClaim(old, 'a', MUCH_LATER)).toBe(false);
      await store.releaseClaim(old, 'a');
      expect((await store.getThread('thread-1'))?.lease).toEqual({ owner: 'b', until: MUCH_LATER });
    });

    it('frees a claim for its owner only, after which anyone may claim', async () => {
      const fence = await claim('a');
      await store.releaseClaim(fence, 'b');
      expect((await store.getThread('thread-1'))?.lease?.owner).toBe('a');
      await store.releaseClaim(fence, 'a');
      expect((await store.getThread('thread-1'))?.lease).toBeUndefined();
      await claim('b');
    });

    it('gives a contested free thread to exactly one of ten owners', async () => {
      const version = present(await store.getThread('thread-1')).version;
      const results = await Promise.all(
        Array.from({ length: 10 }, (_, index) => store.claimThread('thread-1', `owner-${index}`, LATER, NOW, version)),
      );
      expect(results.filter((result) => result.status === 'claimed')).toHaveLength(1);
    });

    it('refuses a claim on a thread that does not exist with THREAD_NOT_FOUND', async () => {
      expect(await errorCodeOf(store.claimThread('no-such-thread', 'a', LATER, NOW, 1))).toBe('THREAD_NOT_FOUND');
    });

    it('refuses every fenced write of a claim that was taken, and changes nothing (STORE_CONFLICT)', async () => {
      const stale = await claim('a', LATER, NOW);
      await store.recordToolApproval(toolApproval({ threadId: 'thread-1', toolCallId: 'call-1' }), stale);
      expect(
        await store.markToolStarted('thread-1', 'call-1', toolApproval().argumentsHash, ['approved'], NOW, stale),
      ).toBe(true);
      await store.createInteraction(interactionRecord({ interactionId: 'ask-1', threadId: 'thread-1' }), stale);
      await store.recordResponse('ask-1', { input: 'yes', respondedAt: NOW });
      const current = await claim('b', MUCH_LATER, LATER);
      expect(await store.setToolExecutionStatus('thread-1', 'call-1', ['started'], 'unknown', LATER, current)).toBe(
        true,
      );

      const outcome = { status: 'SUCCESS' as const, output: 'late', content: 'late' };
      const refusals = [
        () => store.markToolFinished('thread-1', 'call-1', outcome, LATER, stale),
        () => store.setToolExecutionStatus('thread-1', 'call-1', ['unknown'], 'approved', LATER, stale),
        () => store.markToolStarted('thread-1', 'call-1', toolApproval().argumentsHash, ['unknown'], LATER, stale),
        () => store.recordToolApproval(toolApproval({ threadId: 'thread-1', toolCallId: 'call-2' }), stale),
        () => store.createInteraction(interactionRecord({ interactionId: 'ask-2', threadId: 'thread-1' }), stale),
        () => store.appendAuditEntry((previous) => sealedEntry(previous), stale),
      ];
      for (const refusal of refusals) expect(await errorCodeOf(refusal())).toBe('STORE_CONFLICT');
      expect(await store.getToolExecution('thread-1', 'call-1')).toMatchObject({ status: 'unknown' });
      expect(await store.getToolExecution('thread-1', 'call-2')).toBeUndefined();
      expect(await store.getInteraction('ask-2')).toBeUndefined();
      expect((await store.getInteraction('ask-1'))?.status).toBe('responded');
      expect(await store.listAuditEntries()).toEqual([]);

      expect(await store.markToolFinished('thread-1', 'call-1', outcome, LATER, current)).toBe(true);
      expect(await store.markToolFinished('thread-1', 'call-1', { ...outcome, output: 'again' }, LATER, current)).toBe(
        false,
      );
      expect((await store.getToolExecution('thread-1', 'call-1'))?.outcome?.output).toBe('late');
      expect((await store.appendAuditEntry((previous) => sealedEntry(previous), current)).sequence).toBe(1);
    });
  });
}

function sealedEntry(previous: { sequence: number; hash: string } | undefined): AuditEntry {
  const sequence = (previous?.sequence ?? 0) + 1;
  return {
    threadId: 'thread-1',
    toolCallId: 'call-1',
    toolName: 'write_file',
    outcome: 'allow',
    decidedBy: 'person',
    rule: 'ask',
    reason: 'looks fine',
    stage: 'execution',
    originalArguments: {},
    at: NOW,
    previousHash: previous?.hash ?? 'genesis',
    hash: `hash-${sequence}`,
    sequence,
  };
}
