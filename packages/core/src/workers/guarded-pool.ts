import type { Pool } from 'pg';

const ignore = () => undefined;

/** The application_name of the job queue's connections: `interlock-jobs:<queue schema>`. */
export const QUEUE_APPLICATION = 'interlock-jobs';

/**
 * graphile-worker's pool, with one change: graphile-worker announces a breaking migration
 * of its schema on a channel of the whole database (`worker:migrate`, without the schema's
 * name), and every runner that hears it shuts down, so installing the queue in a new
 * schema (a second deployment on the same database, a test) would stop the workers of
 * every other schema for good. The clients of this pool pass that announcement on only
 * when `ownSchemaMigrated` says this worker's own schema was migrated. Every other
 * notification, `jobs:insert` included, reaches graphile-worker as sent (issue 38: its local
 * queue takes new jobs as they are announced).
 */
export async function guardedPool(
  url: string,
  schema: string,
  size: number,
  ownSchemaMigrated: () => Promise<boolean>,
): Promise<Pool> {
  const { default: pg } = await import('pg');

  class GuardedClient extends pg.Client {
    override emit(event: string | symbol, ...args: unknown[]): boolean {
      const message = args[0] as { channel?: string } | undefined;
      if (event !== 'notification' || message?.channel !== 'worker:migrate') return super.emit(event, ...args);
      ownSchemaMigrated().then(
        (own) => own && super.emit(event, ...args),
        // Unknown (the database is unreachable): the runner goes on; a real migration shows at its next start.
        ignore,
      );
      return true;
    }
  }

  const pool = new pg.Pool({
    connectionString: url,
    max: size,
    // Says what the connections are, in pg_stat_activity (an operator's view, a test's kill).
    application_name: `${QUEUE_APPLICATION}:${schema}`.slice(0, 63),
    Client: GuardedClient as unknown as new () => import('pg').ClientBase,
  });
  // An idle client the database dropped (a restart, a proxy) while no runner listens on the
  // pool, between a runner's stop and the next start: the pool replaces it on demand.
  pool.on('error', ignore);
  // A client checked out when its connection breaks: the query it runs rejects, saying why;
  // unheard, the 'error' would end the process (graphile-worker 0.17+ warns of a pool without).
  pool.on('connect', (client) => client.on('error', ignore));
  return pool;
}
