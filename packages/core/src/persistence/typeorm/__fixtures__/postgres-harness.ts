import pg from 'pg';
import { describe, expect, it } from 'vitest';
import type { ICheckpointStore } from '../../checkpoint-store.js';
import { createTypeormStore, type TypeormStoreOptions } from '../create-typeorm-store.js';

/** The test PostgreSQL's URL; a suite that needs one fails, saying how to start one, when it is not set. */
export function testPostgresUrl(suite: string): string | undefined {
  const url = process.env['INTERLOCK_TEST_POSTGRES_URL'];
  if (url !== undefined && url !== '') return url;
  describe(suite, () => {
    it('needs a PostgreSQL to test against', () => {
      expect.fail(
        'INTERLOCK_TEST_POSTGRES_URL is not set. Start a local PostgreSQL with `bash scripts/start-postgres.sh` and export the URL it prints, e.g. `eval "$(bash scripts/start-postgres.sh)"`.',
      );
    });
  });
  return undefined;
}

/**
 * Schemas for one test file, all dropped by `dropAll` (with their job queues' schemas). A
 * store a test is done with can be `recycle`d: its tables emptied as its migrations left
 * them, for the next `open`, which spares the migrations (most of a test's time).
 */
export function postgresSchemas(url: string) {
  const run = `interlock_test_${process.pid}_${Date.now().toString(36)}`;
  let count = 0;
  const schemaOf = new WeakMap<ICheckpointStore, string>();
  const emptied: string[] = [];
  const admin = new pg.Pool({ connectionString: url, max: 2 });
  const fresh = () => `${run}_${(count += 1)}`;
  return {
    admin,
    fresh,
    /** Opens a store on an emptied schema, or a new one. */
    async open(options: Partial<TypeormStoreOptions> = {}) {
      const schema = emptied.pop() ?? fresh();
      const store = await createTypeormStore({ type: 'postgres', url, schema, ...options });
      schemaOf.set(store, schema);
      return store;
    },
    schemaOf: (store: ICheckpointStore) => schemaOf.get(store),
    /** Empties a closed store's schema for the next `open`. */
    async recycle(store: ICheckpointStore) {
      const schema = schemaOf.get(store);
      if (schema === undefined) return;
      const tables = await admin.query<{ name: string }>(
        `SELECT format('%I.%I', schemaname, tablename) AS name FROM pg_tables
          WHERE (schemaname = $1 AND tablename <> 'interlock_migrations')
             OR (schemaname = $2 AND tablename IN ('_private_jobs', '_private_job_queues'))`,
        [schema, `${schema}_jobs`],
      );
      await admin.query(`TRUNCATE ${tables.rows.map((table) => table.name).join(', ')} RESTART IDENTITY CASCADE`);
      await admin.query(`ALTER SEQUENCE "${schema}"."audit_entries_sequence" RESTART`);
      // The one row a migration puts in: the older global chain's head before its first entry.
      await admin.query(`INSERT INTO "${schema}"."audit_head" ("id", "sequence", "hash") VALUES (1, 0, '')`);
      emptied.push(schema);
    },
    async dropAll() {
      const leftovers = await admin.query<{ name: string }>(
        'SELECT nspname AS name FROM pg_namespace WHERE starts_with(nspname, $1)',
        [`${run}_`],
      );
      for (const { name } of leftovers.rows) await admin.query(`DROP SCHEMA IF EXISTS "${name}" CASCADE`);
      await admin.end();
    },
  };
}
