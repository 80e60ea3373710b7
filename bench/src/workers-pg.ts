/**
 * The approval round trip on PostgreSQL with workers (issue 12): the scenario's thread is
 * started and answered by an answerer that runs no thread (`continueIn: 'workers-only'`,
 * like the web inbox of a deployment), and taken forward by K worker processes
 * (`pg-worker.ts`, `createWorker`). One round trip: start (the thread is handed to a
 * worker) → the worker runs it until the approval waits → the answerer hears of the
 * question (LISTEN/NOTIFY) and approves → a worker runs the write and the thread completes.
 * `IN_FLIGHT` round trips at once. Apart from it, the job queue's own cost: graphile-worker
 * adding a no-op job and a runner picking it up, with nothing of Interlock.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createInterlock, type ICheckpointStore, type Interlock, type StoreChange, TYPES } from '@interlock/core';
import { emit, now } from './common.js';
import { requireFromCore, threadIdFor, workflow, WORKFLOW_ID } from './scenario.js';
import { countPgStatements, takePgCounts, type PgCounts } from './pg-counter.js';
import { serverCpu, serverStatements } from './pg-server.js';

const here = path.dirname(fileURLToPath(import.meta.url));

/** What this file uses of pg and graphile-worker (core's copies: the bench does not depend on them itself). */
export interface Pg {
  Pool: new (options: { connectionString: string; max: number }) => {
    query(sql: string, values?: unknown[]): Promise<unknown>;
    end(): Promise<void>;
    on(event: 'error', listener: (error: Error) => void): void;
    on(
      event: 'connect',
      listener: (client: { on(event: 'error', listener: (error: Error) => void): void }) => void,
    ): void;
  };
  Client: new (options: { connectionString: string }) => {
    connect(): Promise<void>;
    query(sql: string): Promise<unknown>;
    end(): Promise<void>;
  };
}
export interface GraphileWorker {
  runMigrations(options: Record<string, unknown>): Promise<void>;
  run(options: Record<string, unknown>): Promise<{ stop(): Promise<void> }>;
  Logger: new (factory: () => () => void) => unknown;
}
export const IN_FLIGHT = 8;
/**
 * graphile-worker's options as Interlock's workers set them (workers/job-consumers.ts): a
 * local queue of the worker's concurrency (the bench's: `IN_FLIGHT`), completion batched every 50 ms.
 */
export const AS_INTERLOCK_RUNS_IT = { worker: { localQueue: { size: IN_FLIGHT }, completeJobBatchDelay: 50 } };

export interface PgOptions {
  url: string;
  n: number;
  warmup: number;
  workers: number;
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
}

export function latencies(values: number[]): Record<string, number> {
  const sorted = [...values].sort((a, b) => a - b);
  const round = (value: number) => Math.round(value * 100) / 100;
  return {
    p50_ms: round(percentile(sorted, 50)),
    p90_ms: round(percentile(sorted, 90)),
    p99_ms: round(percentile(sorted, 99)),
    max_ms: round(sorted[sorted.length - 1] ?? 0),
  };
}

/** What a worker process reports when it stops. */
interface WorkerResult {
  effects: Record<string, number>;
  pg: PgCounts;
  /** CPU (user + system) of the process during the timed round trips, ms. */
  cpuMs: number;
  /** Threads a recover job took forward, and threads whose continuation a poll found. */
  recovered: string[];
  byPoll: string[];
  jobsRan: number;
}

interface WorkerProcess {
  child: ChildProcess;
  ready: Promise<void>;
  result: Promise<WorkerResult>;
}

