import { DataSource, MigrationExecutor } from 'typeorm';
import { InterlockError } from '../../errors/interlock-error.js';
import { MIGRATIONS_TABLE, type MigrationRunner } from '../sql/migrations/migration-runner.js';
import { STORE_MIGRATIONS } from '../sql/migrations/store-migrations.js';
import { STORE_ENTITIES } from './store-entities.js';
import { PostgresCheckpointStore } from './postgres-checkpoint-store.js';
import { checkSchemaName, resolvePlacement, type PostgresPlacement } from './postgres-placement.js';

/**
 * Where the PostgreSQL store keeps its data. (SQLite has a store of its own without an
 * ORM: `openStore({ type: 'sqlite' })`, ADR 0003.)
 */
export interface TypeormStoreOptions {
  type: 'postgres';
  /** A connection URL, `postgres://user:password@host:port/database`. */
  url: string;
  /**
   * A schema to keep the tables in, created if missing. Default: the database's current
   * schema (`current_schema()`, the first of its search_path that exists, usually `public`),
   * read once when the store opens. The job queue is beside it, in `<schema>_jobs`.
   */
  schema?: string;
  /** Bounds on every wait for the server (see {@link PostgresTimeouts}). */
  timeouts?: PostgresTimeouts;
  /**
   * How many connections the store opens at most, from 2 to 1000. Default 4: a commit and
   * a read are one statement each, so a connection is held for one network round trip at a
   * time. A worker sizes it from its concurrency (`concurrency + 2`, see `createWorker`).
   */
  poolSize?: number;
}

/** The store's pool size unless told otherwise. */
export const DEFAULT_POSTGRES_POOL_SIZE = 4;

/**
 * How long the PostgreSQL store waits for the server, in milliseconds: nothing blocks for
 * as long as a server stays frozen or unreachable. A statement that runs out is rolled
 * back; a COMMIT that gets no answer in time is reported as STORE_OUTCOME_UNKNOWN.
 */
export interface PostgresTimeouts {
  /** Opening a connection. Default 5 000. */
  connectMs?: number;
  /** One statement, on the server (`statement_timeout`) and on the client (plus 1 s, for a server that does not answer at all). Default 10 000. */
  statementMs?: number;
  /** A transaction left idle on the server (`idle_in_transaction_session_timeout`). Default 10 000. */
  idleInTransactionMs?: number;
}

/** The default {@link PostgresTimeouts}. */
export const DEFAULT_POSTGRES_TIMEOUTS: Required<PostgresTimeouts> = {
  connectMs: 5_000,
  statementMs: 10_000,
  idleInTransactionMs: 10_000,
};

/**
 * Opens the PostgreSQL store and brings its tables up to date with the store's migrations
 * (never `synchronize`), then the job queue's. Any number of processes may open the same
 * database at once: the migrations run under a database lock.
 *
 * @example
 * ```ts
 * const store = await createTypeormStore({ type: 'postgres', url: process.env.DATABASE_URL ?? '' });
 * const thread = await store.getThread(threadId);
 * await store.close();
 * ```
 * @throws InterlockError INVALID_OPTIONS for another `type` (SQLite opens with
 * `openStore({ type: 'sqlite' })`), for a schema name that is not a plain identifier, or
 * when the database cannot be opened or migrated (the driver's error is the cause).
 */
export async function createTypeormStore(options: TypeormStoreOptions): Promise<PostgresCheckpointStore> {
  // Checked at run time too: a JavaScript caller (or an old config) may still pass 'sqlite'.
  if ((options.type as string) !== 'postgres') {
    throw new InterlockError(
      'INVALID_OPTIONS',
      `createTypeormStore opens PostgreSQL only, not ${JSON.stringify(options.type)}: open a SQLite file with openStore({ type: 'sqlite', path })`,
    );
  }
  if (options.schema !== undefined) checkSchemaName(options.schema);
  const poolSize = options.poolSize ?? DEFAULT_POSTGRES_POOL_SIZE;
  // The migrations hold one connection for their lock and run on another: at least two.
  if (!Number.isSafeInteger(poolSize) || poolSize < 2 || poolSize > 1_000) {
    throw new InterlockError(
      'INVALID_OPTIONS',
      `store.poolSize must be a whole number of connections from 2 to 1000, not ${String(poolSize)}`,
    );
  }
  try {
    return await openPostgres(options.url, options.schema, timeoutsOf(options.timeouts), poolSize);
  } catch (error) {
    if (InterlockError.is(error)) throw error;
    const reason = error instanceof Error ? error.message : String(error);
    throw new InterlockError(
      'INVALID_OPTIONS',
      `cannot open the PostgreSQL store at ${redact(options.url)}: ${reason}`,
      {
        cause: error,
      },
    );
  }
}

/** The URL without its password, for messages. */
function redact(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password !== '') parsed.password = '***';
    return parsed.toString();
  } catch {
    return '(a URL that does not parse)';
  }
}

