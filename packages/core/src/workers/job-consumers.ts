import { randomUUID } from 'node:crypto';
import type { Clock } from '../engine/clock.js';
import type { ICheckpointStore } from '../persistence/checkpoint-store.js';
import type { JobOutcome } from './job-runner.js';
import { guardedPool } from './guarded-pool.js';
import { JobPickups } from './job-pickups.js';
import { taskIdentifier, type ThreadJob } from './thread-jobs.js';

/** Runs a job and says what became of it. */
export type RunJob = (job: ThreadJob) => Promise<JobOutcome>;

/** Takes the jobs of some queues (workflow versions, see `jobQueue`) and runs them, at most `concurrency` at once. */
export interface JobConsumer {
  start(): Promise<void>;
  /** Whether it takes jobs now (a worker whose queue is down does not offer its workflows). */
  taking(): boolean;
  /** Stops taking jobs and waits for the ones under way. */
  stop(): Promise<void>;
  /** Resolves when the queue takes jobs and its database answers; rejects saying what is wrong (health, F60). */
  probe(): Promise<void>;
}

/** Reports a job that failed unexpectedly (it is run again later). */
export type ReportFailure = (job: ThreadJob, error: unknown) => void;

/** What a worker tells of a job it ran. */
export interface JobReport {
  job: ThreadJob;
  outcome: JobOutcome;
  /** Whether a poll found it (no announcement reached the worker, or it came due later): it waited for the poll. */
  byPoll: boolean;
}

/** Told of each job a worker ran. */
export type ReportJob = (report: JobReport) => void;

/**
 * The store as its own queue (SQLite, one machine): due jobs are taken under the store's
 * write lock, locked for `lockMs` (a worker that dies lets them go when it runs out), and
 * polled every `pollMs`, or at once when a job finished and more may wait.
 */
export class StoreJobConsumer implements JobConsumer {
  private readonly owner = `worker-${randomUUID()}`;
  private readonly running = new Set<Promise<void>>();
  private timer: ReturnType<typeof setTimeout> | undefined;
  private stopped = false;
  /** Why the last take failed, until one succeeds. */
  private takeFailure: string | undefined;

  constructor(
    private readonly store: Required<Pick<ICheckpointStore, 'takeJobs' | 'finishJob'>> & ICheckpointStore,
    /** The queues whose jobs it takes: `<workflow id>@<version>`. */
    private readonly queues: readonly string[],
    private readonly runJob: RunJob,
    private readonly options: {
      clock: Clock;
      concurrency: number;
      pollMs: number;
      lockMs: number;
      onFailure: ReportFailure;
      /** Told of each job run. */
      onJob?: ReportJob;
    },
  ) {}

  async start(): Promise<void> {
    this.schedule(0);
  }

  taking(): boolean {
    return !this.stopped;
  }

  async probe(): Promise<void> {
    if (this.stopped) throw new Error('the job queue is stopped');
    if (this.takeFailure !== undefined) throw new Error(`the last take of jobs failed: ${this.takeFailure}`);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await Promise.allSettled([...this.running]);
  }

  private schedule(ms: number): void {
    if (this.stopped) return;
    clearTimeout(this.timer);
    // A take right after a job finished is not a poll: more may wait.
    this.timer = setTimeout(() => void this.poll(ms > 0), ms);
  }

  private async poll(byPoll: boolean): Promise<void> {
    const free = this.options.concurrency - this.running.size;
    if (!this.stopped && free > 0) {
      const now = this.options.clock.now();
      let jobs: ThreadJob[];
      try {
        jobs = await this.store.takeJobs(this.queues, this.owner, iso(now), iso(now + this.options.lockMs), free);
        this.takeFailure = undefined;
      } catch (error) {
        this.takeFailure = error instanceof Error ? error.message : String(error);
        // A take that was not committed holds no lock: run nothing, look again at the next poll.
        this.options.onFailure(queueJob('take'), error);
        jobs = [];
      }
      for (const job of jobs) {
        const run = this.execute(job, byPoll).finally(() => {
          this.running.delete(run);
          this.schedule(0);
        });
        this.running.add(run);
      }
    }
    this.schedule(this.options.pollMs);
  }

  private async execute(job: ThreadJob, byPoll: boolean): Promise<void> {
    let outcome: JobOutcome;
    try {
      outcome = await this.runJob(job);
      this.options.onJob?.({ job, outcome, byPoll });
    } catch (error) {
      this.options.onFailure(job, error);
      outcome = { status: 'retry', retryAt: this.options.clock.now() + 10_000, note: 'failed' };
    }
    try {
      if (outcome.status === 'retry') await this.store.commit({ jobs: [{ ...job, runAt: iso(outcome.retryAt) }] });
      else await this.store.finishJob(job.key, this.owner);
    } catch (error) {
      // The lock runs out and the job is taken again.
      this.options.onFailure(job, error);
    }
  }
}