function startWorkerProcess(url: string, schema: string): WorkerProcess {
  // BENCH_PG_WORKER_ARGS: node flags for the workers (a profile: `--cpu-prof --cpu-prof-dir=…`).
  const flags = process.env['BENCH_PG_WORKER_ARGS']?.split(' ').filter(Boolean) ?? [];
  const child = spawn(process.execPath, [...flags, path.join(here, 'pg-worker.js')], {
    env: { ...process.env, BENCH_PG_URL: url, BENCH_PG_SCHEMA: schema },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  let markReady: () => void = () => undefined;
  const ready = new Promise<void>((resolve) => (markReady = resolve));
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    out += chunk;
    if (out.includes('PG-WORKER-READY')) markReady();
  });
  const result = new Promise<WorkerResult>((resolve, reject) => {
    child.on('close', (code, signal) => {
      const line = out.split('\n').find((candidate) => candidate.startsWith('PG-WORKER-RESULT '));
      if (line === undefined) reject(new Error(`a worker exited (${code ?? signal ?? '?'}) without its result`));
      else resolve(JSON.parse(line.slice('PG-WORKER-RESULT '.length)) as WorkerResult);
    });
  });
  // Killed on the way out of a failed run: its missing result is not the failure to report.
  result.catch(() => undefined);
  return { child, ready, result };
}

/** Waiters for what the store reports: a thread's question asked, a thread completed. */
class Arrivals {
  private readonly waiting = new Map<string, (id: string) => void>();
  private readonly early = new Map<string, string>();

  heard(change: StoreChange): void {
    if (change.table === 'interactions' && change.status === 'pending')
      this.settle(`asked:${change.threadId}`, change.id);
    if (change.table === 'threads' && change.status === 'completed') this.settle(`done:${change.threadId}`, change.id);
  }

  next(key: string): Promise<string> {
    const arrived = this.early.get(key);
    if (arrived !== undefined) {
      this.early.delete(key);
      return Promise.resolve(arrived);
    }
    return new Promise((resolve) => this.waiting.set(key, resolve));
  }

  private settle(key: string, id: string): void {
    const waiter = this.waiting.get(key);
    if (waiter) {
      this.waiting.delete(key);
      waiter(id);
    } else this.early.set(key, id);
  }
}

async function roundTrip(interlock: Interlock, arrivals: Arrivals, i: number): Promise<number> {
  const threadId = threadIdFor(i);
  const started = now();
  const asked = arrivals.next(`asked:${threadId}`);
  const done = arrivals.next(`done:${threadId}`);
  await interlock.start(WORKFLOW_ID, { threadId });
  const interactionId = await asked;
  const answered = await interlock.respond(interactionId, { approved: true });
  if (answered.status !== 'accepted') throw new Error(`thread ${i}: respond said ${answered.status}`);
  await done;
  return now() - started;
}

async function runRoundTrips(interlock: Interlock, arrivals: Arrivals, from: number, count: number): Promise<number[]> {
  const times: number[] = [];
  let next = from;
  const lane = async () => {
    while (next < from + count) {
      const i = next++;
      times.push(await roundTrip(interlock, arrivals, i));
    }
  };
  await Promise.all(Array.from({ length: IN_FLIGHT }, lane));
  return times;
}

