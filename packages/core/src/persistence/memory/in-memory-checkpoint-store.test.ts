import { describeConformance } from '../../testing/conformance/whole-conformance.js';
import { InMemoryCheckpointStore } from './in-memory-checkpoint-store.js';

describeConformance('in-memory store', async () => new InMemoryCheckpointStore());
