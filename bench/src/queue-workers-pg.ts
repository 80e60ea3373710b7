/**
 * `queue-pg --workers K` (issue 38): the job queue alone, with nothing of Interlock, run the
 * way Interlock's workers run it, in K worker processes (`queue-worker.ts`): how its own
 * no-op jobs/s change from 1 to 2 to 4 processes on this machine. Beside `workers-pg
 * --workers K`, it tells what more workers cost the queue itself (every idle process hears
 * each `jobs:insert` and fetches) from what they cost Interlock.
 */
import { fork, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { emit, now } from './common.js';
import { serverCpu } from './pg-server.js';
import { requireFromCore } from './scenario.js';
import {
  dropSchemas,
  IN_FLIGHT,
  latencies,
  noopJobLanes,
  reportPoolErrors,
  type GraphileWorker,
  type Pg,
  type PgOptions,
} from './workers-pg.js';

const here = path.dirname(fileURLToPath(import.meta.url));

/** What a queue worker process says: ready, a job ran, or its CPU when it stopped. */
interface QueueWorkerMessage {
  ready?: true;
  ran?: number;
  cpuMs?: number;
}

export async function modeQueueWorkersPg(options: PgOptions): Promise<boolean> {
  const schema = `bench_queue_workers_${options.workers}_${Date.now().toString(36)}`;
  const graphile = requireFromCore('graphile-worker') as GraphileWorker;
  const pg = requireFromCore('pg') as Pg;
  const pool = new pg.Pool({ connectionString: options.url, max: IN_FLIGHT + 2 });
  reportPoolErrors(pool, 'queue-pg');
  // Migrated once here, so the processes do not race to install the schema.
  await graphile.runMigrations({ pgPool: pool, schema, logger: new graphile.Logger(() => () => undefined) });
  const ran = new Map<number, () => void>();
  const children: ChildProcess[] = [];
  try {
    for (let k = 0; k < options.workers; k++) {
      const child = fork(path.join(here, 'queue-worker.js'), [], {
        env: { ...process.env, BENCH_PG_URL: options.url, BENCH_PG_SCHEMA: schema },
        stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      });
      children.push(child);
      await new Promise<void>((resolve, reject) => {
        child.once('exit', (code) => reject(new Error(`a queue worker exited (${String(code)}) before it was ready`)));
        child.on('message', (message: QueueWorkerMessage) => {
          if (message.ready) resolve();
          if (message.ran !== undefined) ran.get(message.ran)?.();
        });
      });
    }
    const lanes = noopJobLanes(pool, schema, ran);
    await lanes(0, options.warmup);
    for (const child of children) child.send({ measure: true });
    const server = await serverCpu(options.url);
    const serverAtStart = server?.read();
    const cpuAtStart = process.cpuUsage();
    const started = now();
    const times = await lanes(options.warmup, options.n);
    const seconds = (now() - started) / 1000;
    const producerCpu = process.cpuUsage(cpuAtStart);
    const serverMs = serverAtStart === undefined ? undefined : (server?.read() ?? serverAtStart) - serverAtStart;
    const workerCpu = await Promise.all(
      children.map(
        (child) =>
          new Promise<number>((resolve) => {
            child.on('message', (message: QueueWorkerMessage) => {
              if (message.cpuMs !== undefined) resolve(message.cpuMs);
            });
            child.send({ stop: true });
          }),
      ),
    );
    const perJob = (ms: number) => Math.round((ms / options.n) * 1000) / 1000;
    const pass = times.length === options.n;
    emit({
      kind: 'queue_pg_workers',
      saver: 'postgres',
      queue: 'graphile-worker',
      options: 'as Interlock runs it: a local queue per process, completion batched every 50 ms',
      workers: options.workers,
      in_flight: IN_FLIGHT,
      n: options.n,
      jobs_per_sec: Math.round((options.n / seconds) * 10) / 10,
      add_to_run: latencies(times),
      cpu_ms_per_job: {
        producer: perJob((producerCpu.user + producerCpu.system) / 1000),
        workers: perJob(workerCpu.reduce((sum, ms) => sum + ms, 0)),
        postgres: serverMs === undefined ? null : perJob(serverMs),
      },
      pass,
    });
    return pass;
  } finally {
    for (const child of children) child.kill('SIGKILL');
    await pool.end();
    await dropSchemas(options.url, [schema]);
  }
}
