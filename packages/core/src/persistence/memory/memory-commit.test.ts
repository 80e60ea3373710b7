import { describeCommitConformance } from '../../testing/conformance/commit-conformance.js';
import { InMemoryCheckpointStore } from './in-memory-checkpoint-store.js';

describeCommitConformance('in-memory store', async () => new InMemoryCheckpointStore());
