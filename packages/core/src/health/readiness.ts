import type { ICheckpointStore } from '../persistence/checkpoint-store.js';
import type { StoreOptions } from '../persistence/open-store.js';
import { DEFAULT_SQLITE_PATH } from '../persistence/open-store.js';
import { MIGRATIONS_TABLE } from '../persistence/sql/migrations/migration-runner.js';
import { STORE_MIGRATIONS } from '../persistence/sql/migrations/store-migrations.js';
import { withoutUrlCredentials } from '../config/secrets-in-file.js';
import { resolveStoreOptions } from '../interlock-store.js';
import { placementOf, type PostgresPlacement } from '../persistence/typeorm/postgres-placement.js';

/** One thing a process needs to do its work: it throws, saying what is wrong, when it is not there. */
export interface ReadinessCheck {
  /** A stable name an orchestrator's log shows: `store`, `migrations`, `jobQueue`. */
  name: string;
  check(): Promise<void>;
}

/** What `/readyz` answers (F60): ready when every check passed, with each check's outcome. */
export interface ReadinessReport {
  ready: boolean;
  checks: { name: string; ok: boolean; reason?: string }[];
}

/** How long one check may take before it counts as failed. */
export const READINESS_TIMEOUT_MS = 3_000;

/**
 * Runs every check at once, each bounded by `timeoutMs`: a store that does not answer is not
 * ready. A reason never carries a URL's credentials.
 */
export async function checkReadiness(
  checks: readonly ReadinessCheck[],
  timeoutMs = READINESS_TIMEOUT_MS,
): Promise<ReadinessReport> {
  const outcomes = await Promise.all(
    checks.map(async (readiness) => {
      const { name } = readiness;
      let timer: ReturnType<typeof setTimeout> | undefined;
      const late = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
      });
      try {
        await Promise.race([readiness.check(), late]);
        return { name, ok: true };
      } catch (error) {
        return {
          name,
          ok: false,
          reason: withoutUrlCredentials(error instanceof Error ? error.message : String(error)),
        };
      } finally {
        clearTimeout(timer);
      }
    }),
  );
  return { ready: outcomes.every((outcome) => outcome.ok), checks: outcomes };
}

/** The readiness checks of a store, and what they hold open (close it with the store). */
export interface StoreReadiness {
  checks: ReadinessCheck[];
  close(): Promise<void>;
}

/** A scope nothing writes: reading it is one round trip to the store. */
const PROBE_SCOPE = 'interlock:health';

/**
 * The checks of a process's store (F60):
 * - `store`: a read through `store` itself (its own connections) answers;
 * - `migrations`: every migration this code knows is recorded in the database (and, on
 *   PostgreSQL, the job queue's schema is installed), read on a connection of the probe's own;
 * - `jobQueue` (with `jobQueue: true`, for an answerer that hands threads to workers): jobs
 *   can be queued — the job queue's tables (PostgreSQL: graphile-worker's schema; SQLite: the
 *   store's `jobs` table) answer.
 * The probe's connection (PostgreSQL: one, closed after 30 s idle; SQLite: a read-only one per
 * look) is apart from the store's pool. A memory or custom store has only `store`. On
 * PostgreSQL the tables and the job queue looked at are where `store` keeps them (its
 * `placement`, resolved as it opened: pass the store `openStore` opened, or a wrapper that
 * forwards it; without one, `migrations` and `jobQueue` fail saying so).
 *
 * @example
 * const readiness = storeReadiness(store, { type: 'postgres', url });
 * const report = await checkReadiness(readiness.checks);
 */
export function storeReadiness(
  store: Pick<ICheckpointStore, 'getGlobalVariables'> & { readonly placement?: PostgresPlacement },
  options: StoreOptions,
  parts: { jobQueue?: boolean } = {},
): StoreReadiness {
  const reachable: ReadinessCheck = {
    name: 'store',
    check: async () => {
      await store.getGlobalVariables(PROBE_SCOPE);
    },
  };
  if (options.type === 'sqlite') {
    const path = options.path ?? DEFAULT_SQLITE_PATH;
    const checks = [reachable, { name: 'migrations', check: () => sqliteMigrations(path) }];
    if (parts.jobQueue === true) checks.push({ name: 'jobQueue', check: () => sqliteJobs(path) });
    return { checks, close: async () => undefined };
  }
  if (options.type !== 'postgres') return { checks: [reachable], close: async () => undefined };
  const resolved = resolveStoreOptions(options) as Extract<StoreOptions, { type: 'postgres' }>;
  const probe = new PostgresProbe(resolved.url, placementOf(store));
  const checks = [reachable, { name: 'migrations', check: () => probe.migrations() }];
  if (parts.jobQueue === true) checks.push({ name: 'jobQueue', check: () => probe.jobQueue() });
  return { checks, close: () => probe.close() };
}

