import { randomUUID } from 'node:crypto';
import type { Clock } from '../engine/clock.js';
import type { ICheckpointStore } from '../persistence/checkpoint-store.js';
import type { JobOutcome } from './job-runner.js';
import { taskIdentifier, type ThreadJob } from './thread-jobs.js';

/** Runs a job and says what became of it. */
export type RunJob = (job: ThreadJob) => Promise<JobOutcome>;

/** Takes jobs of some workflows from a queue and runs them, at most `concurrency` at once. */
export interface JobConsumer {
  start(): Promise<void>;
  /** Stops taking jobs and waits for the ones under way. */
  stop(): Promise<void>;
}

/** Reports a job that failed unexpectedly (it is run again later). */
export type ReportFailure = (job: ThreadJob, error: unknown) => void;

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

  constructor(
    private readonly store: Required<Pick<ICheckpointStore, 'takeJobs' | 'finishJob' | 'scheduleJobs'>> &
      ICheckpointStore,
    private readonly workflowIds: readonly string[],
    private readonly runJob: RunJob,
    private readonly options: {
      clock: Clock;
      concurrency: number;
      pollMs: number;
      lockMs: number;
      onFailure: ReportFailure;
    },
  ) {}

  async start(): Promise<void> {
    this.schedule(0);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await Promise.allSettled([...this.running]);
  }

  private schedule(ms: number): void {
    if (this.stopped) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.poll(), ms);
  }

  private async poll(): Promise<void> {
    const free = this.options.concurrency - this.running.size;
    if (!this.stopped && free > 0) {
      const now = this.options.clock.now();
      let jobs: ThreadJob[];
      try {
        jobs = await this.store.takeJobs(this.workflowIds, this.owner, iso(now), iso(now + this.options.lockMs), free);
        await this.store.flush?.('now');
      } catch (error) {
        // A take that was not committed holds no lock: run nothing, look again at the next poll.
        this.options.onFailure(
          { kind: 'continue', threadId: '-', workflowId: '-', runAt: iso(now), key: 'take' },
          error,
        );
        jobs = [];
      }
      for (const job of jobs) {
        const run = this.execute(job).finally(() => {
          this.running.delete(run);
          this.schedule(0);
        });
        this.running.add(run);
      }
    }
    this.schedule(this.options.pollMs);
  }

  private async execute(job: ThreadJob): Promise<void> {
    let outcome: JobOutcome;
    try {
      outcome = await this.runJob(job);
    } catch (error) {
      this.options.onFailure(job, error);
      outcome = { status: 'retry', retryAt: this.options.clock.now() + 10_000, note: 'failed' };
    }
    try {
      if (outcome.status === 'retry') await this.store.scheduleJobs([{ ...job, runAt: iso(outcome.retryAt) }]);
      else await this.store.finishJob(job.key, this.owner);
      await this.store.flush?.('now');
    } catch (error) {
      // The lock runs out and the job is taken again.
      this.options.onFailure(job, error);
    }
  }
}

/**
 * PostgreSQL: the jobs are graphile-worker's, in its schema beside the store's tables; it
 * hands out due jobs (LISTEN/NOTIFY for new ones, its own poll for scheduled ones) to the
 * task of each workflow this worker serves. A job to run again later is added anew under
 * its key.
 */
export class GraphileJobConsumer implements JobConsumer {
  private runner: { stop(): Promise<void>; promise: Promise<void> } | undefined;

  constructor(
    private readonly connection: { url: string; schema: string },
    private readonly workflowIds: readonly string[],
    private readonly runJob: RunJob,
    private readonly options: { concurrency: number; pollMs: number; onFailure: ReportFailure },
  ) {}

  async start(): Promise<void> {
    const worker = await import('graphile-worker');
    const { quietLogger } = await import('../persistence/typeorm/create-typeorm-store.js');
    const taskList: Record<
      string,
      (payload: unknown, helpers: { addJob: (...args: never[]) => Promise<unknown> }) => Promise<void>
    > = {};
    for (const workflowId of this.workflowIds) {
      taskList[taskIdentifier(workflowId)] = async (payload, helpers) => {
        const job = payload as ThreadJob;
        let outcome: JobOutcome;
        try {
          outcome = await this.runJob({ ...job, workflowId });
        } catch (error) {
          this.options.onFailure(job, error);
          throw error;
        }
        if (outcome.status === 'retry') {
          const addJob = helpers.addJob as unknown as (
            identifier: string,
            payload: unknown,
            spec: { runAt: Date; jobKey: string },
          ) => Promise<unknown>;
          await addJob(taskIdentifier(workflowId), job, { runAt: new Date(outcome.retryAt), jobKey: job.key });
        }
      };
    }
    this.runner = await worker.run({
      connectionString: this.connection.url,
      schema: this.connection.schema,
      concurrency: this.options.concurrency,
      pollInterval: this.options.pollMs,
      noHandleSignals: true,
      logger: quietLogger(worker),
      taskList,
    });
  }

  async stop(): Promise<void> {
    const runner = this.runner;
    this.runner = undefined;
    // A runner that stopped by itself (its database connection failed for good) is stopped already.
    await runner?.stop().catch((error: unknown) => {
      if (!(error instanceof Error && /already stopped/i.test(error.message))) throw error;
    });
  }
}

function iso(at: number): string {
  return new Date(at).toISOString();
}
