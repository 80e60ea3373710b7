import pg from 'pg';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { postgresSchemas, testPostgresUrl } from '../persistence/typeorm/__fixtures__/postgres-harness.js';
import { GraphileJobConsumer } from './job-consumers.js';
import { continueJob, recoverJob, type ThreadJob } from './thread-jobs.js';

/*
 * Several worker processes on one job queue (issue 27): graphile-worker wakes every
 * process that listens at each new job, and each fetches. Here four consumers, each with
 * its own pool and listening connection as a worker process has, take jobs one round trip
 * at a time; the fetches that find nothing are counted from the statements sent.
 */

const url = testPostgresUrl('job queue nudges');
if (url !== undefined) describeNudges(url);

/** Counts graphile-worker's job fetches, and those that found no job, in this process. */
function countFetches() {
  const counts = { fetches: 0, empty: 0 };
  const query = pg.Client.prototype.query;
  pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
    const text = typeof args[0] === 'object' && args[0] !== null ? (args[0] as { text?: string }).text : args[0];
    const result = (query as (...parameters: unknown[]) => unknown).apply(this, args);
    if (
      typeof text === 'string' &&
      text.includes('set\n      attempts = jobs.attempts + 1') &&
      result instanceof Promise
    ) {
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

function describeNudges(url: string): void {
  const schemas = postgresSchemas(url);
  const closers: (() => Promise<unknown>)[] = [];
  afterEach(async () => {
    for (const close of closers.splice(0).reverse()) await close();
  });
  afterAll(() => schemas.dropAll());

  /** A store and `count` worker processes of concurrency 8 on its job queue; `work` runs each job. */
  async function workers(count: number, work: (job: ThreadJob) => Promise<void>) {
    const store = await schemas.open();
    closers.push(() => store.close());
    const schema = store.placement.jobsSchema;
    // Installed first: each consumer's pool takes pg's query as it is when it starts.
    const fetches = countFetches();
    closers.push(async () => fetches.restore());
    for (let index = 0; index < count; index += 1) {
      const consumer = new GraphileJobConsumer(
        { url, schema },
        ['workflow-a@1'],
        async (job) => (await work(job), { status: 'done' }),
        {
          concurrency: 8,
          pollMs: 500,
          poolSize: 9,
          onFailure: (_job, error) => {
            throw error;
          },
        },
      );
      await consumer.start();
      closers.push(() => consumer.stop());
    }
    fetches.counts.fetches = 0;
    fetches.counts.empty = 0;
    return { store, schema, counts: fetches.counts };
  }

  describe('job queue nudges', () => {
    it('has one of four idle worker processes fetch each new job, and none fetch for a job due later', async () => {
      const ran: ThreadJob[] = [];
      let next: (() => void) | undefined;
      const { store, counts } = await workers(4, async (job) => {
        ran.push(job);
        next?.();
      });
      const trips = 40;
      const started = performance.now();
      for (let trip = 0; trip < trips; trip += 1) {
        const thread = { threadId: `thread-${trip}`, workflowId: 'workflow-a', workflowVersion: '1' };
        const done = new Promise<void>((resolve) => (next = resolve));
        await store.commit({ jobs: [continueJob(thread, Date.now()), recoverJob(thread, Date.now() + 3_600_000)] });
        await done;
      }
      const seconds = (performance.now() - started) / 1000;
      // Idle processes also look once per pollMs each: those fetches are the floor.
      process.stdout.write(
        `job queue nudges: ${trips} round trips in ${seconds.toFixed(1)} s, ${counts.fetches} fetches, ${counts.empty} empty (${(counts.empty / trips).toFixed(2)} per round trip)\n`,
      );
      expect(ran.map((job) => job.kind)).toEqual(Array.from({ length: trips }, () => 'continue'));
      expect(counts.empty / trips).toBeLessThan(1);
    }, 60_000);

    it('runs a job that comes due later, and jobs added without an announcement, several at once', async () => {
      const ran: ThreadJob[] = [];
      let running = 0;
      let most = 0;
      let allRan: () => void = () => undefined;
      const everyJob = new Promise<void>((resolve) => (allRan = resolve));
      let twoRan: () => void = () => undefined;
      const twoAtOnce = new Promise<void>((resolve) => (twoRan = resolve));
      const { store, schema } = await workers(2, async (job) => {
        running += 1;
        most = Math.max(most, running);
        if (running > 1) twoRan();
        // The first jobs of the backlog hold their worker until another job runs beside them:
        // workers that took one job at a time would never get past this (and the test times out).
        if (job.threadId !== 'later') await twoAtOnce;
        running -= 1;
        ran.push(job);
        if (ran.length === 31) allRan();
      });
      await store.commit({
        jobs: [continueJob({ threadId: 'later', workflowId: 'workflow-a', workflowVersion: '1' }, Date.now() + 300)],
      });
      // Added by something else than a unit of work: graphile-worker's own announcement only.
      await schemas.admin.query(
        `SELECT "${schema}".add_job('interlock:workflow-a@1', json_build_object('kind', 'continue', 'threadId', 'other-' || i, 'workflowId', 'workflow-a@1', 'key', 'k' || i))
          FROM generate_series(1, 30) AS i`,
      );
      await everyJob;
      expect(ran.map((job) => job.threadId).sort()).toEqual(
        ['later', ...Array.from({ length: 30 }, (_, index) => `other-${index + 1}`)].sort(),
      );
      expect(most).toBeGreaterThan(1);
    }, 60_000);
  });
}
