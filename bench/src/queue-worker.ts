/**
 * One worker process of the queue-alone scaling step (queue-workers-pg.ts): graphile-worker
 * with the options Interlock's workers run it with (`AS_INTERLOCK_RUNS_IT`), and a no-op
 * task that tells the parent which job ran (IPC). Stops on the parent's `stop` and answers
 * with its CPU since the parent's `measure`.
 */
import { requireFromCore } from './scenario.js';
import { AS_INTERLOCK_RUNS_IT, IN_FLIGHT, reportPoolErrors, type GraphileWorker, type Pg } from './workers-pg.js';

const send = (message: unknown) => process.send?.(message);
const graphile = requireFromCore('graphile-worker') as GraphileWorker;
const pg = requireFromCore('pg') as Pg;
const pool = new pg.Pool({ connectionString: process.env['BENCH_PG_URL'] ?? '', max: IN_FLIGHT + 2 });
reportPoolErrors(pool, 'queue worker');
const runner = await graphile.run({
  pgPool: pool,
  schema: process.env['BENCH_PG_SCHEMA'],
  concurrency: IN_FLIGHT,
  pollInterval: 1_000,
  noHandleSignals: true,
  logger: new graphile.Logger(() => () => undefined),
  preset: AS_INTERLOCK_RUNS_IT,
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
