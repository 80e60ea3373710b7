import { describeStoreConformance } from '../store-conformance.js';
import { InMemoryCheckpointStore } from './in-memory-checkpoint-store.js';

describeStoreConformance('in-memory store', async () => new InMemoryCheckpointStore());
