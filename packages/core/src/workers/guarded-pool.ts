import type { Pool } from 'pg';
import type { JobNudges } from './job-nudges.js';

/** How long a starting worker waits for graphile-worker to listen before it goes on (ms). */
const LISTEN_WAIT_MS = 5_000;

/** What only graphile-worker's job fetch (getJob) sends: the lock it takes on a job. */
const GET_JOB = 'attempts = jobs.attempts + 1';

/** The answer to a job fetch that was not sent: no job. */
const NO_JOB = { command: 'UPDATE', rowCount: 0, oid: 0, fields: [], rows: [] };

const ignore = () => undefined;

/**
 * graphile-worker's pool, with two changes.
 * - graphile-worker announces a breaking migration of its schema on a channel of the whole
 *   database (`worker:migrate`, without the schema's name), and every runner that hears it
 *   shuts down: installing the queue in a new schema (a second deployment on the same
 *   database, a test) would stop the workers of every other schema for good. The clients of
 *   this pool pass the announcement on only when `ownSchemaMigrated` says this worker's own
 *   schema was migrated.
 * - Its job fetches go to the database only when `nudges` admits them (the others are
 *   answered "no job" here), and of the `jobs:insert` notifications only the due jobs routed
 *   to this process wake its workers (see {@link JobNudges}).
 * `listening` settles once graphile-worker listens (or after 5 s if it cannot yet: it keeps trying).
 */
export async function guardedPool(
  url: string,
  size: number,
  nudges: JobNudges,
  ownSchemaMigrated: () => Promise<boolean>,
): Promise<Pool & { listening: Promise<void> }> {
  const { default: pg } = await import('pg');
  const send = Reflect.get(pg.Client.prototype, 'query') as (
    this: InstanceType<typeof pg.Client>,
    ...args: unknown[]
  ) => unknown;
  /** The connections graphile-worker listened on, the last one current: its workers are woken through it. */
  const listeners: GuardedClient[] = [];
  let listened: () => void = ignore;
  const listening = new Promise<void>((resolve) => {
    listened = resolve;
    setTimeout(resolve, LISTEN_WAIT_MS).unref();
  });

  class GuardedClient extends pg.Client {
    override emit(event: string | symbol, ...args: unknown[]): boolean {
      const message = args[0] as { channel?: string; payload?: string } | undefined;
      if (event !== 'notification') return super.emit(event, ...args);
      if (message?.channel === 'jobs:insert') {
        const wake = nudges.notified(message.payload);
        if (wake > 0) this.wake(wake);
        return true;
      }
      if (message?.channel !== 'worker:migrate') return super.emit(event, ...args);
      ownSchemaMigrated().then(
        (own) => own && super.emit(event, ...args),
        // Unknown (the database is unreachable): the runner goes on; a real migration shows at its next start.
        ignore,
      );
      return true;
    }

    /** Wakes up to `count` idle workers, as graphile-worker's own notification of new jobs does. */
    wake(count: number): void {
      super.emit('notification', { channel: 'jobs:insert', payload: JSON.stringify({ count }), processId: 0 });
    }

    /** Sends a statement, unless it is a job fetch `nudges` does not admit. */
    guardedQuery(args: unknown[]): unknown {
      const [config] = args;
      const text = typeof config === 'string' ? config : (config as { text?: unknown } | null)?.text;
      if (typeof text === 'string' && text.startsWith('LISTEN "jobs:insert"')) {
        listeners.push(this);
        if (listeners.length > 4) listeners.shift();
        const listen = Promise.resolve(send.apply(this, args));
        listen.then(listened, ignore);
        return listen;
      }
      if (args.length !== 1 || typeof text !== 'string' || !text.includes(GET_JOB)) return send.apply(this, args);
      const reason = nudges.admit();
      if (reason === undefined) return Promise.resolve(NO_JOB);
      const fetched = Promise.resolve(send.apply(this, args) as Promise<{ rows: { key?: string | null }[] }>);
      fetched.then((result) => {
        const [job] = result.rows;
        const wake = nudges.fetched(reason, job === undefined ? undefined : (job.key ?? null));
        if (wake > 0) listeners.at(-1)?.wake(wake);
      }, ignore);
      return fetched;
    }
  }
  Object.defineProperty(GuardedClient.prototype, 'query', {
    value(this: GuardedClient, ...args: unknown[]): unknown {
      return this.guardedQuery(args);
    },
  });

  // The pool passes its options to each client it makes; the application name says which
  // process and group a connection belongs to (see JobNudges).
  const pool = new pg.Pool({
    connectionString: url,
    max: size,
    application_name: nudges.applicationName,
    Client: GuardedClient as unknown as new () => import('pg').ClientBase,
  });
  // An idle client the database dropped (a restart, a proxy) while no runner listens on the
  // pool, between a runner's stop and the next start: the pool replaces it on demand.
  pool.on('error', ignore);
  // A client checked out when its connection breaks: the query it runs rejects, saying why;
  // unheard, the 'error' would end the process (graphile-worker 0.17+ warns of a pool without).
  pool.on('connect', (client) => client.on('error', ignore));
  return Object.assign(pool, { listening });
}
