import { describeStoreConformance } from '../../testing/conformance/store-conformance.js';
import { describeAuditAndMemoryConformance } from '../../testing/conformance/audit-conformance.js';
import { describeLeaseConformance } from '../../testing/conformance/claim-conformance.js';
import { InMemoryCheckpointStore } from './in-memory-checkpoint-store.js';

describeStoreConformance('in-memory store', async () => new InMemoryCheckpointStore());
describeAuditAndMemoryConformance('in-memory store', async () => new InMemoryCheckpointStore());
describeLeaseConformance('in-memory store', async () => new InMemoryCheckpointStore());
