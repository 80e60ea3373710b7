import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { checkReadiness, storeReadiness } from '../../health/readiness.js';
import { createInterlock, type Interlock } from '../../interlock.js';
import { openStore } from '../../interlock-store.js';
import type { StoreOptions } from '../open-store.js';
import { ownDatabase, type OwnDatabase } from '../../testing/own-database.js';
import { until } from '../../testing/until.js';
import { continueJob } from '../../workers/thread-jobs.js';
import { createWorker, type InterlockWorker } from '../../workers/worker.js';
import { testPostgresUrl } from './__fixtures__/postgres-harness.js';
import { placementOf } from './postgres-placement.js';

/*
 * The store on its defaults (issue 34, F38, F46, F55): every other PostgreSQL test isolates
 * itself in a schema of its own, so the path a newcomer takes — a plain URL, no schema — was
 * never run, and there the commit function queued jobs where the store had not installed the
 * queue. Here each case has a database of its own, so `public` is really the default.
 */

const WORKFLOW = fileURLToPath(new URL('./__fixtures__/upgrade-note.toml', import.meta.url));
const DUMP = fileURLToPath(new URL('./__fixtures__/store-9d6bb1f.sql', import.meta.url));
const baseUrl = testPostgresUrl('PostgreSQL store on its defaults');
const databases: OwnDatabase[] = [];
const closers: (() => Promise<void>)[] = [];

afterAll(async () => {
  for (const close of closers.splice(0).reverse()) await close().catch(() => undefined);
  for (const database of databases.splice(0)) await database.drop();
});

async function database(label: string): Promise<OwnDatabase> {
  const made = await ownDatabase(baseUrl ?? '', label);
  databases.push(made);
  return made;
}

async function sql<Row extends object>(url: string, text: string, parameters: unknown[] = []): Promise<Row[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<Row>(text, parameters)).rows;
  } finally {
    await client.end();
  }
}

async function worker(store: StoreOptions & { type: 'postgres' }): Promise<InterlockWorker> {
  const started = await createWorker({ store, workflows: [WORKFLOW], concurrency: 2 });
  closers.push(() => started.stop());
  return started;
}

async function answerer(store: StoreOptions): Promise<Interlock> {
  const interlock = await createInterlock({ store, continueIn: 'workers' });
  closers.push(() => interlock.close());
  await interlock.loadWorkflow(WORKFLOW);
  return interlock;
}

/** Starts a thread in `asker`, answers its question there, and waits for a worker to finish it. */
async function answeredAndFinished(asker: Interlock, note: string): Promise<string> {
  const thread = await asker.start('upgrade-note', { channel: 'inbox' });
  expect(await thread.done()).toMatchObject({ status: 'waiting' });
  return finished(asker, thread.threadId, note);
}

async function finished(asker: Interlock, threadId: string, note: string): Promise<string> {
  const [question] = (await asker.pending()).filter((pending) => pending.threadId === threadId);
  expect(await asker.respond(question?.interactionId ?? '', note)).toMatchObject({
    status: 'accepted',
    continuation: { status: 'scheduled' },
  });
  const done = await until(
    'a worker to finish the thread',
    async () => (await asker.threads({ status: 'completed' })).find((record) => record.threadId === threadId),
    (record) => record !== undefined,
  );
  return String(done?.output ?? '');
}

