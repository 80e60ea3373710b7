import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ICheckpointStore } from '../../persistence/checkpoint-store.js';
import { committed, createThread, LATER, present, refused, save, threadRecord, toolApproval } from './store-records.js';

const NOW = '2026-01-02T03:04:10.000Z';
const UNTIL = '2026-01-02T03:04:25.000Z';
const AFTER_UNTIL = '2026-01-02T03:04:30.000Z';

/**
 * The claims of threads (docs/persistence.md, "Claims"): a run takes its thread's claim in
 * its first commit (a new epoch, unless another live claim holds it), keeps it, renews it,
 * and frees it in its last; every commit of a run is fenced by the version and epoch it
 * read, so a process that lost the claim writes nothing. Run it on each implementation.
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
    });
    afterEach(async () => {
      await store.close();
      await dispose?.(store);
    });

    it('a new thread may be stored claimed by its creator, or free', async () => {
      await createThread(store, threadRecord({ threadId: 'held', lease: { owner: 'a', until: UNTIL } }));
      await createThread(store, threadRecord({ threadId: 'free' }));
      expect((await store.getThread('held'))?.lease).toEqual({ owner: 'a', until: UNTIL });
      expect((await store.getThread('free'))?.lease).toBeUndefined();
    });

    it('takes a free claim with a new epoch, in the same commit as the save', async () => {
      const thread = await createThread(store);
      const result = await committed(store, {
        thread: save(thread, { steps: 1 }, { kind: 'take', owner: 'a', until: UNTIL, now: NOW }),
      });
      expect(result.thread).toMatchObject({ version: 2, epoch: 2, lease: { owner: 'a', until: UNTIL } });
      expect(await store.getThread('thread-1')).toMatchObject({
        version: 2,
        epoch: 2,
        steps: 1,
        lease: { owner: 'a', until: UNTIL },
      });
    });

    it('refuses to take a live claim of another owner, and takes one that ran out', async () => {
      const thread = await createThread(store, threadRecord({ lease: { owner: 'a', until: UNTIL } }));
      expect(
        await refused(store, { thread: save(thread, {}, { kind: 'take', owner: 'b', until: LATER, now: NOW }) }),
      ).toEqual({
        kind: 'thread-busy',
        threadId: 'thread-1',
        lease: { owner: 'a', until: UNTIL },
      });
      const taken = await committed(store, {
        thread: save(thread, {}, { kind: 'take', owner: 'b', until: LATER, now: AFTER_UNTIL }),
      });
      expect(taken.thread).toMatchObject({ epoch: 2, lease: { owner: 'b', until: LATER } });
    });

    it('keeps the claim on later saves, frees it on the last, and may take and free it in one', async () => {
      const thread = await createThread(store);
      await committed(store, { thread: save(thread, {}, { kind: 'take', owner: 'a', until: UNTIL, now: NOW }) });
      const taken = present(await store.getThread('thread-1'));
      await committed(store, { thread: save(taken, { steps: 2 }) });
      const kept = present(await store.getThread('thread-1'));
      expect(kept).toMatchObject({ epoch: 2, steps: 2, lease: { owner: 'a', until: UNTIL } });
      const released = await committed(store, { thread: save(kept, { status: 'waiting' }, { kind: 'release' }) });
      expect(released.thread?.lease).toBeUndefined();
      expect((await store.getThread('thread-1'))?.lease).toBeUndefined();
      const again = present(await store.getThread('thread-1'));
      const once = await committed(store, {
        thread: save(
          again,
          { status: 'completed' },
          { kind: 'take', owner: 'b', until: LATER, now: NOW, release: true },
        ),
      });
      expect(once.thread).toMatchObject({ epoch: 3 });
      expect(await store.getThread('thread-1')).toMatchObject({ status: 'completed', epoch: 3 });
      expect((await store.getThread('thread-1'))?.lease).toBeUndefined();
      // Free for anyone at once.
      const freed = present(await store.getThread('thread-1'));
      await committed(store, { thread: save(freed, {}, { kind: 'take', owner: 'c', until: LATER, now: NOW }) });
    });

    it('renews and frees a claim only for its owner at its epoch, without moving the version', async () => {
      const thread = await createThread(store);
      await committed(store, { thread: save(thread, {}, { kind: 'take', owner: 'a', until: UNTIL, now: NOW }) });
      await committed(store, { thread: { kind: 'renew', threadId: 'thread-1', epoch: 2, owner: 'a', until: LATER } });
      expect(await store.getThread('thread-1')).toMatchObject({ version: 2, lease: { owner: 'a', until: LATER } });
      expect(
        await refused(store, { thread: { kind: 'renew', threadId: 'thread-1', epoch: 1, owner: 'a', until: LATER } }),
      ).toMatchObject({
        kind: 'thread-changed',
      });
      await refused(store, { thread: { kind: 'renew', threadId: 'thread-1', epoch: 2, owner: 'b', until: LATER } });
      await refused(store, { thread: { kind: 'release', threadId: 'thread-1', epoch: 2, owner: 'b' } });
      await committed(store, { thread: { kind: 'release', threadId: 'thread-1', epoch: 2, owner: 'a' } });
      expect(await store.getThread('thread-1')).toMatchObject({ version: 2, epoch: 2 });
      expect((await store.getThread('thread-1'))?.lease).toBeUndefined();
    });

    it('refuses every write of a run whose claim was taken, and changes nothing of its unit', async () => {
      const thread = await createThread(store);
      await committed(store, { thread: save(thread, {}, { kind: 'take', owner: 'a', until: UNTIL, now: NOW }) });
      const held = present(await store.getThread('thread-1'));
      // 'a' froze past its claim; 'b' took the thread over.
      await committed(store, { thread: save(held, {}, { kind: 'take', owner: 'b', until: LATER, now: AFTER_UNTIL }) });
      const conflict = await refused(store, {
        thread: save(held, { status: 'completed' }),
        toolCalls: [{ kind: 'start', call: toolApproval(), from: ['approved'], at: NOW }],
        interactions: [{ kind: 'fail', interactionId: 'x', reason: 'cancelled', message: 'stale', at: NOW }],
      });
      expect(conflict).toMatchObject({ kind: 'thread-changed', storedEpoch: 3 });
      expect(await store.getThread('thread-1')).toMatchObject({ epoch: 3, status: 'running', lease: { owner: 'b' } });
      expect(await store.listToolExecutions({ threadId: 'thread-1' })).toEqual([]);
    });

    it('refuses a unit built after its claim ended even when nobody took the thread: no outcome, no completion, no renewal (F53, F54)', async () => {
      const thread = await createThread(store);
      await committed(store, { thread: save(thread, {}, { kind: 'take', owner: 'a', until: UNTIL, now: NOW }) });
      const held = present(await store.getThread('thread-1'));
      // Built before the end: written, and the claim stays.
      await committed(store, { thread: save(held, { steps: 1 }, { kind: 'keep', now: NOW }) });
      const kept = present(await store.getThread('thread-1'));
      // 'a' froze past its claim's end; nobody took the thread, yet nothing of 'a' is written any more.
      const late = await refused(store, {
        thread: save(kept, { status: 'completed' }, { kind: 'release', now: AFTER_UNTIL }),
        toolCalls: [{ kind: 'start', call: toolApproval(), from: ['approved'], at: AFTER_UNTIL }],
      });
      expect(late).toEqual({ kind: 'claim-ended', threadId: 'thread-1', until: UNTIL });
      expect(await refused(store, { thread: save(kept, { steps: 2 }, { kind: 'keep', now: UNTIL }) })).toMatchObject({
        kind: 'claim-ended',
      });
      expect(
        await refused(store, {
          thread: { kind: 'renew', threadId: 'thread-1', epoch: 2, owner: 'a', until: LATER, now: AFTER_UNTIL },
        }),
      ).toEqual({ kind: 'claim-ended', threadId: 'thread-1', until: UNTIL });
      expect(await store.getThread('thread-1')).toMatchObject({
        version: 3,
        epoch: 2,
        status: 'running',
        steps: 1,
        lease: { owner: 'a', until: UNTIL },
      });
      expect(await store.listToolExecutions({ threadId: 'thread-1' })).toEqual([]);
      // A renewal in time moves the end on; another process's take still wins over a late unit.
      await committed(store, {
        thread: { kind: 'renew', threadId: 'thread-1', epoch: 2, owner: 'a', until: LATER, now: NOW },
      });
      await committed(store, { thread: save(kept, { steps: 2 }, { kind: 'keep', now: AFTER_UNTIL }) });
      const renewed = present(await store.getThread('thread-1'));
      await committed(store, { thread: save(renewed, {}, { kind: 'take', owner: 'b', until: LATER, now: LATER }) });
      expect(await refused(store, { thread: save(renewed, { steps: 3 }, { kind: 'keep', now: NOW }) })).toMatchObject({
        kind: 'thread-changed',
        storedEpoch: 3,
      });
    });

    it('lets exactly one of concurrent takers have the claim', async () => {
      const thread = await createThread(store);
      const results = await Promise.all(
        ['a', 'b', 'c', 'd'].map((owner) =>
          store.commit({ thread: save(thread, { steps: 1 }, { kind: 'take', owner, until: UNTIL, now: NOW }) }),
        ),
      );
      expect(results.filter((result) => result.status === 'committed')).toHaveLength(1);
      expect(await store.getThread('thread-1')).toMatchObject({ version: 2, epoch: 2 });
    });
  });
}
