import { afterEach, describe, expect, it, vi } from 'vitest';
import { InMemoryCheckpointStore } from '../persistence/memory/in-memory-checkpoint-store.js';
import { committed } from '../testing/conformance/store-records.js';
import { StoreJobConsumer } from './job-consumers.js';
import type { ThreadJob } from './thread-jobs.js';

/** The in-memory store, whose first take of jobs fails (its transaction did not commit: it locked nothing). */
class StoreWhoseFirstTakeFails extends InMemoryCheckpointStore {
  takes = 0;

  override async takeJobs(...args: Parameters<InMemoryCheckpointStore['takeJobs']>) {
    this.takes += 1;
    if (this.takes === 1) throw new Error('disk full');
    return super.takeJobs(...args);
  }
}

const job: ThreadJob = {
  kind: 'continue',
  threadId: 'thread-1',
  workflowId: 'workflow-1',
  runAt: new Date(0).toISOString(),
  key: 'continue:thread-1',
};

describe('StoreJobConsumer', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('reports a take whose commit failed, runs nothing from it, and keeps polling: a later take runs the job once', async () => {
    vi.useFakeTimers({ now: 0 });
    const store = new StoreWhoseFirstTakeFails();
    await committed(store, { jobs: [job] });
    const runJob = vi.fn(async () => ({ status: 'done' as const }));
    const onFailure = vi.fn();
    const consumer = new StoreJobConsumer(store, ['workflow-1'], runJob, {
      clock: { now: () => Date.now() },
      concurrency: 1,
      pollMs: 10,
      lockMs: 1_000,
      onFailure,
    });

    await consumer.start();
    await vi.advanceTimersByTimeAsync(5);
    expect(onFailure).toHaveBeenCalledOnce();
    expect(onFailure).toHaveBeenCalledWith(expect.objectContaining({ key: 'take' }), new Error('disk full'));
    expect(runJob).not.toHaveBeenCalled();

    await vi.advanceTimersByTimeAsync(30);
    await consumer.stop();
    expect(store.takes).toBeGreaterThan(2);
    expect(runJob).toHaveBeenCalledOnce();
    expect(runJob).toHaveBeenCalledWith(job);
    expect(onFailure).toHaveBeenCalledOnce();
    // Done: the job is finished, not left for another worker once its lock runs out.
    const afterLock = new Date(5_000).toISOString();
    expect(await store.takeJobs(['workflow-1'], 'another-worker', afterLock, afterLock, 10)).toEqual([]);
  });
});