/** `workers-pg --workers K`: round trips/s with K worker processes on one PostgreSQL. */
export async function modeWorkersPg(options: PgOptions): Promise<boolean> {
  countPgStatements();
  const schema = `bench_workers_${options.workers}_${Date.now().toString(36)}`;
  const store = { type: 'postgres' as const, url: options.url, schema };
  let storeOfInterlock: ICheckpointStore | undefined;
  const interlock = await createInterlock({
    store,
    continueIn: 'workers-only',
    configureContainer: (container) => {
      storeOfInterlock = container.get(TYPES.CheckpointStore);
    },
  });
  interlock.registerWorkflow(workflow);
  const workers = Array.from({ length: options.workers }, () => startWorkerProcess(options.url, schema));
  const arrivals = new Arrivals();
  const listening = await (storeOfInterlock as ICheckpointStore).watchChanges?.((change) => arrivals.heard(change));
  try {
    await Promise.all(workers.map((worker) => worker.ready));
    await runRoundTrips(interlock, arrivals, 0, options.warmup);
    for (const worker of workers) worker.child.kill('SIGUSR2');
    takePgCounts();
    const server = await serverCpu(options.url);
    const serverAtStart = server?.read();
    const statementsAtStart = await serverStatements(options.url);
    const cpuAtStart = process.cpuUsage();
    const started = now();
    const times = await runRoundTrips(interlock, arrivals, options.warmup, options.n);
    const seconds = (now() - started) / 1000;
    const answererCpu = process.cpuUsage(cpuAtStart);
    const serverMs = serverAtStart === undefined ? undefined : (server?.read() ?? serverAtStart) - serverAtStart;
    const statementsMs =
      statementsAtStart === undefined ? undefined : ((await serverStatements(options.url)) ?? 0) - statementsAtStart;
    const answerer = takePgCounts();
    for (const worker of workers) worker.child.kill('SIGTERM');
    const effects = new Map<string, number>();
    const sent = { ...answerer };
    let workersCpuMs = 0;
    const recovered = new Set<string>();
    const byPoll = new Set<string>();
    for (const result of await Promise.all(workers.map((worker) => worker.result))) {
      const { effects: counted, pg } = result;
      for (const [thread, count] of Object.entries(counted)) effects.set(thread, (effects.get(thread) ?? 0) + count);
      sent.statements += pg.statements;
      sent.roundTrips += pg.roundTrips;
      sent.jobFetches += pg.jobFetches;
      sent.emptyJobFetches += pg.emptyJobFetches;
      workersCpuMs += result.cpuMs;
      for (const thread of result.recovered) recovered.add(thread);
      for (const thread of result.byPoll) byPoll.add(thread);
      if (pg.byStatement) traceStatements('worker', pg.byStatement, options.n);
    }
    if (answerer.byStatement) traceStatements('answerer', answerer.byStatement, options.n);
    const perRoundTrip = (count: number) => Math.round((count / options.n) * 10) / 10;
    const msPerRoundTrip = (ms: number) => Math.round((ms / options.n) * 100) / 100;
    const answererCpuMs = (answererCpu.user + answererCpu.system) / 1000;
    const total = options.warmup + options.n;
    const once = Array.from({ length: total }, (_, i) => effects.get(String(i)) === 1).every(Boolean);
    const completed = (await interlock.threads({ status: 'completed' })).length;
    const pass = once && completed === total;
    emit({
      kind: 'workers_pg',
      saver: 'postgres',
      workers: options.workers,
      in_flight: IN_FLIGHT,
      n: options.n,
      round_trips_per_sec: Math.round((options.n / seconds) * 10) / 10,
      round_trip: latencies(times),
      // Sent to PostgreSQL per approval round trip by the answerer and the workers (graphile-worker's own included).
      statements_per_round_trip: perRoundTrip(sent.statements),
      network_round_trips_per_round_trip: perRoundTrip(sent.roundTrips),
      answerer_statements_per_round_trip: perRoundTrip(answerer.statements),
      // graphile-worker's job fetches the workers sent, and those that found no job.
      job_fetches_per_round_trip: perRoundTrip(sent.jobFetches),
      empty_job_fetches_per_round_trip: perRoundTrip(sent.emptyJobFetches),
      tool_executions: [...effects.values()].reduce((sum, count) => sum + count, 0),
      completed,
      every_effect_once: once,
      // Round trips that went through the recovery path (a recover job took the thread forward),
      // or whose continuation waited for a poll: both 0 in a fault-free run (issue 38).
      recovered_round_trips: recovered.size,
      round_trips_found_by_poll: byPoll.size,
      // CPU per round trip during the timed round trips: the answerer, the workers, all of
      // Node; the PostgreSQL server's processes (/proc, when the server runs on this machine),
      // and the execution time its pg_stat_statements counted (when the extension is there).
      cpu_ms_per_round_trip: {
        answerer: msPerRoundTrip(answererCpuMs),
        workers: msPerRoundTrip(workersCpuMs),
        node: msPerRoundTrip(answererCpuMs + workersCpuMs),
        postgres: serverMs === undefined ? null : msPerRoundTrip(serverMs),
        postgres_exec: statementsMs === undefined ? null : msPerRoundTrip(statementsMs),
      },
      pass,
    });
    return pass;
  } finally {
    for (const worker of workers) worker.child.kill('SIGKILL');
    await listening?.stop();
    await interlock.close();
    await dropSchemas(options.url, [schema, `${schema}_jobs`]);
  }
}

