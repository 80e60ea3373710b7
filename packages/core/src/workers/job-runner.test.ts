import { describe, expect, it } from 'vitest';
import { InterlockError } from '../errors/interlock-error.js';
import { InMemoryCheckpointStore } from '../persistence/memory/in-memory-checkpoint-store.js';
import type { InteractionRecord } from '../persistence/checkpoint-store.js';
import { interactionRecord, response, threadRecord } from '../testing/conformance/store-records.js';
import { JobPlanner } from './job-planner.js';
import { JobRunner, type ThreadDriver } from './job-runner.js';
import { recoverJob, continueJob } from './thread-jobs.js';

/*
 * The job runner (issue 12) decides from the thread's own record what a worker does: a
 * thread is taken forward when something it waits on is settled, whatever became of the
 * answer's bookkeeping, and a thread another process holds is looked at again later.
 */

const NOW = Date.parse('2026-01-02T04:00:00.000Z');
const clock = { now: () => NOW };
const LEASE_MS = 1_000;
const planner = new JobPlanner('workers', clock, LEASE_MS);

/** Records every resume; fails with `failure` when given. */
function driver(failure?: InterlockError): ThreadDriver & { resumed: string[] } {
  const resumed: string[] = [];
  return {
    resumed,
    async resume(threadId) {
      resumed.push(threadId);
      if (failure) throw failure;
      return { done: async () => undefined };
    },
  };
}

/** A waiting thread, waiting on `waitsOn`, with `interactions` stored beside it. */
async function storeWith(waitsOn: string[], interactions: InteractionRecord[]) {
  const store = new InMemoryCheckpointStore();
  await store.createThread(threadRecord({ status: 'waiting', pendingInteractionIds: waitsOn }));
  const processed: string[] = [];
  for (const interaction of interactions) {
    await store.createInteraction({ ...interaction, status: 'pending' });
    if (interaction.status === 'responded' || interaction.status === 'processed')
      await store.recordResponse(interaction.interactionId, response({ approved: true }));
    if (interaction.status === 'processed') processed.push(interaction.interactionId);
    if (interaction.status === 'failed') await store.failInteraction(interaction.interactionId, 'timeout', 'late');
  }
  // An answer is processed by the save that applied it (here, one that changes nothing else).
  const thread = await store.getThread('thread-1');
  if (processed.length > 0 && thread !== undefined) await store.saveThread(thread, processed);
  return store;
}

const thread = { threadId: 'thread-1', workflowId: 'workflow-a', workflowVersion: '1.0.0' };
const later = '2026-01-02T05:00:00.000Z';

describe('JobRunner: a recover job', () => {
  it.each([
    ['answered', 'responded'],
    ['answered, and marked processed by a process that died before its checkpoint', 'processed'],
    ['timed out', 'failed'],
  ] as const)('takes a waiting thread forward when the interaction it waits on was %s', async (_, status) => {
    const store = await storeWith(['ask-1'], [interactionRecord({ interactionId: 'ask-1', status, deadline: later })]);
    const threads = driver();
    const outcome = await new JobRunner(threads, store, clock, planner).run(recoverJob(thread, NOW));
    expect(outcome).toEqual({ status: 'done' });
    expect(threads.resumed).toEqual(['thread-1']);
  });

  it('times out an overdue question the thread waits on, then takes the thread forward', async () => {
    const overdue = interactionRecord({ interactionId: 'ask-1', deadline: '2026-01-02T03:59:59.000Z' });
    const store = await storeWith(['ask-1'], [overdue]);
    const threads = driver();
    await new JobRunner(threads, store, clock, planner).run(recoverJob(thread, NOW));
    expect((await store.getInteraction('ask-1'))?.status).toBe('failed');
    expect(threads.resumed).toEqual(['thread-1']);
  });

  it('leaves a thread whose question is still open alone, whatever became of questions it no longer waits on', async () => {
    const store = await storeWith(
      ['ask-2'],
      [
        interactionRecord({ interactionId: 'ask-1', status: 'responded', deadline: later }),
        interactionRecord({ interactionId: 'ask-2', deadline: later }),
      ],
    );
    const threads = driver();
    const outcome = await new JobRunner(threads, store, clock, planner).run(recoverJob(thread, NOW));
    expect(outcome).toMatchObject({ status: 'done', note: expect.stringMatching(/^nothing to recover/) });
    expect(threads.resumed).toEqual([]);
  });
});

describe('JobRunner: a thread held elsewhere', () => {
  it.each([
    ['is busy in another live process', new InterlockError('THREAD_BUSY', 'held')],
    ['was taken from this process, which froze past its claim', new InterlockError('STORE_CONFLICT', 'fenced')],
  ])('looks again a second after the current claim ends when the thread %s', async (_, failure) => {
    const store = await storeWith(['ask-1'], [interactionRecord({ interactionId: 'ask-1', status: 'responded' })]);
    const until = NOW + 5_000;
    const claimed = await store.claimThread(
      'thread-1',
      'other',
      new Date(until).toISOString(),
      new Date(NOW).toISOString(),
      1,
    );
    expect(claimed.status).toBe('claimed');
    const outcome = await new JobRunner(driver(failure), store, clock, planner).run(continueJob(thread, NOW));
    expect(outcome).toMatchObject({ status: 'retry', retryAt: until + 1_000 });
  });
});

describe('JobRunner: recoveries of the jobs a dead worker would keep', () => {
  it('schedules its own recovery before a recover job takes a thread left running forward', async () => {
    const store = new InMemoryCheckpointStore();
    await store.createThread(threadRecord({ status: 'running' }));
    await new JobRunner(driver(), store, clock, planner).run(recoverJob(thread, NOW));
    expect(await store.takeJobs(['workflow-a@1.0.0'], 'me', later, later, 10)).toEqual([
      expect.objectContaining({ kind: 'recover', runAt: new Date(NOW + 2 * LEASE_MS + 1_000).toISOString() }),
    ]);
  });

  it("schedules a recovery for a job it runs again later, due once that run's claim should have ended", async () => {
    const store = await storeWith(['ask-1'], [interactionRecord({ interactionId: 'ask-1', status: 'responded' })]);
    const outcome = await new JobRunner(driver(new InterlockError('THREAD_BUSY', 'held')), store, clock, planner).run(
      continueJob(thread, NOW),
    );
    expect(outcome).toMatchObject({ status: 'retry', retryAt: NOW + 1_000 });
    expect(await store.takeJobs(['workflow-a@1.0.0'], 'me', later, later, 10)).toEqual([
      expect.objectContaining({ kind: 'recover', runAt: new Date(NOW + 1_000 + 2 * LEASE_MS + 1_000).toISOString() }),
    ]);
  });
});
