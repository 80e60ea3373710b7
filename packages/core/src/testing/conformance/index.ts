/**
 * The conformance suite of the persistence port, for authors of a store: run it (with
 * vitest) on your `ICheckpointStore` so it keeps every promise the engine relies on.
 * `describeConformance` runs every part; the parts are exported too, to run one while
 * working on it.
 *
 * @example
 * ```ts
 * import { describeConformance } from '@interlock/core/testing/conformance';
 * describeConformance('my store', () => openMyStore());
 * ```
 */
export { describeConformance } from './whole-conformance.js';
export { describeStoreConformance } from './store-conformance.js';
export { describeAuditAndMemoryConformance } from './audit-conformance.js';
export { describeLeaseConformance } from './claim-conformance.js';
export { describeCommitConformance } from './commit-conformance.js';
