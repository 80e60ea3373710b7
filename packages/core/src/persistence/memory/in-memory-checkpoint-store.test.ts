import { describeStoreConformance } from '../store-conformance.js';
import { describeAuditAndMemoryConformance } from '../store-conformance-audit.js';
import { describeLeaseConformance } from '../store-conformance-leases.js';
import { InMemoryCheckpointStore } from './in-memory-checkpoint-store.js';

describeStoreConformance('in-memory store', async () => new InMemoryCheckpointStore());
describeAuditAndMemoryConformance('in-memory store', async () => new InMemoryCheckpointStore());
describeLeaseConformance('in-memory store', async () => new InMemoryCheckpointStore());
