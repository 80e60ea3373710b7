import { randomUUID } from 'node:crypto';
import { interval } from 'rxjs';
import type { WorkflowDefinition, WorkflowDefinitionInput } from '@interlock/sdk-types';
import type { Clock } from '../engine/clock.js';
import type { ThreadClaims } from '../engine/thread-claims.js';
import { TYPES } from '../di/tokens.js';
import { keepDefinition } from '../engine/thread-definitions.js';
import { InterlockError } from '../errors/interlock-error.js';
import { containerOf, createInterlock, type Interlock } from '../interlock.js';
import type { InterlockOptions } from '../interlock-options.js';
import { resolveStoreOptions } from '../interlock-store.js';
import type { StoreOptions } from '../persistence/open-store.js';
import { listenForWorkerHealth } from './health-listener.js';
import {
  GraphileJobConsumer,
  isQueueJob,
  StoreJobConsumer,
  type JobConsumer,
  type JobReport,
} from './job-consumers.js';
import type { JobPlanner } from './job-planner.js';
import { JobRunner } from './job-runner.js';
import { offerWorkflows, withdrawWorkflows } from './served-workflows.js';
import { continueJob, deadlineJob, jobQueue, recoverJob, type ThreadJob } from './thread-jobs.js';
import { placementOf } from '../persistence/typeorm/postgres-placement.js';
import type { ICheckpointStore, StoredThread, ThreadRecord } from '../persistence/checkpoint-store.js';
import type { ThreadRunner } from '../engine/thread-runner.js';

export interface WorkerOptions extends Omit<InterlockOptions, 'store' | 'continueIn' | 'recoverOnStart'> {
  /** The deployment's store: SQLite (one machine) or PostgreSQL. */
  store: Extract<StoreOptions, { type: 'sqlite' } | { type: 'postgres' }>;
  /** The workflows this worker serves (files or definitions): it takes only their threads' jobs. */
  workflows: (string | WorkflowDefinitionInput)[];
  /** How many threads it takes forward at once. Default 4. */
  concurrency?: number;
  /** How often it looks for jobs that came due (ms). Default 250 on SQLite, 500 on PostgreSQL (new jobs arrive at once there). */
  pollMs?: number;
  /**
   * Told about a job that failed unexpectedly (it is run again later), and about the job
   * queue itself failing (a job with `threadId` "-" and `key` "take" or "queue"; it is
   * tried again). Default: a line on stderr.
   */
  onJobFailure?: (job: ThreadJob, error: unknown) => void;
  /**
   * Told of each job the worker ran: the job, what became of it (`outcome.note` is
   * `"recovered"` when a recover job took its thread forward: the process before it stopped
   * or lost it), and whether a poll found it rather than the announcement of the unit that
   * added it (`byPoll`: it waited for the poll). For metrics; it must not throw.
   */
  onJob?: (report: JobReport) => void;
  /** Answer `/healthz` and `/readyz` (store, migrations, jobQueue) on this port (F60); 0 picks a free one. Default none. */
  healthPort?: number;
  /** Where the health port listens. Default 127.0.0.1. */
  healthHost?: string;
}

/** A process that holds the tools and models of some workflows and takes their threads forward (issue 12). */
export interface InterlockWorker {
  /** The worker's Interlock: it starts threads too (`worker.interlock.start(…)`), continued here or in any worker. */
  readonly interlock: Interlock;
  /** The workflows it serves. */
  readonly workflowIds: readonly string[];
  /** Where `/healthz` and `/readyz` answer, with `healthPort`. */
  readonly healthUrl?: string;
  /** Stops taking jobs, waits for the threads under way to stop, and closes the store. */
  stop(): Promise<void>;
}

/**
 * Starts a worker: it continues threads after answers given anywhere (the web inbox, the
 * chat, `interlock respond`), times out interactions when their deadline comes, and takes
 * over threads whose process died, for the workflows it registered. On PostgreSQL the jobs
 * are graphile-worker's, in the same database; on SQLite the store is its own queue.
 *
 * @example
 * const worker = await createWorker({
 *   store: { type: 'postgres', url: process.env.DATABASE_URL! },
 *   workflows: ['workflows/refund.toml'],
 *   tools: [refund],
 *   models: { default: openAICompatible({ model: 'gpt-4o-mini' }) },
 * });
 */
