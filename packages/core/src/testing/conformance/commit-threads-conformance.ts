import { describe, expect, it } from 'vitest';
import type { ICheckpointStore } from '../../persistence/checkpoint-store.js';
import { committed, createThread, refused, saveOf, stored } from './commit-helpers.js';
import { CREATED_AT, LATER, interactionRecord, present, threadRecord, userMessage } from './store-records.js';

const LEASE = { owner: 'worker-a', until: '2026-01-02T03:10:00.000Z' };
const BEFORE_LEASE_ENDS = '2026-01-02T03:05:00.000Z';
const AFTER_LEASE_ENDS = '2026-01-02T03:20:00.000Z';

/** What `commit` does to a thread: create, save under the fence, take, keep, free, renew the claim; its conversation. */
export function describeThreadCommits(store: () => ICheckpointStore): void {
  describe('commit: threads', () => {
    it('creates a thread at version 1 with its epoch, lease and conversation, and refuses a second one', async () => {
      const thread = threadRecord({ epoch: 3, lease: LEASE, conversation: [userMessage('hi')], version: 7 });
      const result = await committed(store(), { thread: { kind: 'create', thread } });
      expect(result).toEqual({
        status: 'committed',
        thread: { version: 1, epoch: 3, updatedAt: CREATED_AT, lease: LEASE },
        audit: [],
        failed: [],
      });
      expect(await stored(store())).toEqual({ ...thread, version: 1 });
      expect(
        await refused(store(), {
          thread: { kind: 'create', thread: threadRecord({ status: 'waiting' }) },
          globals: [{ kind: 'set', scope: 'workflow-a', name: 'written', value: true }],
        }),
      ).toEqual({ kind: 'thread-exists', threadId: 'thread-1' });
      expect((await stored(store())).status).toBe('running');
      expect(await store().getGlobalVariables('workflow-a')).toEqual({});
    });

    it('saves under the fence: the version read and the epoch, else thread-changed with what is stored', async () => {
      const created = await createThread(store(), threadRecord({ epoch: 2 }));
      const saved = await committed(store(), saveOf(created, { status: 'waiting', steps: 4 }));
      expect(saved.thread).toEqual({ version: 2, epoch: 2, updatedAt: CREATED_AT });
      expect(await stored(store())).toMatchObject({ status: 'waiting', steps: 4, version: 2, epoch: 2 });
      expect(await refused(store(), saveOf(created, { steps: 9 }))).toEqual({
        kind: 'thread-changed',
        threadId: 'thread-1',
        storedVersion: 2,
        storedEpoch: 2,
      });
      expect(await refused(store(), saveOf({ ...created, version: 2, epoch: 1 }, { steps: 9 }))).toEqual({
        kind: 'thread-changed',
        threadId: 'thread-1',
        storedVersion: 2,
        storedEpoch: 2,
      });
      expect(await refused(store(), saveOf(threadRecord({ threadId: 'nobody' })))).toEqual({
        kind: 'thread-not-found',
        threadId: 'nobody',
      });
      expect((await stored(store())).steps).toBe(4);
    });

    it('keeps the stored claim on a keep, whatever lease the record carries, and frees it on a release', async () => {
      const created = await createThread(store(), threadRecord({ lease: LEASE }));
      const kept = await committed(
        store(),
        saveOf({ ...created, lease: { owner: 'other', until: LATER } }, { steps: 1 }),
      );
      expect(kept.thread).toEqual({ version: 2, epoch: created.epoch, updatedAt: CREATED_AT, lease: LEASE });
      expect((await stored(store())).lease).toEqual(LEASE);
      const freed = await committed(store(), saveOf(await stored(store()), { steps: 2 }, { kind: 'release' }));
      expect(freed.thread).toEqual({ version: 3, epoch: created.epoch, updatedAt: CREATED_AT });
      expect((await stored(store())).lease).toBeUndefined();
    });

    it('takes the claim with a new epoch unless another live claim holds the thread', async () => {
      const created = await createThread(store(), threadRecord({ lease: LEASE, epoch: 0 }));
      const take = (owner: string, now: string, release?: true) =>
        ({ kind: 'take', owner, until: AFTER_LEASE_ENDS, now, ...(release ? { release } : {}) }) as const;
      expect(await refused(store(), saveOf(created, { steps: 1 }, take('worker-b', BEFORE_LEASE_ENDS)))).toEqual({
        kind: 'thread-busy',
        threadId: 'thread-1',
        lease: LEASE,
      });
      // Its own claim, or one that ran out, is taken.
      const own = await committed(store(), saveOf(created, { steps: 1 }, take('worker-a', BEFORE_LEASE_ENDS)));
      expect(own.thread).toEqual({
        version: 2,
        epoch: 1,
        updatedAt: CREATED_AT,
        lease: { owner: 'worker-a', until: AFTER_LEASE_ENDS },
      });
      const after = await stored(store());
      const other = await committed(store(), saveOf(after, { steps: 2 }, take('worker-b', '2026-01-02T03:30:00.000Z')));
      expect(other.thread).toMatchObject({ version: 3, epoch: 2, lease: { owner: 'worker-b' } });
      // Taken and let go in one unit: a new epoch, no claim.
      const last = await stored(store());
      const once = await committed(store(), saveOf(last, { steps: 3 }, take('worker-b', LATER, true)));
      expect(once.thread).toEqual({ version: 4, epoch: 3, updatedAt: CREATED_AT });
      expect(await stored(store())).toMatchObject({ version: 4, epoch: 3, steps: 3 });
      expect((await stored(store())).lease).toBeUndefined();
    });

    it('checks the version before the claim: a stale take is thread-changed, not busy', async () => {
      const created = await createThread(store(), threadRecord({ lease: LEASE }));
      await committed(store(), saveOf(created, { steps: 1 }));
      const stale = saveOf(created, {}, { kind: 'take', owner: 'worker-b', until: LATER, now: BEFORE_LEASE_ENDS });
      expect(await refused(store(), stale)).toMatchObject({ kind: 'thread-changed', storedVersion: 2 });
    });

    it('renews and releases only the claim its holder has under the epoch, leaving the version', async () => {
      await createThread(store(), threadRecord({ epoch: 5, lease: LEASE }));
      const renewed = await committed(store(), {
        thread: { kind: 'renew', threadId: 'thread-1', epoch: 5, owner: 'worker-a', until: AFTER_LEASE_ENDS },
      });
      expect(renewed.thread).toEqual({
        version: 1,
        epoch: 5,
        updatedAt: CREATED_AT,
        lease: { owner: 'worker-a', until: AFTER_LEASE_ENDS },
      });
      expect((await stored(store())).lease).toEqual({ owner: 'worker-a', until: AFTER_LEASE_ENDS });
      const changed = { kind: 'thread-changed', threadId: 'thread-1', storedVersion: 1, storedEpoch: 5 };
      expect(
        await refused(store(), {
          thread: { kind: 'renew', threadId: 'thread-1', epoch: 4, owner: 'worker-a', until: LATER },
        }),
      ).toEqual(changed);
      expect(
        await refused(store(), {
          thread: { kind: 'renew', threadId: 'thread-1', epoch: 5, owner: 'worker-b', until: LATER },
        }),
      ).toEqual(changed);
      expect(
        await refused(store(), { thread: { kind: 'release', threadId: 'thread-1', epoch: 5, owner: 'worker-b' } }),
      ).toEqual(changed);
      expect(
        await refused(store(), { thread: { kind: 'release', threadId: 'nobody', epoch: 5, owner: 'worker-a' } }),
      ).toEqual({ kind: 'thread-not-found', threadId: 'nobody' });
      const released = await committed(store(), {
        thread: { kind: 'release', threadId: 'thread-1', epoch: 5, owner: 'worker-a' },
      });
      expect(released.thread).toEqual({ version: 1, epoch: 5, updatedAt: CREATED_AT });
      expect(await stored(store())).toMatchObject({ version: 1, epoch: 5 });
      expect((await stored(store())).lease).toBeUndefined();
      // No claim left to renew.
      expect(
        await refused(store(), {
          thread: { kind: 'renew', threadId: 'thread-1', epoch: 5, owner: 'worker-a', until: LATER },
        }),
      ).toEqual(changed);
    });

    it('appends new messages, and replaces the stored ones from the first that changed', async () => {
      const messages = Array.from({ length: 4 }, (_, index) => userMessage(`message ${index}`));
      let thread = await createThread(store(), threadRecord({ conversation: messages.slice(0, 2) }));
      await committed(store(), saveOf(thread, { conversation: messages }));
      thread = await stored(store());
      expect(thread.conversation).toEqual(messages);
      const edited = [present(messages[0]), userMessage('edited'), present(messages[2])];
      await committed(store(), saveOf(thread, { conversation: edited }));
      thread = await stored(store());
      expect(thread.conversation).toEqual(edited);
      await committed(store(), saveOf(thread, { conversation: [] }));
      expect((await stored(store())).conversation).toEqual([]);
    });

    it('writes nothing of a unit whose thread it refuses', async () => {
      const created = await createThread(store(), threadRecord());
      await committed(store(), saveOf(created, { steps: 1 }));
      expect(
        await refused(store(), {
          ...saveOf(created, { steps: 2, conversation: [userMessage('lost')] }),
          interactions: [{ kind: 'open', interaction: interactionRecord() }],
          remember: [{ key: 'k', expiresAt: Date.parse(LATER) }],
        }),
      ).toMatchObject({ kind: 'thread-changed' });
      expect(await stored(store())).toMatchObject({ steps: 1, conversation: [] });
      expect(await store().getInteraction('interaction-1')).toBeUndefined();
      expect(await store().isApprovalRemembered('k', Date.parse(CREATED_AT))).toBe(false);
    });

    it('loads a thread with its interactions, oldest first, and its tool calls, as of one moment', async () => {
      await createThread(store(), threadRecord({ conversation: [userMessage('hi')] }));
      await committed(store(), {
        interactions: [
          { kind: 'open', interaction: interactionRecord({ interactionId: 'b', createdAt: LATER, updatedAt: LATER }) },
          { kind: 'open', interaction: interactionRecord({ interactionId: 'a' }) },
          { kind: 'open', interaction: interactionRecord({ interactionId: 'other', threadId: 'thread-2' }) },
        ],
      });
      const loaded = await store().loadThread('thread-1');
      expect(loaded?.thread).toEqual(await stored(store()));
      expect(loaded?.interactions.map((interaction) => interaction.interactionId)).toEqual(['a', 'b']);
      expect(loaded?.toolCalls).toEqual([]);
      expect(await store().loadThread('nobody')).toBeUndefined();
    });
  });
}