/**
 * PostgreSQL: the jobs are graphile-worker's, in its schema beside the store's tables; it
 * hands out due jobs to the task of each workflow version this worker serves. Its own
 * mechanisms carry them (issue 38): the local queue fetches due jobs in batches when it
 * hears of new ones (`jobs:insert`, sent by the unit of work that added them), when its
 * cached jobs run out, and once per `pollMs` otherwise; completions are batched. A job to run
 * again later is added anew under its key. A runner that stops by itself (its database
 * failed for good, or it heard of a breaking migration of its own schema) is reported and
 * started again, backing off to 30 s while it cannot start; see {@link guardedPool} for the
 * migrations of other schemas.
 */
export class GraphileJobConsumer implements JobConsumer {
  private runner: { stop(): Promise<void>; promise: Promise<void> } | undefined;
  private pool: import('pg').Pool | undefined;
  private stopping = false;
  private readonly exitCodeBefore = process.exitCode;
  private restart: ReturnType<typeof setTimeout> | undefined;
  private restarting: Promise<void> | undefined;
  /** A runner that stopped taking jobs by itself and may still finish some. */
  private draining: { stop(): Promise<void>; promise: Promise<void> } | undefined;
  /**
   * The newest breaking migration of the queue's schema once this worker started (until then
   * every announcement is ignored: the runner checks the schema as it starts).
   */
  private knownBreaking = Number.POSITIVE_INFINITY;
  /** Which jobs the runner's polls found (see JobPickups). */
  private pickups = new JobPickups();

  constructor(
    private readonly connection: { url: string; schema: string },
    /** The queues whose jobs it takes: `<workflow id>@<version>`. */
    private readonly queues: readonly string[],
    private readonly runJob: RunJob,
    private readonly options: {
      concurrency: number;
      pollMs: number;
      /** Connections of graphile-worker's pool: one per job fetched or completed at once, and one to listen. */
      poolSize: number;
      onFailure: ReportFailure;
      /** Told of each job run (issue 38: how it was found, what became of it). */
      onJob?: ReportJob;
    },
  ) {}

  async start(): Promise<void> {
    const { url, schema } = this.connection;
    const pool = await guardedPool(url, schema, this.options.poolSize, () => this.ownSchemaMigrated());
    this.pool = pool;
    try {
      await this.startRunner(pool);
      this.knownBreaking = await this.newestBreakingMigration();
    } catch (error) {
      await this.stop();
      throw error;
    }
  }

  taking(): boolean {
    return this.runner !== undefined;
  }

  async probe(): Promise<void> {
    if (this.runner === undefined)
      throw new Error('the job queue is not running (it is started again with a back-off)');
    // Through the queue's own pool: the connections its runner fetches and completes jobs on.
    await this.pool?.query(`SELECT 1 FROM "${this.connection.schema}"._private_jobs LIMIT 1`);
  }

  async stop(): Promise<void> {
    this.stopping = true;
    clearTimeout(this.restart);
    // A restart under way stops its runner itself (see startRunner); wait for it.
    await this.restarting?.catch(() => undefined);
    const runners = [this.runner, this.draining].filter((runner) => runner !== undefined);
    this.runner = undefined;
    this.draining = undefined;
    for (const runner of runners) {
      // A runner that stopped by itself (its database connection failed for good) is stopped already.
      await runner.stop().catch((error: unknown) => {
        if (!(error instanceof Error && /already stopped/i.test(error.message))) throw error;
      });
      // Its jobs under way finish (a runner shutting down by itself returns from stop() at once).
      await runner.promise.catch(() => undefined);
    }
    await this.pool?.end();
    this.pool = undefined;
  }

