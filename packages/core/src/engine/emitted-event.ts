import type { InterlockEvent } from '@interlock/sdk-types';
import type { DistributiveOmit } from './types.js';

/** An event as an executor emits it; the engine adds thread, workflow and time. */
export type EmittedEvent = DistributiveOmit<InterlockEvent, 'threadId' | 'workflowId' | 'timestamp'>;
