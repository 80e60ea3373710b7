import pg from 'pg';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { postgresSchemas, testPostgresUrl } from '../persistence/typeorm/__fixtures__/postgres-harness.js';
import { until } from '../testing/until.js';
import { GraphileJobConsumer, type JobReport } from './job-consumers.js';
import { continueJob, recoverJob, type ThreadJob } from './thread-jobs.js';

/*
 * Worker processes on one job queue (issue 38): graphile-worker's local queue takes a new job
 * when the unit of work that added it announces it (jobs:insert), not at its next poll; a job
 * due later, or added by other code, is found by a poll and reported so. Each consumer has
 * its own pool and listening connection, as a worker process has.
 */

const url = testPostgresUrl('the workers’ job queue');
if (url !== undefined) describeQueue(url);

/** Counts graphile-worker's job fetches, and those that found no job, in this process. */
function countFetches() {
  const counts = { fetches: 0, empty: 0 };
  const query = pg.Client.prototype.query;
  pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
    const text = typeof args[0] === 'object' && args[0] !== null ? (args[0] as { text?: string }).text : args[0];
    const result = (query as (...parameters: unknown[]) => unknown).apply(this, args);
    if (typeof text === 'string' && text.includes('attempts = jobs.attempts + 1') && result instanceof Promise) {
      counts.fetches += 1;
      void result.then(
        (answer: pg.QueryResult) => {
          if (answer.rowCount === 0) counts.empty += 1;
        },
        () => undefined,
      );
    }
    return result;
  } as typeof query;
  return { counts, restore: () => void (pg.Client.prototype.query = query) };
}

function describeQueue(url: string): void {
  const schemas = postgresSchemas(url);
  const closers: (() => Promise<unknown>)[] = [];
  afterEach(async () => {
    for (const close of closers.splice(0).reverse()) await close();
  });
  afterAll(() => schemas.dropAll());

  /** A store and `count` worker processes of concurrency 8 on its job queue, polling every `pollMs`; `work` runs each job. */
  async function workers(count: number, pollMs: number, work: (job: ThreadJob) => Promise<void>) {
    const store = await schemas.open();
    closers.push(() => store.close());
    const schema = store.placement.jobsSchema;
    // Installed first: each consumer's pool takes pg's query as it is when it starts.
    const fetches = countFetches();
    closers.push(async () => fetches.restore());
    const reports: JobReport[] = [];
    for (let index = 0; index < count; index += 1) {
      const consumer = new GraphileJobConsumer(
        { url, schema },
        ['workflow-a@1'],
        async (job) => (await work(job), { status: 'done' }),
        {
          concurrency: 8,
          pollMs,
          poolSize: 9,
          onFailure: (_job, error) => {
            throw error;
          },
          onJob: (report) => reports.push(report),
        },
      );
      await consumer.start();
      closers.push(() => consumer.stop());
    }
    fetches.counts.fetches = 0;
    fetches.counts.empty = 0;
    return { store, schema, counts: fetches.counts, reports };
  }

  describe('the workers’ job queue', () => {
    it('takes each new job when its unit announces it, in whichever of four processes, never waiting for a poll', async () => {
      const ran: ThreadJob[] = [];
      let next: (() => void) | undefined;
      // A poll every minute: only the announcements can take these jobs in time.
      const { store, counts, reports } = await workers(4, 60_000, async (job) => {
        ran.push(job);
        next?.();
      });
      const trips = 40;
      for (let trip = 0; trip < trips; trip += 1) {
        const thread = { threadId: `thread-${trip}`, workflowId: 'workflow-a', workflowVersion: '1' };
        const done = new Promise<void>((resolve) => (next = resolve));
        await store.commit({ jobs: [continueJob(thread, Date.now()), recoverJob(thread, Date.now() + 3_600_000)] });
        await done;
      }
      process.stdout.write(
        `job queue: ${trips} jobs one at a time to four processes, ${counts.fetches} fetches, ${counts.empty} empty\n`,
      );
      expect(ran.map((job) => job.kind)).toEqual(Array.from({ length: trips }, () => 'continue'));
      await until(
        'every job reported',
        () => reports.length,
        (length) => length === trips,
      );
      expect(reports.filter((report) => report.byPoll)).toEqual([]);
    }, 60_000);

    it('runs jobs added by other code, several at once, and a job that comes due later (found by a poll)', async () => {
      const ran: ThreadJob[] = [];
      let running = 0;
      let most = 0;
      let backlogRan: () => void = () => undefined;
      const backlog = new Promise<void>((resolve) => (backlogRan = resolve));
      let twoRan: () => void = () => undefined;
      const twoAtOnce = new Promise<void>((resolve) => (twoRan = resolve));
      const { store, schema, reports } = await workers(2, 200, async (job) => {
        running += 1;
        most = Math.max(most, running);
        if (running > 1) twoRan();
        // The first jobs of the backlog hold their worker until another job runs beside them:
        // workers that took one job at a time would never get past this (and the test times out).
        if (job.threadId !== 'later') await twoAtOnce;
        running -= 1;
        ran.push(job);
        if (ran.length === 30) backlogRan();
      });
      // Added by something else than a unit of work: graphile-worker announces them itself.
      await schemas.admin.query(
        `SELECT "${schema}".add_job('interlock:workflow-a@1', json_build_object('kind', 'continue', 'threadId', 'other-' || i, 'workflowId', 'workflow-a@1', 'key', 'k' || i))
          FROM generate_series(1, 30) AS i`,
      );
      await backlog;
      expect(ran.map((job) => job.threadId).sort()).toEqual(
        Array.from({ length: 30 }, (_, index) => `other-${index + 1}`).sort(),
      );
      expect(most).toBeGreaterThan(1);
      // Once the queue is idle: announced well before it is due, only a poll finds it when it
      // is (with the backlog still running, a fetch for more work could find it first). Three
      // seconds, not one: on a loaded machine (CI's Node 22 run) the announcement was once
      // handled after a second, and its fetch found the job due.
      await store.commit({
        jobs: [continueJob({ threadId: 'later', workflowId: 'workflow-a', workflowVersion: '1' }, Date.now() + 3_000)],
      });
      await until(
        'every job reported',
        () => reports.length,
        (length) => length === 31,
      );
      expect(ran.at(-1)?.threadId).toBe('later');
      expect(reports.find((report) => report.job.threadId === 'later')?.byPoll).toBe(true);
    }, 60_000);
  });
}