/** `queue-pg`: graphile-worker alone — a no-op job added and picked up, `IN_FLIGHT` at once. */
export async function modeQueuePg(options: Omit<PgOptions, 'workers'>): Promise<boolean> {
  const schema = `bench_queue_${Date.now().toString(36)}`;
  const graphile = requireFromCore('graphile-worker') as GraphileWorker;
  const pg = requireFromCore('pg') as Pg;
  const pool = new pg.Pool({ connectionString: options.url, max: IN_FLIGHT + 2 });
  reportPoolErrors(pool, 'queue-pg');
  const picked = new Map<number, () => void>();
  const runner = await graphile.run({
    pgPool: pool,
    schema,
    concurrency: IN_FLIGHT,
    pollInterval: 1_000,
    noHandleSignals: true,
    logger: new graphile.Logger(() => () => undefined),
    // Its defaults, its fastest for these lanes; BENCH_QUEUE_LOCAL=1 runs it as Interlock's
    // workers do (workers/job-consumers.ts: its local queue, batched completion).
    ...(process.env['BENCH_QUEUE_LOCAL'] === '1' ? { preset: AS_INTERLOCK_RUNS_IT } : {}),
    taskList: {
      noop: async (payload: unknown) => {
        picked.get((payload as { i: number }).i)?.();
      },
    },
  });
  try {
    const lanes = noopJobLanes(pool, schema, picked);
    await lanes(0, options.warmup);
    const started = now();
    const times = await lanes(options.warmup, options.n);
    const seconds = (now() - started) / 1000;
    emit({
      kind: 'queue_pg',
      saver: 'postgres',
      queue: 'graphile-worker',
      in_flight: IN_FLIGHT,
      n: options.n,
      jobs_per_sec: Math.round((options.n / seconds) * 10) / 10,
      options: process.env['BENCH_QUEUE_LOCAL'] === '1' ? 'local queue, batched completion' : 'defaults',
      add_to_run: latencies(times),
      pass: times.length === options.n,
    });
    return times.length === options.n;
  } finally {
    await runner.stop();
    await pool.end();
    await dropSchemas(options.url, [schema]);
  }
}

/** BENCH_PG_TRACE=1: what one side sent per round trip, statement by statement (stderr). */
function traceStatements(side: string, byStatement: NonNullable<PgCounts['byStatement']>, n: number): void {
  const rows = Object.entries(byStatement).sort(([, a], [, b]) => b.roundTrips - a.roundTrips);
  for (const [text, { statements, roundTrips }] of rows)
    process.stderr.write(`${side}\t${(statements / n).toFixed(2)}\t${(roundTrips / n).toFixed(2)}\t${text}\n`);
}

/**
 * Adds no-op jobs `from`…`from + count - 1` to the queue in `schema`, `IN_FLIGHT` at a time,
 * each once the one before it in its lane ran (`ran.get(i)` is called when job `i` runs), and
 * gives each one's time from add to run (ms).
 */
export function noopJobLanes(
  pool: InstanceType<Pg['Pool']>,
  schema: string,
  ran: Map<number, () => void>,
): (from: number, count: number) => Promise<number[]> {
  const one = async (i: number): Promise<number> => {
    const started = now();
    const done = new Promise<void>((resolve) => ran.set(i, resolve));
    await pool.query(`SELECT "${schema}".add_job('noop', $1::json)`, [JSON.stringify({ i })]);
    await done;
    ran.delete(i);
    return now() - started;
  };
  return async (from, count) => {
    const times: number[] = [];
    let next = from;
    const lane = async () => {
      while (next < from + count) times.push(await one(next++));
    };
    await Promise.all(Array.from({ length: IN_FLIGHT }, lane));
    return times;
  };
}

/**
 * A failed connection of `pool` (idle, or one a query holds) is said on stderr; the pool
 * replaces it and the run goes on (graphile-worker asks for both handlers).
 */
export function reportPoolErrors(pool: InstanceType<Pg['Pool']>, who: string): void {
  const report = (error: Error) => process.stderr.write(`${who}: ${error.message}\n`);
  pool.on('error', report);
  pool.on('connect', (client) => client.on('error', report));
}

export async function dropSchemas(url: string, schemas: string[]): Promise<void> {
  const pg = requireFromCore('pg') as Pg;
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    for (const schema of schemas) await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  } finally {
    await client.end();
  }
}
