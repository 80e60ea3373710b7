import type { ICheckpointStore } from '../../persistence/checkpoint-store.js';
import { describeAuditAndMemoryConformance } from './audit-conformance.js';
import { describeLeaseConformance } from './claim-conformance.js';
import { describeCommitConformance } from './commit-conformance.js';
import { describeStoreConformance } from './store-conformance.js';

/**
 * Every conformance suite of the persistence port, on one store: threads and interactions,
 * tool-call records and definitions, the audit chains and anchors, remembered approvals and
 * jobs, claims, and what `commit(unit)` means change by change (threads, records, audit,
 * approvals of a call that needs several). Each store Interlock ships runs it — in memory,
 * SQLite (with and without group commit), PostgreSQL — and so does the example custom store
 * (`examples/json-file-store.ts`): run it on yours. `makeStore` must return an empty store
 * for every test; `dispose` runs after the test closed it (drop a database, remove a file).
 *
 * @example
 * ```ts
 * import { describeConformance } from '@interlock/core/testing/conformance';
 * describeConformance('my store', () => openMyStore());
 * ```
 */
export function describeConformance(
  name: string,
  makeStore: () => Promise<ICheckpointStore>,
  dispose?: (store: ICheckpointStore) => Promise<void>,
): void {
  describeStoreConformance(name, makeStore, dispose);
  describeAuditAndMemoryConformance(name, makeStore, dispose);
  describeLeaseConformance(name, makeStore, dispose);
  describeCommitConformance(name, makeStore, dispose);
}
