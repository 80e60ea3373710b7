import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { DataSource } from 'typeorm';
import { afterAll, describe, expect, it } from 'vitest';
import { InterlockError } from '../../errors/interlock-error.js';
import { describeConformance } from '../../testing/conformance/whole-conformance.js';
import type { ICheckpointStore } from '../checkpoint-store.js';
import { describeTypeormStoreBehaviour } from '../__fixtures__/store-behaviour.js';
import { committed, createThread, refused, saveOf } from '../../testing/conformance/commit-helpers.js';
import { interactionRecord, threadRecord, userMessage } from '../../testing/conformance/store-records.js';
import { continueJob, recoverJob, taskIdentifier } from '../../workers/thread-jobs.js';
import { openSqliteStore } from '../sqlite/open-sqlite-store.js';
import { STORE_MIGRATIONS } from '../sql/migrations/store-migrations.js';
import { postgresSchemas, testPostgresUrl } from './__fixtures__/postgres-harness.js';
import { createTypeormStore } from './create-typeorm-store.js';
import type { PostgresCheckpointStore } from './postgres-checkpoint-store.js';
import { STORE_ENTITIES } from './store-entities.js';

const url = testPostgresUrl('PostgreSQL store');
if (url !== undefined) describePostgresStore(url);

function describePostgresStore(url: string): void {
  const schemas = postgresSchemas(url);
  afterAll(() => schemas.dropAll());

  const openStore = () => schemas.open();
  const recycle = (store: ICheckpointStore) => schemas.recycle(store);
  describeConformance('PostgreSQL store', openStore, recycle);

  let schema = '';
  describeTypeormStoreBehaviour('PostgreSQL store', {
    async prepare() {
      schema = schemas.fresh();
    },
    open: () => createTypeormStore({ type: 'postgres', url, schema }),
    inspect: () =>
      new DataSource({
        type: 'postgres',
        url,
        schema,
        entities: STORE_ENTITIES,
        extra: { options: `-c search_path=${schema}` },
      }).initialize(),
    logMessageWritesSql: () => [
      `CREATE TABLE "${schema}"."message_writes" ("position" integer, "operation" text)`,
      `CREATE FUNCTION "${schema}"."log_message_write"() RETURNS trigger LANGUAGE plpgsql AS $$
       BEGIN
         IF TG_OP = 'DELETE' THEN
           INSERT INTO "${schema}"."message_writes" VALUES (OLD."position", 'delete');
         ELSE
           INSERT INTO "${schema}"."message_writes" VALUES (NEW."position", lower(TG_OP));
         END IF;
         RETURN NULL;
       END $$`,
      `CREATE TRIGGER "log_message_writes" AFTER INSERT OR UPDATE OR DELETE ON "${schema}"."messages"
       FOR EACH ROW EXECUTE FUNCTION "${schema}"."log_message_write"()`,
    ],
    table: (name) => `"${schema}"."${name}"`,
    async cleanup() {
      await schemas.admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await schemas.admin.query(`DROP SCHEMA IF EXISTS "${schema}_jobs" CASCADE`);
    },
  });

  describe('PostgreSQL store', () => {
    const opened: PostgresCheckpointStore[] = [];
    const open = async (schema = schemas.fresh(), poolSize?: number) => {
      const store = await createTypeormStore({ type: 'postgres', url, schema, ...(poolSize ? { poolSize } : {}) });
      opened.push(store);
      return store;
    };
    afterAll(async () => {
      for (const store of opened) await store.close();
    });

    it('commits a unit in one statement: one network round trip on a connection of its pool', async () => {
      const store = await open();
      await createThread(store, threadRecord());
      const pool = (store as unknown as { pool: pg.Pool }).pool;
      const connections = pool.totalCount;
      const sent: string[] = [];
      const query = pg.Client.prototype.query;
      pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
        sent.push(String(typeof args[0] === 'string' ? args[0] : (args[0] as { text?: string }).text));
        return (query as (...parameters: unknown[]) => unknown).apply(this, args);
      } as typeof query;
      try {
        const thread = (await store.getThread('thread-1'))!;
        sent.length = 0;
        await committed(store, {
          ...saveOf(thread, { status: 'waiting', conversation: [userMessage('a'), userMessage('b')] }),
          interactions: [{ kind: 'open', interaction: interactionRecord() }],
          globals: [{ kind: 'compare-and-set', scope: 'workflow-a', name: 'n', expected: undefined, value: 1 }],
          jobs: [continueJob(thread, Date.now())],
        });
        expect(sent).toHaveLength(1);
        expect(sent[0]).toMatch(/^SELECT "[^"]+"\."interlock_commit"\(\$1::jsonb\)/);
        sent.length = 0;
        expect((await store.loadThread('thread-1'))?.interactions).toHaveLength(1);
        expect(sent).toHaveLength(1);
      } finally {
        pg.Client.prototype.query = query;
      }
      expect(pool.totalCount).toBe(connections);
    });

    it('adds the jobs of a unit to the job queue, a job replacing a waiting one with its key', async () => {
      const store = await open();
      const schema = store.placement.jobsSchema;
      const thread = { threadId: 'thread-1', workflowId: 'workflow-a', workflowVersion: '1' };
      await committed(store, {
        jobs: [continueJob(thread, Date.parse('2030-01-01T00:00:00Z')), recoverJob(thread, 0)],
      });
      await committed(store, { jobs: [continueJob(thread, Date.parse('2031-01-01T00:00:00Z'))] });
      const jobs = await schemas.admin.query<{ key: string; task: string; payload: unknown; run_at: Date }>(
        `SELECT j.key, t.identifier AS task, j.payload, j.run_at FROM "${schema}"._private_jobs j
          JOIN "${schema}"._private_tasks t ON t.id = j.task_id ORDER BY j.key`,
      );
      expect(jobs.rows).toEqual([
        {
          key: 'continue:thread-1',
          task: taskIdentifier('workflow-a@1'),
          payload: {
            kind: 'continue',
            threadId: 'thread-1',
            workflowId: 'workflow-a@1',
            runAt: '2031-01-01T00:00:00.000Z',
            key: 'continue:thread-1',
          },
          run_at: new Date('2031-01-01T00:00:00Z'),
        },
        expect.objectContaining({ key: 'recover:thread-1', run_at: new Date(0) }),
      ]);
      // A unit that ends the thread drops its recovery (issue 38); other jobs stay.
      await committed(store, { dropJobs: ['recover:thread-1', 'no-such-job'] });
      const left = await schemas.admin.query<{ key: string }>(`SELECT key FROM "${schema}"._private_jobs ORDER BY key`);
      expect(left.rows).toEqual([{ key: 'continue:thread-1' }]);
    });

    it("adds to a job that names a scope every live approval remembered in it, its own unit's too (issue 38)", async () => {
      const store = await open();
      const schema = store.placement.jobsSchema;
      const later = Date.now() + 3_600_000;
      const remembered = (key: string, scope: string, expiresAt = later) => ({ key, expiresAt, scope });
      await createThread(store, threadRecord());
      await committed(store, {
        remember: [remembered('k-old', 'S'), remembered('k-expired', 'S', Date.now() - 1), remembered('k-other', 'T')],
      });
      const job = (threadId: string, scope: string) => ({
        ...continueJob({ threadId, workflowId: 'workflow-a', workflowVersion: '1' }, Date.now()),
        rememberedScope: scope,
      });
      await committed(store, { remember: [remembered('k-new', 'S')], jobs: [job('thread-1', 'S')] });
      // A scope with more than a job carries: the worker reads what it needs.
      const many = Array.from({ length: 65 }, (_, i) => remembered(`k-many-${i}`, 'U'));
      await committed(store, { remember: many, jobs: [job('thread-2', 'U'), job('thread-3', 'V')] });
      // A unit refused for a conflict remembers nothing, and adds no job.
      expect(
        await refused(store, { ...saveOf(threadRecord({ version: 7 })), remember: [remembered('k-refused', 'S')] }),
      ).toMatchObject({ kind: 'thread-changed' });

      const payloads = await schemas.admin.query<{ key: string; payload: { remembered?: unknown } }>(
        `SELECT key, payload FROM "${schema}"._private_jobs ORDER BY key`,
      );
      expect(payloads.rows.map(({ key, payload }) => [key, payload.remembered])).toEqual([
        ['continue:thread-1', { scope: 'S', entries: { 'k-old': later, 'k-new': later } }],
        ['continue:thread-2', undefined],
        ['continue:thread-3', { scope: 'V', entries: {} }],
      ]);
      const rows = await schemas.admin.query<{ key: string; scope: string }>(
        `SELECT key, scope FROM "${store.placement.schema}".remembered_approvals WHERE key IN ('k-old', 'k-refused')`,
      );
      expect(rows.rows).toEqual([{ key: 'k-old', scope: 'S' }]);
    });

    it('lets exactly one of two stores commit a thread at one version, and takes one answer', async () => {
      const shared = schemas.fresh();
      const [first, second] = await Promise.all([open(shared), open(shared)]);
      await createThread(first!, threadRecord());
      await committed(first!, { interactions: [{ kind: 'open', interaction: interactionRecord() }] });
      for (let round = 0; round < 10; round += 1) {
        const current = (await first!.getThread('thread-1'))!;
        const results = await Promise.all([
          first!.commit(saveOf(current, { steps: current.steps + 1 })),
          second!.commit(saveOf(current, { steps: current.steps + 100 })),
        ]);
        expect(results.filter((result) => result.status === 'committed')).toHaveLength(1);
      }
      expect((await second!.getThread('thread-1'))?.version).toBe(11);
      const answers = await Promise.all(
        [first!, second!, first!, second!].map((store, index) =>
          store.commit({
            interactions: [
              {
                kind: 'answer',
                interactionId: 'interaction-1',
                response: { input: index, responder: `approver-${index}`, respondedAt: '2026-01-02T03:04:30.000Z' },
              },
            ],
          }),
        ),
      );
      expect(answers.filter((answer) => answer.status === 'committed')).toHaveLength(1);
      expect(await refused(first!, saveOf(threadRecord({ version: 1 })))).toMatchObject({ storedVersion: 11 });
    });

    it('lets several stores open a new schema at once: the migrations (and the job queue’s) run once', async () => {
      const shared = schemas.fresh();
      const stores = await Promise.all(Array.from({ length: 6 }, () => open(shared, 2)));
      await createThread(stores[0]!, threadRecord());
      for (const store of stores) expect((await store.getThread('thread-1'))?.version).toBe(1);
      const migrations = await schemas.admin.query<{ name: string }>(
        `SELECT name FROM "${shared}"."interlock_migrations" ORDER BY id`,
      );
      expect(migrations.rows.map((row) => row.name)).toEqual(STORE_MIGRATIONS.map((migration) => new migration().name));
      expect(
        (await schemas.admin.query(`SELECT 1 FROM pg_namespace WHERE nspname = $1`, [`${shared}_jobs`])).rowCount,
      ).toBe(1);
    });

    it('leaves the commit function out of SQLite, whose store applies units itself', async () => {
      const directory = mkdtempSync(join(tmpdir(), 'interlock-sqlite-'));
      try {
        const store = await openSqliteStore({ path: join(directory, 'interlock.db') });
        await createThread(store, threadRecord());
        expect((await store.getThread('thread-1'))?.version).toBe(1);
        await store.close();
      } finally {
        rmSync(directory, { recursive: true, force: true });
      }
    });

    it('bounds its pool: poolSize connections at most, and refuses a size it cannot work with', async () => {
      const store = await open(schemas.fresh(), 3);
      await createThread(store, threadRecord());
      await Promise.all(Array.from({ length: 30 }, () => store.loadThread('thread-1')));
      expect((store as unknown as { pool: pg.Pool }).pool.totalCount).toBeLessThanOrEqual(3);
      for (const poolSize of [1, 0, 2.5, 1_001]) {
        await expect(createTypeormStore({ type: 'postgres', url, poolSize })).rejects.toMatchObject({
          code: 'INVALID_OPTIONS',
          message: expect.stringContaining('poolSize'),
        });
      }
    });

    it('says which database it cannot reach, without the password', async () => {
      const error: unknown = await createTypeormStore({
        type: 'postgres',
        url: 'postgres://someone:s3cret@127.0.0.1:1/nowhere',
      }).catch((reason: unknown) => reason);
      expect(error).toMatchObject({
        code: 'INVALID_OPTIONS',
        message: expect.stringContaining('postgres://someone:***@127.0.0.1:1/nowhere'),
      });
      expect(InterlockError.is(error) && error.message).not.toContain('s3cret');
    });

    it('refuses a schema name that is not a plain identifier, and points a SQLite caller to openStore', async () => {
      await expect(
        createTypeormStore({ type: 'postgres', url, schema: 'bad"; DROP TABLE x; --' }),
      ).rejects.toMatchObject({
        code: 'INVALID_OPTIONS',
      });
      const options = { type: 'sqlite', path: ':memory:' } as unknown as Parameters<typeof createTypeormStore>[0];
      await expect(createTypeormStore(options)).rejects.toMatchObject({
        code: 'INVALID_OPTIONS',
        message: expect.stringContaining("openStore({ type: 'sqlite', path })"),
      });
    });
  });
}
