import { afterEach, beforeEach, describe } from 'vitest';
import type { ICheckpointStore } from '../../persistence/checkpoint-store.js';
import { describeAuditCommits } from './commit-audit-conformance.js';
import { describeQuorumCommits } from './commit-quorum-conformance.js';
import { describeRecordCommits } from './commit-records-conformance.js';
import { describeThreadCommits } from './commit-threads-conformance.js';

/**
 * What `commit(unit)` means, as a vitest suite: every change of a unit of work, each
 * precondition and the conflict it reports, all of a unit or none of it, the audit chains
 * it links. The in-memory store (persistence/memory/memory-transaction.ts) is the
 * reference; run it on each store so they cannot drift apart. `makeStore` must return an
 * empty store for every test; `dispose` runs after the test closed it.
 *
 * @example
 * ```ts
 * describeCommitConformance('in-memory store', async () => new InMemoryCheckpointStore());
 * ```
 */
export function describeCommitConformance(
  name: string,
  makeStore: () => Promise<ICheckpointStore>,
  dispose?: (store: ICheckpointStore) => Promise<void>,
): void {
  describe(`${name} (commit conformance)`, () => {
    let store: ICheckpointStore;

    beforeEach(async () => {
      store = await makeStore();
    });

    afterEach(async () => {
      await store.close();
      await dispose?.(store);
    });

    describeThreadCommits(() => store);
    describeRecordCommits(() => store);
    describeAuditCommits(() => store);
    describeQuorumCommits(() => store);
  });
}
