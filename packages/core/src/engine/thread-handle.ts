import { EMPTY, type Observable } from 'rxjs';
import type { InterlockEvent } from '@interlock/sdk-types';
import type { ThreadOutcome } from './thread-outcome.js';

/** One run of a thread in this process. */
export interface ThreadHandle {
  readonly threadId: string;
  /** This run's events from its start, replayed to late subscribers; completes when the run ends. */
  readonly events$: Observable<InterlockEvent>;
  /** Resolves when the run ends: completed, failed, cancelled, waiting for a person, or scheduled (handed to a worker). */
  done(): Promise<ThreadOutcome>;
  /** Cancels the thread; its pending interaction fails with reason `cancelled` (F10). */
  cancel(reason?: string): Promise<void>;
}

/** The handle of a thread handed to the workers: no run here, so no events; it is `scheduled`. */
export function scheduledHandle(threadId: string, cancel: (reason?: string) => Promise<void>): ThreadHandle {
  const outcome: ThreadOutcome = { status: 'scheduled', threadId };
  return { threadId, events$: EMPTY, done: () => Promise.resolve(outcome), cancel };
}
