import pg from 'pg';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { dropSchemas } from '../__fixtures__/postgres-schemas.js';
import { askNode, linearWorkflow } from '../__fixtures__/workflows.js';
import { createInterlock, createWorker, openStore, servedWorkflows, type Interlock } from '../index.js';
import { testPostgresUrl } from '../persistence/typeorm/__fixtures__/postgres-harness.js';
import { until } from '../testing/until.js';
import type { ThreadJob } from './thread-jobs.js';

/*
 * Deployments that share one PostgreSQL database, each in its own schema (issue 12). The job
 * queue announces the migration of a schema to the whole database: a deployment installed
 * beside a running one must not stop the running one's workers.
 */

const url = testPostgresUrl('deployments sharing one PostgreSQL database (issue 12)');
const run = `interlock_shared_${process.pid}_${Date.now().toString(36)}`;
const schemas: string[] = [];
const closers: (() => Promise<unknown>)[] = [];

afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});
afterAll(() => dropSchemas(url, schemas));

/** Asks for a message, then ends with it. */
const ECHO = linearWorkflow([askNode()], { id: 'echo' });

function storeIn(schema: string) {
  schemas.push(schema);
  return { type: 'postgres' as const, url: url ?? '', schema };
}

/** A worker serving ECHO and an answerer, on one schema; `failures` collects what the worker reports. */
async function echoDeployment(schema: string) {
  const store = storeIn(schema);
  const failures: string[] = [];
  const worker = await createWorker({
    store,
    workflows: [ECHO],
    pollMs: 100,
    // Its offer of the workflow runs out 3 s after it stops renewing it.
    leaseMs: 3_000,
    onJobFailure: (job: ThreadJob, error) => failures.push(`${job.key}: ${String(error)}`),
  });
  closers.push(() => worker.stop());
  const opened = await openStore(store);
  const answerer = await createInterlock({
    store: { type: 'custom', store: opened },
    continueIn: 'workers-only',
    recoverOnStart: false,
  });
  closers.push(() => answerer.close());
  answerer.registerWorkflow(ECHO);
  return { answerer, failures, store: opened };
}

/** Starts a thread from an answerer, waits for its question, answers it, and waits for the end. */
async function roundTrip(answerer: Interlock, said: string): Promise<unknown> {
  const handle = await answerer.start('echo');
  const [question] = await until(
    'the worker to ask',
    async () => (await answerer.pending()).filter((request) => request.threadId === handle.threadId),
    (pending) => pending.length > 0,
    15_000,
  );
  await answerer.respond(question?.interactionId ?? '', said);
  const thread = await until(
    'the worker to finish the thread',
    () => answerer.thread(handle.threadId),
    (found) => found?.status === 'completed' || found?.status === 'failed',
    15_000,
  );
  return thread?.output;
}

if (url !== undefined)
  describe('deployments sharing one PostgreSQL database (issue 12)', () => {
    it('keeps a worker taking jobs after another deployment installs its queue in a new schema', async () => {
      const { answerer, failures } = await echoDeployment(`${run}_a`);
      expect(await roundTrip(answerer, 'before')).toBe('before');

      // A second deployment on the same database: installing its queue announces breaking migrations.
      // The round trip below starts once the announcement went out (the worker hears the same one).
      const listener = new pg.Client({ connectionString: url });
      await listener.connect();
      const announced: string[] = [];
      listener.on('notification', (message) => announced.push(message.payload ?? ''));
      try {
        await listener.query('LISTEN "worker:migrate"');
        const other = await openStore(storeIn(`${run}_b`));
        await other.close();
        await until(
          'the migration to be announced',
          async () => announced,
          (heard) => heard.length > 0,
          15_000,
        );
      } finally {
        await listener.end();
      }

      expect(await roundTrip(answerer, 'after')).toBe('after');
      expect(failures).toEqual([]);
      expect(process.exitCode).not.toBe(57);
    }, 60_000);

    it("stops taking jobs and offering its workflows when its own queue's schema is migrated past its version, says so, and goes on once it is compatible again", async () => {
      const schema = `${run}_c`;
      const { answerer, failures, store } = await echoDeployment(schema);
      expect(await roundTrip(answerer, 'before')).toBe('before');
      expect((await servedWorkflows(store, Date.now())).map((served) => served.workflowId)).toEqual(['echo']);

      // What a newer version's breaking migration of this very schema looks like to the running worker.
      const admin = new pg.Client({ connectionString: url });
      await admin.connect();
      try {
        await admin.query(`INSERT INTO "${schema}_jobs".migrations (id, breaking) VALUES (999999, true)`);
        await admin.query(`SELECT pg_notify('worker:migrate', '{"migrationNumber":999999,"breaking":true}')`);
        await until(
          'the worker to refuse the newer schema',
          async () => failures,
          (seen) => seen.some((failure) => failure.includes('unsafe to continue')),
          15_000,
        );
        const handle = await answerer.start('echo');
        // It no longer offers the workflow once its offer ran out: answerers do not count on it.
        await until(
          'the offer to run out',
          () => servedWorkflows(store, Date.now()),
          (served) => served.length === 0,
          30_000,
        );
        // All that while (the rest of its offer, seconds), it took no job: the thread was never taken to its question.
        expect((await answerer.thread(handle.threadId))?.pendingInteractionIds).toEqual([]);

        // Compatible again (the newer version rolled back): the worker takes jobs, and offers, by itself.
        await admin.query(`DELETE FROM "${schema}_jobs".migrations WHERE id = 999999`);
        await until(
          'the worker to take the waiting thread',
          async () => (await answerer.pending()).filter((request) => request.threadId === handle.threadId),
          (pending) => pending.length > 0,
          30_000,
        );
        await until(
          'the workflow to be offered again',
          async () => (await servedWorkflows(store, Date.now())).map((served) => served.workflowId),
          (served) => served.includes('echo'),
          15_000,
        );
      } finally {
        await admin.end();
      }
      expect(await roundTrip(answerer, 'after')).toBe('after');
      expect(process.exitCode).not.toBe(57);
    }, 90_000);
  });
