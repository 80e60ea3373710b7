import { afterEach, describe, expect, it, vi } from 'vitest';
import { InMemoryCheckpointStore } from '../persistence/memory/in-memory-checkpoint-store.js';
import { StoreJobConsumer } from './job-consumers.js';
import type { ThreadJob } from './thread-jobs.js';

/** The in-memory store with a commit (`flush`) that fails the first time. */
class StoreWhoseFirstCommitFails extends InMemoryCheckpointStore {
  flushes = 0;
  async flush(): Promise<void> {
    this.flushes += 1;
    if (this.flushes === 1) throw new Error('disk full');
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

  it('reports a take whose commit failed, runs none of its jobs and keeps polling', async () => {
    vi.useFakeTimers({ now: 0 });
    const store = new StoreWhoseFirstCommitFails();
    await store.scheduleJobs([job]);
    const takeJobs = vi.spyOn(store, 'takeJobs');
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
    await vi.advanceTimersByTimeAsync(35);
    await consumer.stop();

    expect(onFailure).toHaveBeenCalledOnce();
    expect(onFailure).toHaveBeenCalledWith(expect.objectContaining({ key: 'take' }), new Error('disk full'));
    expect(runJob).not.toHaveBeenCalled();
    expect(takeJobs.mock.calls.length).toBeGreaterThan(1);
  });
});
