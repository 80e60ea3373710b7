/**
 * The conformance suite of the persistence port, for authors of a store: run it (with
 * vitest) on your `ICheckpointStore` so it keeps every promise the engine relies on.
 *
 * @example
 * ```ts
 * import { describeStoreConformance, describeAuditAndMemoryConformance, describeLeaseConformance } from '@interlock/core/testing/conformance';
 * describeStoreConformance('my store', () => openMyStore());
 * describeAuditAndMemoryConformance('my store', () => openMyStore());
 * describeLeaseConformance('my store', () => openMyStore());
 * describeCommitConformance('my store', () => openMyStore());
 * ```
 */
export { describeStoreConformance } from './store-conformance.js';
export { describeAuditAndMemoryConformance } from './audit-conformance.js';
export { describeLeaseConformance } from './claim-conformance.js';
export { describeCommitConformance } from './commit-conformance.js';
