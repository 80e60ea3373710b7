import type pg from 'pg';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { until } from '../../__fixtures__/until.js';
import { committed, createThread, saveOf } from '../../testing/conformance/commit-helpers.js';
import { errorCodeOf, interactionRecord, threadRecord } from '../../testing/conformance/store-records.js';
import type { UnitOfWork } from '../unit-of-work.js';
import { postgresSchemas, testPostgresUrl } from './__fixtures__/postgres-harness.js';
import { tcpProxy, type TcpProxy } from './__fixtures__/tcp-proxy.js';
import { createTypeormStore } from './create-typeorm-store.js';
import type { PostgresCheckpointStore } from './postgres-checkpoint-store.js';

/*
 * What a caller is told when a commit fails (issue 27): STORE_OUTCOME_UNKNOWN when the
 * statement was sent and its answer never came — and then a read shows all of the unit or
 * none of it, never part — and STORE_UNAVAILABLE when nothing was written for certain.
 */

const url = testPostgresUrl('a PostgreSQL commit that fails');
if (url !== undefined) describeOutcomes(url);

function describeOutcomes(url: string): void {
  const schemas = postgresSchemas(url);
  const closers: (() => Promise<unknown>)[] = [];
  afterEach(async () => {
    for (const close of closers.splice(0).reverse()) await close();
  });
  afterAll(() => schemas.dropAll());

  async function open(options: { through?: TcpProxy; statementMs?: number } = {}) {
    const schema = schemas.fresh();
    // Migrated directly, then opened through the proxy (if any) on the migrated schema.
    await (await createTypeormStore({ type: 'postgres', url, schema })).close();
    const store = await createTypeormStore({
      type: 'postgres',
      url: options.through?.url ?? url,
      schema,
      ...(options.statementMs === undefined ? {} : { timeouts: { statementMs: options.statementMs } }),
    });
    closers.push(() => store.close());
    return { store, schema };
  }

  /** A waiting thread, and a unit that saves it, asks a question and sets global `g` (last). */
  async function preparedUnit(store: PostgresCheckpointStore): Promise<UnitOfWork> {
    const thread = await createThread(store, threadRecord());
    await committed(store, { globals: [{ kind: 'set', scope: 'workflow-a', name: 'g', value: 'before' }] });
    return {
      ...saveOf(thread, { status: 'waiting', pendingInteractionIds: ['interaction-1'] }),
      interactions: [{ kind: 'open', interaction: interactionRecord() }],
      globals: [{ kind: 'set', scope: 'workflow-a', name: 'g', value: 'after' }],
    };
  }

  /** What of the prepared unit is stored: all of it, none of it, or a part (a bug). */
  async function storedPart(store: PostgresCheckpointStore): Promise<'all' | 'none' | 'part'> {
    const written = [
      (await store.getThread('thread-1'))?.version === 2,
      (await store.getInteraction('interaction-1')) !== undefined,
      (await store.getGlobalVariables('workflow-a'))['g'] === 'after',
    ];
    return written.every(Boolean) ? 'all' : written.some(Boolean) ? 'part' : 'none';
  }

  /** Holds the row of global `g` locked in a transaction of another connection, until `release`. */
  async function lockGlobal(schema: string) {
    const client: pg.PoolClient = await schemas.admin.connect();
    await client.query('BEGIN');
    await client.query(`SELECT 1 FROM "${schema}"."global_variables" WHERE "name" = 'g' FOR UPDATE`);
    return {
      release: async () => {
        await client.query('ROLLBACK');
        client.release();
      },
    };
  }

  /** The backend of the commit waiting for a lock. */
  function waitingCommit(schema: string): Promise<number> {
    return until(
      'the commit waiting for the lock',
      async () =>
        (
          await schemas.admin.query<{ pid: number }>(
            `SELECT pid FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE $1`,
            [`%"${schema}"."interlock_commit"%`],
          )
        ).rows[0]?.pid,
      (pid) => pid !== undefined,
      10_000,
    ) as Promise<number>;
  }

  describe('a PostgreSQL commit that fails', () => {
    it('is STORE_OUTCOME_UNKNOWN when its connection is killed mid-commit, and nothing of the unit is stored', async () => {
      const { store, schema } = await open();
      const unit = await preparedUnit(store);
      const lock = await lockGlobal(schema);
      closers.push(() => lock.release());
      // The function wrote the thread and the question, and waits at the global's row.
      const commit = errorCodeOf(store.commit(unit));
      await schemas.admin.query('SELECT pg_terminate_backend($1)', [await waitingCommit(schema)]);
      expect(await commit).toBe('STORE_OUTCOME_UNKNOWN');
      await lock.release();
      closers.pop();
      expect(await storedPart(store)).toBe('none');
      // The store goes on with a new connection.
      await committed(store, unit);
      expect(await storedPart(store)).toBe('all');
    });

    it('is STORE_OUTCOME_UNKNOWN when the answer of a commit that happened is lost, and all of the unit is stored', async () => {
      const proxy = await tcpProxy(url);
      closers.push(() => proxy.close());
      const { store, schema } = await open({ through: proxy });
      const unit = await preparedUnit(store);
      const reader = await createTypeormStore({ type: 'postgres', url, schema });
      closers.push(() => reader.close());
      proxy.dropReplies();
      const commit = errorCodeOf(store.commit(unit));
      await until(
        'the commit stored',
        () => storedPart(reader),
        (part) => part === 'all',
        10_000,
      );
      proxy.cut();
      expect(await commit).toBe('STORE_OUTCOME_UNKNOWN');
      expect(await storedPart(reader)).toBe('all');
    });

    it('is STORE_UNAVAILABLE when the server refused it (here: its statement timed out), and nothing is stored', async () => {
      const { store, schema } = await open({ statementMs: 200 });
      const unit = await preparedUnit(store);
      const lock = await lockGlobal(schema);
      closers.push(() => lock.release());
      const error = await store.commit(unit).catch((reason: unknown) => reason);
      expect(error).toMatchObject({
        code: 'STORE_UNAVAILABLE',
        message: expect.stringContaining('nothing was written'),
      });
      await lock.release();
      closers.pop();
      expect(await storedPart(store)).toBe('none');
    });

    it('is STORE_UNAVAILABLE when the database cannot be reached', async () => {
      const proxy = await tcpProxy(url);
      const { store } = await open({ through: proxy });
      const unit = await preparedUnit(store);
      await proxy.close();
      const pool = (store as unknown as { pool: pg.Pool }).pool;
      await until(
        'the pool to drop its connections',
        async () => pool.totalCount,
        (count) => count === 0,
        10_000,
      );
      const error = await store.commit(unit).catch((reason: unknown) => reason);
      expect(error).toMatchObject({ code: 'STORE_UNAVAILABLE' });
      expect(await errorCodeOf(store.getThread('thread-1'))).toBe('STORE_UNAVAILABLE');
    });
  });
}