/** The names of the migrations this code knows. */
function knownMigrations(): string[] {
  return STORE_MIGRATIONS.map((Migration) => new Migration().name);
}

function missingFrom(applied: readonly string[]): void {
  const recorded = new Set(applied);
  const missing = knownMigrations().filter((name) => !recorded.has(name));
  if (missing.length > 0)
    throw new Error(
      `${missing.length} migration${missing.length === 1 ? ' is' : 's are'} not applied (${missing.join(', ')}): open the store once with this version to apply them`,
    );
}

async function sqliteMigrations(path: string): Promise<void> {
  await withSqlite(path, (database) =>
    missingFrom(database.prepare(`SELECT name FROM "${MIGRATIONS_TABLE}"`).pluck().all() as string[]),
  );
}

async function sqliteJobs(path: string): Promise<void> {
  await withSqlite(path, (database) => void database.prepare('SELECT count(*) FROM "jobs" LIMIT 1').get());
}

async function withSqlite(path: string, read: (database: import('better-sqlite3').Database) => void): Promise<void> {
  const { default: Database } = await import('better-sqlite3');
  const database = new Database(path, { readonly: true, fileMustExist: true, timeout: 1_000 });
  try {
    read(database);
  } finally {
    database.close();
  }
}

/** One connection of its own to the store's database, made when asked and closed after 30 s idle. */
class PostgresProbe {
  private pool: Promise<import('pg').Pool> | undefined;

  constructor(
    private readonly url: string,
    private readonly placement: PostgresPlacement | undefined,
  ) {}

  async migrations(): Promise<void> {
    const { schema, jobsSchema } = await this.placed();
    const applied = await this.query<{ name: string }>(`SELECT name FROM "${schema}"."${MIGRATIONS_TABLE}"`);
    missingFrom(applied.map((row) => row.name));
    const queue = await this.query<{ id: number | null }>(`SELECT max(id) AS id FROM "${jobsSchema}".migrations`);
    if (queue[0]?.id === null || queue[0]?.id === undefined)
      throw new Error(`the job queue's schema "${jobsSchema}" has no migrations: open the store once to install it`);
  }

  async jobQueue(): Promise<void> {
    await this.query(`SELECT 1 FROM "${(await this.placed()).jobsSchema}"._private_jobs LIMIT 1`);
  }

  /** Where the store keeps its tables and its queue, as it resolved them when it opened. */
  private async placed(): Promise<PostgresPlacement> {
    if (this.placement === undefined)
      throw new Error(
        'the store does not say where its tables and job queue are: check the store openStore opened (its placement)',
      );
    return this.placement;
  }

  async close(): Promise<void> {
    const pool = this.pool;
    this.pool = undefined;
    await (await pool)?.end();
  }

  private async query<Row extends object>(text: string): Promise<Row[]> {
    this.pool ??= import('pg').then(({ default: pg }) => {
      const pool = new pg.Pool({
        connectionString: this.url,
        max: 1,
        idleTimeoutMillis: 30_000,
        connectionTimeoutMillis: 2_000,
        application_name: 'interlock-health',
        statement_timeout: 2_000,
      });
      // A connection the server dropped while idle is replaced at the next look.
      pool.on('error', () => undefined);
      return pool;
    });
    return (await (await this.pool).query<Row>(text)).rows;
  }
}

/**
 * The HTTP answer to `/readyz`: 200 when ready, 503 naming the failing checks (an
 * orchestrator takes the process out of service, or restarts it).
 */
export function readinessAnswer(report: ReadinessReport): {
  statusCode: 200 | 503;
  body: { status: 'ready' | 'unready'; failing: string[]; checks: ReadinessReport['checks'] };
} {
  const failing = report.checks.filter((check) => !check.ok).map((check) => check.name);
  return {
    statusCode: report.ready ? 200 : 503,
    body: { status: report.ready ? 'ready' : 'unready', failing, checks: report.checks },
  };
}
