import pg from 'pg';
import { DataSource } from 'typeorm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InterlockError } from '../../errors/interlock-error.js';
import { threadRecord, interactionRecord } from '../../testing/conformance/store-records.js';
import type { ICheckpointStore } from '../checkpoint-store.js';
import { describeStoreConformance } from '../../testing/conformance/store-conformance.js';
import { describeAuditAndMemoryConformance } from '../../testing/conformance/audit-conformance.js';
import { describeLeaseConformance } from '../../testing/conformance/claim-conformance.js';
import { createTypeormStore } from './create-typeorm-store.js';
import { STORE_ENTITIES } from './store-entities.js';
import type { TypeormCheckpointStore } from './typeorm-checkpoint-store.js';
import { MIGRATION_NAMES, describeTypeormStoreBehaviour } from '../__fixtures__/store-behaviour.js';

const url = process.env['INTERLOCK_TEST_POSTGRES_URL'];

if (url === undefined || url === '') {
  describe('PostgreSQL store', () => {
    it('needs a PostgreSQL to test against', () => {
      expect.fail(
        'INTERLOCK_TEST_POSTGRES_URL is not set. Start a local PostgreSQL with `bash scripts/start-postgres.sh` and export the URL it prints, e.g. `eval "$(bash scripts/start-postgres.sh)"`.',
      );
    });
  });
} else {
  describePostgresStore(url);
}

function describePostgresStore(url: string): void {
  /** Every schema of this run starts with this prefix, so the run cleans up after itself. */
  const run = `interlock_test_${process.pid}_${Date.now().toString(36)}`;
  const admin = new pg.Client({ connectionString: url });
  let schemas = 0;
  const freshSchema = () => `${run}_${(schemas += 1)}`;
  const dropSchema = (schema: string) => admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);

  beforeAll(async () => {
    await admin.connect();
  });

  afterAll(async () => {
    const leftovers = await admin.query<{ name: string }>(
      'SELECT nspname AS name FROM pg_namespace WHERE starts_with(nspname, $1)',
      [`${run}_`],
    );
    for (const { name } of leftovers.rows) await dropSchema(name);
    await admin.end();
  });

  // The conformance tests start from emptied tables, not from new schemas: a schema a test is
  // done with is emptied (as its migrations left it) and used again, which spares the
  // migrations, most of a test's time.
  const storeSchemas = new WeakMap<ICheckpointStore, string>();
  const emptied: string[] = [];
  const makeStore = async () => {
    const schema = emptied.pop() ?? freshSchema();
    const store = await createTypeormStore({ type: 'postgres', url, schema });
    storeSchemas.set(store, schema);
    return store;
  };
  const disposeStore = async (store: ICheckpointStore) => {
    const schema = storeSchemas.get(store);
    if (schema === undefined) return;
    const tables = await admin.query<{ name: string }>(
      `SELECT format('%I.%I', schemaname, tablename) AS name FROM pg_tables
        WHERE (schemaname = $1 AND tablename <> 'interlock_migrations')
           OR (schemaname = $2 AND tablename IN ('_private_jobs', '_private_job_queues'))`,
      [schema, `${schema}_jobs`],
    );
    await admin.query(`TRUNCATE ${tables.rows.map((table) => table.name).join(', ')} RESTART IDENTITY CASCADE`);
    // The one row a migration puts in: the audit chain's head before its first entry.
    await admin.query(`INSERT INTO "${schema}"."audit_head" ("id", "sequence", "hash") VALUES (1, 0, '')`);
    emptied.push(schema);
  };
  describeStoreConformance('PostgreSQL store', makeStore, disposeStore);
  describeAuditAndMemoryConformance('PostgreSQL store', makeStore, disposeStore);
  describeLeaseConformance('PostgreSQL store', makeStore, disposeStore);

  let schema = '';
  describeTypeormStoreBehaviour('PostgreSQL store', {
    async prepare() {
      schema = freshSchema();
    },
    open: () => createTypeormStore({ type: 'postgres', url, schema }),
    async inspect() {
      const dataSource = new DataSource({
        type: 'postgres',
        url,
        schema,
        entities: STORE_ENTITIES,
        extra: { options: `-c search_path=${schema}` },
      });
      return dataSource.initialize();
    },
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
      await dropSchema(schema);
    },
  });

  describe('PostgreSQL store across connections', () => {
    const opened: TypeormCheckpointStore[] = [];
    const open = async (schemaName: string) => {
      const store = await createTypeormStore({ type: 'postgres', url, schema: schemaName });
      opened.push(store);
      return store;
    };

    afterAll(async () => {
      for (const store of opened) await store.close();
    });

    it("lets several stores open a new schema at once: the migrations (and the job queue's) run once", async () => {
      const shared = freshSchema();
      const stores = await Promise.all(Array.from({ length: 6 }, () => open(shared)));
      await stores[0]?.createThread(threadRecord());
      for (const store of stores) expect((await store.getThread('thread-1'))?.version).toBe(1);
      const migrations = await admin.query<{ name: string }>(
        `SELECT name FROM "${shared}"."interlock_migrations" ORDER BY id`,
      );
      expect(migrations.rows.map((row) => row.name)).toEqual(MIGRATION_NAMES);
      const queue = await admin.query(`SELECT 1 FROM pg_namespace WHERE nspname = $1`, [`${shared}_jobs`]);
      expect(queue.rowCount).toBe(1);
    });

    it('lets exactly one of two stores commit the same version, and one of their answers', async () => {
      const shared = freshSchema();
      const [first, second] = await Promise.all([open(shared), open(shared)]);
      if (first === undefined || second === undefined) throw new Error('expected two stores');
      const created = await first.createThread(threadRecord());
      await first.createInteraction(interactionRecord());
      for (let round = 0; round < 10; round += 1) {
        const current = await first.getThread('thread-1');
        if (current === undefined) throw new Error('the thread disappeared');
        const results = await Promise.allSettled([
          first.saveThread({ ...current, steps: current.steps + 1 }),
          second.saveThread({ ...current, steps: current.steps + 100 }),
        ]);
        expect(results.filter((result) => result.status === 'fulfilled')).toHaveLength(1);
        expect(results.find((result) => result.status === 'rejected')?.reason).toMatchObject({
          code: 'STORE_CONFLICT',
        });
      }
      expect((await second.getThread('thread-1'))?.version).toBe(created.version + 10);
      const answers = await Promise.all(
        [first, second, first, second].map((store, index) =>
          store.recordResponse('interaction-1', {
            input: { approved: true },
            responder: `approver-${index}`,
            respondedAt: '2026-01-02T03:04:30.000Z',
          }),
        ),
      );
      expect(answers.filter((answer) => answer.status === 'recorded')).toHaveLength(1);
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

    it('refuses a schema name that is not a plain identifier', async () => {
      await expect(
        createTypeormStore({ type: 'postgres', url, schema: 'bad"; DROP TABLE x; --' }),
      ).rejects.toMatchObject({
        code: 'INVALID_OPTIONS',
      });
    });

    it('opens PostgreSQL only, and points a SQLite caller to openStore', async () => {
      const options = { type: 'sqlite', path: ':memory:' } as unknown as Parameters<typeof createTypeormStore>[0];
      await expect(createTypeormStore(options)).rejects.toMatchObject({
        code: 'INVALID_OPTIONS',
        message: expect.stringContaining("openStore({ type: 'sqlite', path })"),
      });
    });
  });
}