  private async startRunner(pool: import('pg').Pool): Promise<void> {
    const worker = await import('graphile-worker');
    const { EventEmitter } = await import('node:events');
    const { quietLogger } = await import('../persistence/typeorm/create-typeorm-store.js');
    const events = new EventEmitter();
    const pickups = new JobPickups();
    pickups.watch(events);
    this.pickups = pickups;
    const { concurrency, pollMs } = this.options;
    const runner = await worker.run({
      pgPool: pool,
      schema: this.connection.schema,
      concurrency,
      pollInterval: pollMs,
      noHandleSignals: true,
      logger: quietLogger(worker),
      events,
      taskList: this.taskList(),
      preset: {
        worker: {
          // Due jobs are fetched a batch at a time, one fetch for the process (not one per
          // worker), and completed in batches: fewer statements per job, none for a worker
          // that finds nothing.
          localQueue: { size: concurrency },
          completeJobBatchDelay: COMPLETE_BATCH_MS,
        },
      },
    });
    // Stopped while this (re)start was under way: it must not outlive the worker.
    if (this.stopping) {
      await runner.stop();
      return;
    }
    this.runner = runner;
    // graphile-worker marks the process to exit with 57 when it stops for a breaking migration;
    // running again, the schema turned out compatible after all.
    if (process.exitCode === GRAPHILE_MIGRATED_EXIT && this.exitCodeBefore !== GRAPHILE_MIGRATED_EXIT)
      process.exitCode = this.exitCodeBefore;
    const ended = (error?: unknown) => {
      if (this.runner !== runner) return;
      this.draining = runner;
      this.runnerEnded(error ?? new Error('the job queue stopped taking jobs'), 1_000);
    };
    runner.promise.then(() => ended(), ended);
  }

  /** The runner stopped though nobody stopped the worker: report it and start another. */
  private runnerEnded(error: unknown, delayMs: number): void {
    this.runner = undefined;
    if (this.stopping) return;
    this.options.onFailure(queueJob('queue'), error);
    const pool = this.pool;
    this.restart = setTimeout(() => {
      if (this.stopping || pool === undefined) return;
      this.restarting = this.startRunner(pool).catch((failed: unknown) =>
        this.runnerEnded(failed, Math.min(2 * delayMs, 30_000)),
      );
    }, delayMs);
  }

  private taskList(): TaskList {
    const taskList: TaskList = {};
    for (const queue of this.queues) {
      taskList[taskIdentifier(queue)] = async (payload, helpers) => {
        const job = payload as ThreadJob;
        const byPoll = this.pickups.takePolled(helpers.job.id);
        let outcome: JobOutcome;
        try {
          outcome = await this.runJob({ ...job, workflowId: queue });
        } catch (error) {
          this.options.onFailure(job, error);
          throw error;
        }
        this.options.onJob?.({ job, outcome, byPoll });
        if (outcome.status === 'retry') {
          const addJob = helpers.addJob as unknown as (
            identifier: string,
            payload: unknown,
            spec: { runAt: Date; jobKey: string },
          ) => Promise<unknown>;
          // Run again later: read afresh then (the thread a job carried is dropped).
          const { stored: _stored, ...again } = job;
          await addJob(taskIdentifier(queue), again, { runAt: new Date(outcome.retryAt), jobKey: job.key });
        }
      };
    }
    return taskList;
  }

  private async newestBreakingMigration(): Promise<number> {
    const result = await this.pool?.query<{ id: number | null }>(
      `SELECT max(id) AS id FROM "${this.connection.schema}".migrations WHERE breaking`,
    );
    return result?.rows[0]?.id ?? 0;
  }

  /** Whether a breaking migration this worker does not know was run in its own queue schema. */
  private async ownSchemaMigrated(): Promise<boolean> {
    return (await this.newestBreakingMigration()) > this.knownBreaking;
  }
}

/**
 * How long graphile-worker waits after a job completes for others to complete with it in
 * one statement (ms). A completed job stays locked that much longer; its thread's progress
 * is committed already, so nothing waits on it. 50 rather than 10: at ~180 round trips/s a
 * batch then holds most of the jobs of its window (bench workers-pg, 1 worker: 8.6–8.8 →
 * 8.2–8.4 network round trips per round trip; 100 saved nothing more).
 */
const COMPLETE_BATCH_MS = 50;

/** The exit code graphile-worker gives the process when it stops for a breaking migration. */
const GRAPHILE_MIGRATED_EXIT = 57;

type TaskList = Record<
  string,
  (
    payload: unknown,
    helpers: { job: { id: string | number }; addJob: (...args: never[]) => Promise<unknown> },
  ) => Promise<void>
>;

/** What a failure of the queue itself (not of one job) is reported as: a job of no thread. */
export function queueJob(key: 'take' | 'queue'): ThreadJob {
  return { kind: 'continue', threadId: QUEUE, workflowId: QUEUE, runAt: new Date(0).toISOString(), key };
}

/** Whether a reported job stands for the queue itself (see {@link queueJob}). */
export function isQueueJob(job: ThreadJob): boolean {
  return job.threadId === QUEUE;
}

const QUEUE = '-';

function iso(at: number): string {
  return new Date(at).toISOString();
}