if (baseUrl !== undefined) {
  describe('PostgreSQL store on its defaults: a database of its own (issue 34, F38, F46)', () => {
    it('on a plain URL keeps its tables in public and its job queue in public_jobs; a thread that continues in workers starts, is answered and finished by createWorker', async () => {
      const { url } = await database('plain');
      const store = await openStore({ type: 'postgres', url });
      closers.push(() => store.close());
      expect(placementOf(store)).toEqual({ schema: 'public', jobsSchema: 'public_jobs' });
      const installed = await sql<{ schema: string }>(
        url,
        `SELECT table_schema AS schema FROM information_schema.tables WHERE table_name IN ('threads', '_private_jobs') ORDER BY 1`,
      );
      expect(installed.map((row) => row.schema)).toEqual(['public', 'public_jobs']);
      expect(await checkReadiness(storeReadiness(store, { type: 'postgres', url }, { jobQueue: true }).checks)).toEqual(
        {
          ready: true,
          checks: [
            { name: 'store', ok: true },
            { name: 'migrations', ok: true },
            { name: 'jobQueue', ok: true },
          ],
        },
      );

      // Where to look is the store's to say: a store that does not is not ready, never guessed at.
      const unplaced = { getGlobalVariables: (scope: string) => store.getGlobalVariables(scope) };
      expect(
        (await checkReadiness(storeReadiness(unplaced, { type: 'postgres', url }).checks)).checks[1],
      ).toMatchObject({ name: 'migrations', ok: false, reason: expect.stringContaining('does not say where') });

      await worker({ type: 'postgres', url });
      expect(await answeredAndFinished(await answerer({ type: 'postgres', url }), 'plain')).toBe('plain');
      // ?schema=public is the same place: the same tables, the same queue.
      const same = await answerer({ type: 'postgres', url: `${url}?schema=public` });
      expect(await answeredAndFinished(same, 'named public')).toBe('named public');
      expect(await sql(url, `SELECT count(*)::int AS threads FROM public.threads`)).toEqual([{ threads: 2 }]);
    });

    it("on a plain URL carries a scope's remembered approvals with the job that names it (issue 38)", async () => {
      const { url } = await database('remembered');
      const store = await openStore({ type: 'postgres', url });
      closers.push(() => store.close());
      const later = Date.now() + 3_600_000;
      const thread = { threadId: 'thread-1', workflowId: 'elsewhere', workflowVersion: '1' };
      const result = await store.commit({
        remember: [{ key: 'k', expiresAt: later, scope: 'S' }],
        jobs: [{ ...continueJob(thread, later), rememberedScope: 'S' }],
      });
      expect(result.status).toBe('committed');
      expect(await sql(url, 'SELECT "key", "scope" FROM public.remembered_approvals')).toEqual([
        { key: 'k', scope: 'S' },
      ]);
      const [job] = await sql<{ payload: { remembered?: unknown } }>(
        url,
        'SELECT payload FROM public_jobs._private_jobs',
      );
      expect(job?.payload.remembered).toEqual({ scope: 'S', entries: { k: later } });
    });

    it('with ?schema= in the URL, or the schema option, keeps both apart from public; the worker reads its queue from its store', async () => {
      const { url } = await database('named');
      for (const store of [
        { type: 'postgres', url: `${url}?schema=team` },
        { type: 'postgres', url, schema: 'crew' },
      ] as const) {
        await worker(store);
        expect(await answeredAndFinished(await answerer(store), 'named')).toBe('named');
      }
      const threads = await sql<{ schema: string; threads: number }>(
        url,
        `SELECT 'team' AS schema, count(*)::int AS threads FROM team.threads
          UNION ALL SELECT 'crew', count(*)::int FROM crew.threads`,
      );
      expect(threads).toEqual([
        { schema: 'team', threads: 1 },
        { schema: 'crew', threads: 1 },
      ]);
      expect(
        (
          await sql<{ name: string }>(
            url,
            `SELECT nspname AS name FROM pg_namespace WHERE nspname LIKE '%jobs' ORDER BY 1`,
          )
        ).map((row) => row.name),
      ).toEqual(['crew_jobs', 'team_jobs']);
    });

    it("without a schema follows the database's search_path, read once as it opens, and says so when it names none that exists", async () => {
      const { url, name } = await database('search_path');
      await sql(url, 'CREATE SCHEMA app');
      await sql(url, `ALTER DATABASE "${name}" SET search_path = app, public`);
      await worker({ type: 'postgres', url });
      const asker = await answerer({ type: 'postgres', url });
      expect(placementOf((await openStoreClosed(url)).store)).toEqual({ schema: 'app', jobsSchema: 'app_jobs' });
      expect(await answeredAndFinished(asker, 'in app')).toBe('in app');
      expect(await sql(url, `SELECT count(*)::int AS threads FROM app.threads`)).toEqual([{ threads: 1 }]);

      await sql(url, `ALTER DATABASE "${name}" SET search_path = nowhere`);
      await expect(openStore({ type: 'postgres', url })).rejects.toMatchObject({
        code: 'INVALID_OPTIONS',
        message: expect.stringContaining('search_path names no schema that exists'),
      });
    });
  });

  describe('a database the release before migrated on a plain URL (9d6bb1f, issue 34)', () => {
    it('is repaired as the new release opens it: the question asked before is answered and finished by a worker, and new threads start', async () => {
      const { url } = await database('upgrade');
      // The dump as pg_dump wrote it; psql's meta-commands (\restrict) left out.
      const dump = (await readFile(DUMP, 'utf8'))
        .split('\n')
        .filter((line) => !line.startsWith('\\'))
        .join('\n');
      await sql(url, dump);
      const before = await sql<{ definition: string }>(
        url,
        `SELECT pg_get_functiondef('public.interlock_apply(jsonb)'::regprocedure) AS definition`,
      );
      expect(before[0]?.definition).toContain('"public_jobs".add_job');
      expect(await sql(url, `SELECT 1 FROM pg_namespace WHERE nspname = 'public_jobs'`)).toEqual([]);

      await worker({ type: 'postgres', url });
      const asker = await answerer({ type: 'postgres', url });
      expect(await finished(asker, 'asked-before-the-upgrade', 'answered after')).toBe('answered after');
      expect(await answeredAndFinished(asker, 'started after')).toBe('started after');

      // The repair ran (later migrations may run after it).
      const migrations = await sql<{ name: string }>(
        url,
        "SELECT name FROM public.interlock_migrations WHERE name LIKE 'RepairJobQueueSchema%'",
      );
      expect(migrations).toEqual([{ name: 'RepairJobQueueSchema1796515200000' }]);
      const after = await sql<{ definition: string }>(
        url,
        `SELECT pg_get_functiondef('public.interlock_apply(jsonb)'::regprocedure) AS definition`,
      );
      expect(after[0]?.definition).toContain('"public_jobs".add_job');
      // The queue the release before installed is left alone: it may be another application's.
      expect(await sql(url, `SELECT max(id) AS id FROM graphile_worker.migrations`)).toEqual([{ id: 18 }]);
    });

    it('puts a commit function right whatever schema it queued jobs in', async () => {
      const { url } = await database('elsewhere');
      await (await openStore({ type: 'postgres', url })).close();
      const definition = async () =>
        (
          await sql<{ definition: string }>(
            url,
            `SELECT pg_get_functiondef('public.interlock_apply(jsonb)'::regprocedure) AS definition`,
          )
        )[0]?.definition ?? '';
      await sql(url, (await definition()).replaceAll('public_jobs', 'elsewhere_jobs'));
      await sql(url, `DELETE FROM public.interlock_migrations WHERE name = 'RepairJobQueueSchema1796515200000'`);
      expect(await definition()).toContain('"elsewhere_jobs".add_job');

      await worker({ type: 'postgres', url });
      expect(await definition()).toContain('"public_jobs".add_job');
      expect(await answeredAndFinished(await answerer({ type: 'postgres', url }), 'put right')).toBe('put right');
    });
  });
}

/** A store opened and closed at once, for what it resolved as it opened. */
async function openStoreClosed(url: string) {
  const store = await openStore({ type: 'postgres', url });
  await store.close();
  return { store };
}