export async function createWorker(options: WorkerOptions): Promise<InterlockWorker> {
  const {
    workflows,
    concurrency = 4,
    pollMs,
    onJobFailure,
    onJob,
    healthPort,
    healthHost,
    ...interlockOptions
  } = options;
  if (!Number.isSafeInteger(concurrency) || concurrency < 1 || concurrency > 1_000) {
    throw new InterlockError(
      'INVALID_OPTIONS',
      `concurrency must be a whole number from 1 to 1000, not ${String(concurrency)}`,
    );
  }
  if (workflows.length === 0)
    throw new InterlockError('INVALID_OPTIONS', 'a worker serves at least one workflow: list them in `workflows`');
  // A URL's ?schema= is the schema, for the store and for the job queue beside it.
  const storeOptions = resolveStoreOptions(options.store) as WorkerOptions['store'];
  // Overdue questions are timed out by deadline jobs (see sweep), which also take their threads on.
  const interlock = await createInterlock({
    ...interlockOptions,
    store: sizedStore(storeOptions, concurrency),
    continueIn: 'workers',
    recoverOnStart: false,
  });
  // The same services the Interlock runs threads with (a rebound Clock or store included).
  const container = containerOf(interlock);
  const clock = container.get<Clock>(TYPES.Clock);
  const store = container.get<ICheckpointStore>(TYPES.CheckpointStore);
  const planner = container.get<JobPlanner>(TYPES.JobPlanner);
  const leaseMs = container.get<ThreadClaims>(TYPES.ThreadClaims).ttlMs;
  try {
    const definitions: WorkflowDefinition[] = [];
    for (const workflow of workflows) {
      definitions.push(
        typeof workflow === 'string' ? await interlock.loadWorkflow(workflow) : interlock.registerWorkflow(workflow),
      );
    }
    const workflowIds = definitions.map((definition) => definition.id);
    // Jobs are routed by version: this worker takes the threads of the versions it serves only.
    const queues = definitions.map((definition) => jobQueue(definition.id, definition.version));
    // Kept in the store (refused if edited under the same version), so answerers can start them.
    for (const definition of definitions)
      await keepDefinition(store, definition, (kept) => store.commit({ definitions: [kept] }));
    // Jobs take threads forward through the runner itself: a job that carries its thread hands it over.
    const threads = container.get<ThreadRunner>(TYPES.ThreadRunner);
    const driver = {
      resume: (threadId: string, carried?: StoredThread) => threads.resume(threadId, carried),
      escalate: (interactionId: string) => interlock.escalate(interactionId),
    };
    const runner = new JobRunner(driver, store, clock, planner);
    const onFailure = onJobFailure ?? reportOnStderr;
    let consumer: JobConsumer;
    if (storeOptions.type === 'postgres') {
      // The job queue the store installed as it opened, where its commits queue jobs (issue 34).
      const placement = placementOf(store);
      if (placement === undefined)
        throw new InterlockError(
          'INVALID_OPTIONS',
          'the store this worker runs on does not say where its job queue is: bind the PostgreSQL store createInterlock opened (or a wrapper that forwards its `placement`)',
        );
      consumer = new GraphileJobConsumer(
        { url: storeOptions.url, schema: placement.jobsSchema },
        queues,
        (job) => runner.run(job),
        {
          concurrency,
          pollMs: pollMs ?? 500,
          poolSize: queuePoolSize(concurrency),
          onFailure,
          ...(onJob === undefined ? {} : { onJob }),
        },
      );
    } else {
      if (store.takeJobs === undefined || store.finishJob === undefined) {
        throw new InterlockError(
          'INVALID_OPTIONS',
          'this store cannot hold jobs: workers need the SQLite store or PostgreSQL',
        );
      }
      consumer = new StoreJobConsumer(
        store as ConstructorParameters<typeof StoreJobConsumer>[0],
        queues,
        (job) => runner.run(job),
        {
          clock,
          concurrency,
          pollMs: pollMs ?? 250,
          lockMs: 2 * leaseMs,
          onFailure,
          ...(onJob === undefined ? {} : { onJob }),
        },
      );
    }
    await consumer.start();
    await sweep(store, queues, planner, clock.now());
    const offers = offerWhileRunning(store, definitions, clock, leaseMs, () => consumer.taking());
    await offers.first;
    const health =
      healthPort === undefined
        ? undefined
        : await listenForWorkerHealth(store, storeOptions, consumer, healthPort, healthHost);
    return {
      interlock,
      workflowIds,
      ...(health === undefined ? {} : { healthUrl: health.url }),
      async stop() {
        await health?.close();
        await offers.stop();
        await consumer.stop();
        await interlock.close();
      },
    };
  } catch (error) {
    await interlock.close();
    throw error;
  }
}

/**
 * The connections a worker of `concurrency` opens on PostgreSQL at most (docs/persistence.md):
 * the store's, a statement of each job under way plus the offers and a spare
 * (`concurrency + 2`, unless `store.poolSize` says otherwise), and the job queue's, a fetch or
 * completion of each job at once plus the connection it listens on (`concurrency + 1`).
 */
