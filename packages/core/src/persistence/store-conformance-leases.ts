import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { errorCodeOf, threadRecord } from './__fixtures__/store-records.js';
import type { ICheckpointStore } from './checkpoint-store.js';

const NOW = '2026-01-02T03:04:05.000Z';
const LATER = '2026-01-02T03:04:15.000Z';
const MUCH_LATER = '2026-01-02T03:05:00.000Z';

/**
 * Thread leases every ICheckpointStore must keep (ThreadLease): one live holder at a time,
 * renewal without a version change, expiry. A vitest suite next to {@link describeStoreConformance}.
 */
export function describeLeaseConformance(
  name: string,
  makeStore: () => Promise<ICheckpointStore>,
  dispose?: (store: ICheckpointStore) => Promise<void>,
): void {
  describe(`${name} (thread lease conformance)`, () => {
    let store: ICheckpointStore;

    beforeEach(async () => {
      store = await makeStore();
      await store.createThread(threadRecord());
    });

    afterEach(async () => {
      await store.close();
      await dispose?.(store);
    });

    it('saves and reads back a lease set on the record, and a save without one frees it', async () => {
      const created = await store.createThread(threadRecord({ threadId: 'leased', lease: { owner: 'a', until: LATER } }));
      expect((await store.getThread('leased'))?.lease).toEqual({ owner: 'a', until: LATER });
      const { lease: _lease, ...unleased } = created;
      await store.saveThread(unleased);
      expect((await store.getThread('leased'))?.lease).toBeUndefined();
    });

    it('gives a free lease, renews it for its owner without changing the version, and refuses another owner while it lives', async () => {
      expect(await store.acquireLease('thread-1', 'a', LATER, NOW)).toBe(true);
      expect(await store.acquireLease('thread-1', 'a', MUCH_LATER, NOW)).toBe(true);
      const stored = await store.getThread('thread-1');
      expect(stored?.lease).toEqual({ owner: 'a', until: MUCH_LATER });
      expect(stored?.version).toBe(1);
      expect(await store.acquireLease('thread-1', 'b', LATER, LATER)).toBe(false);
      expect((await store.getThread('thread-1'))?.lease?.owner).toBe('a');
    });

    it('lets another owner take a lease that expired', async () => {
      await store.acquireLease('thread-1', 'a', LATER, NOW);
      expect(await store.acquireLease('thread-1', 'b', MUCH_LATER, LATER)).toBe(true);
      expect((await store.getThread('thread-1'))?.lease).toEqual({ owner: 'b', until: MUCH_LATER });
    });

    it('frees a lease only for its owner', async () => {
      await store.acquireLease('thread-1', 'a', LATER, NOW);
      await store.releaseLease('thread-1', 'b');
      expect((await store.getThread('thread-1'))?.lease?.owner).toBe('a');
      await store.releaseLease('thread-1', 'a');
      expect((await store.getThread('thread-1'))?.lease).toBeUndefined();
      expect(await store.acquireLease('thread-1', 'b', LATER, NOW)).toBe(true);
    });

    it('gives a contested free lease to exactly one of ten owners', async () => {
      const results = await Promise.all(Array.from({ length: 10 }, (_, index) => store.acquireLease('thread-1', `owner-${index}`, LATER, NOW)));
      expect(results.filter(Boolean)).toHaveLength(1);
    });

    it('refuses a lease on a thread that does not exist with THREAD_NOT_FOUND', async () => {
      expect(await errorCodeOf(store.acquireLease('no-such-thread', 'a', LATER, NOW))).toBe('THREAD_NOT_FOUND');
    });
  });
}
