/**
 * One worker process of the queue-alone scaling step (queue-workers-pg.ts): graphile-worker
 * with the options Interlock's workers run it with (workers/job-consumers.ts: a local queue
 * of `concurrency` jobs, completion batched every 50 ms), and a no-op task that tells the
 * parent which job ran (IPC). Stops on the parent's `stop` and answers with its CPU since
 * the parent's `measure`.
 */
import { requireFromCore } from './scenario.js';
import { IN_FLIGHT, reportPoolErrors, type GraphileWorker, type Pg } from './workers-pg.js';

/** What Interlock's workers set (workers/job-consumers.ts), with the concurrency of the bench's (pg-worker.ts). */
const COMPLETE_BATCH_MS = 50;
const concurrency = IN_FLIGHT;

const send = (message: unknown) => process.send?.(message);
const graphile = requireFromCore('graphile-worker') as GraphileWorker;
const pg = requireFromCore('pg') as Pg;
const pool = new pg.Pool({ connectionString: process.env['BENCH_PG_URL'] ?? '', max: concurrency + 2 });
reportPoolErrors(pool, 'queue worker');
const runner = await graphile.run({
  pgPool: pool,
  schema: process.env['BENCH_PG_SCHEMA'],
  concurrency,
  pollInterval: 1_000,
  noHandleSignals: true,
  logger: new graphile.Logger(() => () => undefined),
  preset: { worker: { localQueue: { size: concurrency }, completeJobBatchDelay: COMPLETE_BATCH_MS } },
  taskList: {
    noop: (payload: unknown) => {
      send({ ran: (payload as { i: number }).i });
      return Promise.resolve();
    },
  },
});
let cpuAtStart = process.cpuUsage();
process.on('message', (message: { measure?: true; stop?: true }) => {
  if (message.measure) cpuAtStart = process.cpuUsage();
  if (!message.stop) return;
  const cpu = process.cpuUsage(cpuAtStart);
  void runner
    .stop()
    .then(() => pool.end())
    .then(() => {
      send({ cpuMs: (cpu.user + cpu.system) / 1000 });
      process.exit(0);
    });
});
send({ ready: true });
