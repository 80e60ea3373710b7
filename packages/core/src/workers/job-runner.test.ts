import { describe, expect, it } from 'vitest';
import { InterlockError } from '../errors/interlock-error.js';
import { InMemoryCheckpointStore } from '../persistence/memory/in-memory-checkpoint-store.js';
import type { InteractionRecord } from '../persistence/checkpoint-store.js';
import {
  committed,
  createThread,
  interactionRecord,
  present,
  response,
  save,
  threadRecord,
} from '../testing/conformance/store-records.js';
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
    escalate: async () => false,
  };
}

/** A waiting thread, waiting on `waitsOn`, with `interactions` stored beside it (asked, then answered, consumed or failed). */
async function storeWith(waitsOn: string[], interactions: InteractionRecord[]) {
  const store = new InMemoryCheckpointStore();
  await createThread(store, threadRecord({ status: 'waiting', pendingInteractionIds: waitsOn }));
  const at = '2026-01-02T03:59:00.000Z';
  for (const interaction of interactions) {
    const { interactionId, status } = interaction;
    await committed(store, { interactions: [{ kind: 'open', interaction: { ...interaction, status: 'pending' } }] });
    if (status === 'responded' || status === 'processed')
      await committed(store, {
        interactions: [{ kind: 'answer', interactionId, response: response({ approved: true }) }],
      });
    // An answer consumed apart from the save that applies it (as a store of an older version could leave it).
    if (status === 'processed') await committed(store, { interactions: [{ kind: 'consume', interactionId, at }] });
    if (status === 'failed')
      await committed(store, {
        interactions: [{ kind: 'fail', interactionId, reason: 'timeout', message: 'late', at }],
      });
    expect((await store.getInteraction(interactionId))?.status).toBe(status);
  }
  return store;
}

const thread = { threadId: 'thread-1', workflowId: 'workflow-a', workflowVersion: '1.0.0' };
const later = '2026-01-02T05:00:00.000Z';

describe('JobRunner: a recover job', () => {
  it.each([
    ['answered', 'responded'],
    ['answered, and marked processed while the thread still waits on it (left so by an older version)', 'processed'],
    ['timed out', 'failed'],
  ] as const)('takes a waiting thread forward when the interaction it waits on was %s', async (_, status) => {
    const store = await storeWith(['ask-1'], [interactionRecord({ interactionId: 'ask-1', status, deadline: later })]);
    const threads = driver();
    const outcome = await new JobRunner(threads, store, clock, planner).run(recoverJob(thread, NOW));
    // Told as recovered: the thread went through the recovery path (the bench counts these, issue 38).
    expect(outcome).toEqual({ status: 'done', note: 'recovered' });
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
    const stored = present(await store.getThread('thread-1'));
    await committed(store, {
      thread: save(
        stored,
        {},
        {
          kind: 'take',
          owner: 'other',
          until: new Date(until).toISOString(),
          now: new Date(NOW).toISOString(),
        },
      ),
    });
    expect((await store.getThread('thread-1'))?.lease).toEqual({
      owner: 'other',
      until: new Date(until).toISOString(),
    });
    const outcome = await new JobRunner(driver(failure), store, clock, planner).run(continueJob(thread, NOW));
    expect(outcome).toMatchObject({ status: 'retry', retryAt: until + 1_000 });
  });
});

describe('JobRunner: recoveries of the jobs a dead worker would keep', () => {
  it('schedules its own recovery before a recover job takes a thread left running forward', async () => {
    const store = new InMemoryCheckpointStore();
    await createThread(store, threadRecord({ status: 'running' }));
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

describe('JobRunner: a continuation that carries its thread (issue 38)', () => {
  it.each([
    ['stale (the store refused its first commit)', new InterlockError('STORE_CONFLICT', 'changed')],
    ['showing a claim that has ended since', new InterlockError('THREAD_BUSY', 'held')],
  ])('goes on from the copy, and when the copy is %s reads the thread again at once', async (_, failure) => {
    const store = await storeWith(['ask-1'], [interactionRecord({ interactionId: 'ask-1', status: 'responded' })]);
    const stored = present(await store.loadThread('thread-1'));
    const calls: (string | undefined)[] = [];
    const threads: ThreadDriver = {
      async resume(threadId, carried) {
        calls.push(carried === undefined ? `read ${threadId}` : `carried ${carried.thread.version}`);
        if (carried !== undefined) throw failure;
        return { done: async () => undefined };
      },
      escalate: async () => false,
    };
    const outcome = await new JobRunner(threads, store, clock, planner).run(continueJob(thread, NOW, stored));
    expect(outcome).toEqual({ status: 'done' });
    expect(calls).toEqual([`carried ${stored.thread.version}`, 'read thread-1']);
  });
});
