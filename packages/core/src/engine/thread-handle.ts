import type { Observable } from 'rxjs';
import type { InterlockEvent } from '@interlock/sdk-types';
import type { ThreadOutcome } from './thread-outcome.js';

/** One run of a thread in this process. */
export interface ThreadHandle {
  readonly threadId: string;
  /** This run's events from its start, replayed to late subscribers; completes when the run ends. */
  readonly events$: Observable<InterlockEvent>;
  /** Resolves when the run ends: completed, failed, cancelled, or waiting for a person. */
  done(): Promise<ThreadOutcome>;
  /** Cancels the thread; its pending interaction fails with reason `cancelled` (F10). */
  cancel(reason?: string): Promise<void>;
}