export function storePoolSize(concurrency: number): number {
  return concurrency + 2;
}

/** See {@link storePoolSize}. */
export function queuePoolSize(concurrency: number): number {
  return concurrency + 1;
}

function sizedStore(store: WorkerOptions['store'], concurrency: number): WorkerOptions['store'] {
  return store.type === 'postgres' ? { ...store, poolSize: store.poolSize ?? storePoolSize(concurrency) } : store;
}

/**
 * Threads of these workflow versions (`queues`) that no job looks after yet (started or asked by a process
 * whose threads continue in itself, `interlock run --detach`, before this worker ran):
 * each pending question with a deadline gets its deadline job, each answered or timed-out
 * question its thread still waits on a continue job, and each thread left `running` a
 * recover job, so a worker times them out and takes them over.
 */
async function sweep(
  store: ICheckpointStore,
  queues: readonly string[],
  planner: JobPlanner,
  now: number,
): Promise<void> {
  const jobs: ThreadJob[] = [];
  // What the sweep needs of each thread, not the thread: with 100,000 suspended threads the
  // records (conversations included) would all be held at once.
  type Waits = Pick<ThreadRecord, 'threadId' | 'workflowId' | 'workflowVersion' | 'pendingInteractionIds'>;
  const threads = new Map<string, Promise<Waits | undefined>>();
  const threadOf = (threadId: string) => {
    if (!threads.has(threadId))
      threads.set(
        threadId,
        store.getThread(threadId).then((thread) =>
          thread === undefined
            ? undefined
            : {
                threadId: thread.threadId,
                workflowId: thread.workflowId,
                workflowVersion: thread.workflowVersion,
                pendingInteractionIds: thread.pendingInteractionIds,
              },
        ),
      );
    return threads.get(threadId) as Promise<Waits | undefined>;
  };
  for (const status of ['pending', 'responded', 'failed'] as const) {
    for (const interaction of await store.listInteractions({ status })) {
      if (status === 'pending' && interaction.deadline === null) continue;
      const thread = await threadOf(interaction.threadId);
      if (
        thread === undefined ||
        !queues.includes(jobQueue(thread.workflowId, thread.workflowVersion)) ||
        !thread.pendingInteractionIds.includes(interaction.interactionId)
      )
        continue;
      jobs.push(
        status === 'pending' && interaction.deadline !== null
          ? deadlineJob(thread, interaction.interactionId, interaction.deadline)
          : { ...continueJob(thread, now), key: `continue:${thread.threadId}` },
        // Should the worker that takes it die, a look at the thread once its claim should have ended.
        status === 'pending' && interaction.deadline !== null
          ? planner.deadlineRecovery(thread, interaction.interactionId, interaction.deadline)
          : planner.recovery(thread, now),
      );
    }
  }
  for (const thread of await store.listThreads({ status: 'running' })) {
    if (queues.includes(jobQueue(thread.workflowId, thread.workflowVersion))) jobs.push(recoverJob(thread, now));
  }
  if (jobs.length > 0) await store.commit({ jobs });
}

/**
 * Says which workflows this worker serves, again every third of a lease, each time for a
 * lease: an answerer lists a workflow only while some worker serving it is alive.
 */
function offerWhileRunning(
  store: ICheckpointStore,
  definitions: readonly WorkflowDefinition[],
  clock: Clock,
  leaseMs: number,
  taking: () => boolean,
) {
  const offerer = randomUUID();
  let renewal: Promise<void> = Promise.resolve();
  const offer = () =>
    (renewal = offerWorkflows(store, definitions, new Date(clock.now() + leaseMs).toISOString(), offerer, clock.now()));
  // While its queue is down the worker lets its offer run out: answerers stop counting on it.
  const renewals = interval(Math.max(100, Math.floor(leaseMs / 3))).subscribe(() => {
    if (taking()) void offer().catch(() => undefined);
  });
  return {
    first: offer(),
    /** Stops renewing and withdraws the offer at once (issue 37); a store that fails lets it run out. */
    stop: async () => {
      renewals.unsubscribe();
      await renewal.catch(() => undefined);
      await withdrawWorkflows(store, definitions, offerer).catch(() => undefined);
    },
  };
}

function reportOnStderr(job: ThreadJob, error: unknown): void {
  const message = error instanceof Error ? error.message : String(error);
  if (isQueueJob(job)) {
    process.stderr.write(`interlock worker: the job queue (${job.key}): ${message}\n`);
    return;
  }
  process.stderr.write(
    `interlock worker: ${job.kind} job of thread ${job.threadId} failed (it runs again later): ${message}\n`,
  );
}