function timeoutsOf(timeouts: PostgresTimeouts | undefined): Required<PostgresTimeouts> {
  const resolved = { ...DEFAULT_POSTGRES_TIMEOUTS, ...timeouts };
  for (const [name, value] of Object.entries(resolved)) {
    if (!Number.isSafeInteger(value) || value < 100 || value > 3_600_000) {
      throw new InterlockError(
        'INVALID_OPTIONS',
        `store.timeouts.${name} must be a whole number of milliseconds from 100 to 3600000, not ${String(value)}`,
      );
    }
  }
  return resolved;
}

async function openPostgres(
  url: string,
  schema: string | undefined,
  timeouts: Required<PostgresTimeouts>,
  poolSize: number,
): Promise<PostgresCheckpointStore> {
  const { default: pg } = await import('pg');
  // Resolved once, here: every statement, migration and job after this reads it from the store.
  const placement = await resolvePlacement(schema, () => currentSchema(pg, url, timeouts));
  const dataSource = new DataSource({
    type: 'postgres',
    driver: pg,
    url,
    schema: placement.schema,
    applicationName: 'interlock',
    connectTimeoutMS: timeouts.connectMs,
    poolSize,
    extra: {
      statement_timeout: timeouts.statementMs,
      idle_in_transaction_session_timeout: timeouts.idleInTransactionMs,
      // The client's own bound, for a server that does not answer at all (frozen, cut off).
      query_timeout: timeouts.statementMs + 1_000,
    },
    entities: STORE_ENTITIES,
    migrations: STORE_MIGRATIONS,
    migrationsTableName: MIGRATIONS_TABLE,
    synchronize: false,
    logging: false,
  });
  await dataSource.initialize();
  try {
    await migratePostgres(dataSource, placement, schema !== undefined, () =>
      migrateJobQueue(url, placement.jobsSchema),
    );
  } catch (error) {
    await dataSource.destroy();
    throw error;
  }
  return new PostgresCheckpointStore(dataSource, { url }, placement);
}

/** The database's current schema for this URL's connections (null when its search_path names none that exists). */
async function currentSchema(
  pg: typeof import('pg').default,
  url: string,
  timeouts: Required<PostgresTimeouts>,
): Promise<string | null> {
  const client = new pg.Client({
    connectionString: url,
    application_name: 'interlock',
    connectionTimeoutMillis: timeouts.connectMs,
    query_timeout: timeouts.statementMs + 1_000,
  });
  // A connection that breaks after the answer must not end the process.
  client.on('error', () => undefined);
  await client.connect();
  try {
    const { rows } = await client.query<{ schema: string | null }>('SELECT current_schema() AS schema');
    return rows[0]?.schema ?? null;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/**
 * Installs or upgrades the job queue's tables and functions (graphile-worker's own
 * migrations). Run under Interlock's migration lock: graphile-worker's first install
 * creates its schema unguarded, and two processes opening a new database at once would
 * both try.
 */
async function migrateJobQueue(url: string, schema: string): Promise<void> {
  const { runMigrations } = await import('graphile-worker');
  await runMigrations({ connectionString: url, schema, logger: quietLogger(await import('graphile-worker')) });
}

/** graphile-worker's logger, keeping only errors (on stderr). */
export function quietLogger(worker: typeof import('graphile-worker')): InstanceType<typeof worker.Logger> {
  return new worker.Logger(() => (level, message) => {
    // LogLevel.ERROR is 'error'; the enum itself is a type only (graphile-worker does not export it at run time).
    if (level === 'error') process.stderr.write(`interlock job queue: ${message}\n`);
  });
}

/**
 * Creates the schema and runs the migrations (Interlock's, then the job queue's) while
 * holding a session advisory lock, so concurrent openers wait for the first one instead
 * of racing it.
 */
async function migratePostgres(
  dataSource: DataSource,
  placement: PostgresPlacement,
  named: boolean,
  migrateQueue: () => Promise<void>,
): Promise<void> {
  const lock = dataSource.createQueryRunner();
  const key = `interlock-migrations:${placement.schema}`;
  await lock.connect();
  try {
    await lock.query('SELECT pg_advisory_lock(hashtext($1))', [key]);
    try {
      // A schema read from the database exists; one the options name may not yet.
      if (named) await lock.query(`CREATE SCHEMA IF NOT EXISTS "${placement.schema}"`);
      await runStoreMigrations(dataSource, placement);
      await migrateQueue();
    } finally {
      await lock.query('SELECT pg_advisory_unlock(hashtext($1))', [key]);
    }
  } finally {
    await lock.release();
  }
}

/**
 * The store's pending migrations, in one transaction, on a runner that carries the
 * placement (`MigrationRunner.data`): the migrations read the job queue's schema there.
 */
async function runStoreMigrations(dataSource: DataSource, placement: PostgresPlacement): Promise<void> {
  const runner = dataSource.createQueryRunner();
  (runner.data as NonNullable<MigrationRunner['data']>) = { placement };
  try {
    const executor = new MigrationExecutor(dataSource, runner);
    executor.transaction = 'all';
    await executor.executePendingMigrations();
  } finally {
    await runner.release();
  }
}
