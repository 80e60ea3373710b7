import type { EventEmitter } from 'node:events';

/** What graphile-worker's local queue shows of itself (0.18): its fetch, and the poll timer that calls it. */
interface LocalQueueView {
  fetch: () => void;
  fetchTimer: unknown;
  refetchDelayActive?: unknown;
}

/**
 * Which jobs a worker process found by polling (issue 38). graphile-worker's local queue
 * fetches a batch of due jobs when it hears of new ones (`jobs:insert`), when its cached
 * jobs run out, and once per poll interval when nothing else made it look; a job its poll
 * found waited for that poll (it was added elsewhere, due later, or its announcement was
 * missed). This watches the queue's events only: it records, at each fetch, whether the
 * poll's timer made it (the timer is still set when it fires, and every other caller clears
 * it first), and marks the jobs that fetch returned. A queue it cannot read this way (another
 * version) reports every job as not found by a poll, and `reliable` is false.
 */
export class JobPickups {
  private readonly polled = new Set<string>();
  private lastFetchByPoll = false;
  /** Whether the local queue could be watched. */
  reliable = false;

  /** Watches the events of one graphile-worker runner (its `events` option). */
  watch(events: EventEmitter): void {
    events.on('localQueue:init', ({ localQueue }: { localQueue: LocalQueueView }) => this.wrap(localQueue));
    events.on('localQueue:getJobs:complete', ({ jobs }: { jobs: readonly { id: string | number }[] }) => {
      if (!this.lastFetchByPoll) return;
      for (const job of jobs) this.polled.add(String(job.id));
    });
  }

  /** Whether the job with graphile-worker's id `jobId` was found by a poll (asked once per job). */
  takePolled(jobId: string | number): boolean {
    return this.polled.delete(String(jobId));
  }

  private wrap(queue: LocalQueueView): void {
    const fetch = queue.fetch;
    if (typeof fetch !== 'function' || !('fetchTimer' in queue)) return;
    this.reliable = true;
    queue.fetch = () => {
      // A fetch asked for during a refetch delay does not run now; the one that does decides.
      if (queue.refetchDelayActive !== true) this.lastFetchByPoll = queue.fetchTimer !== null;
      fetch();
    };
  }
}
