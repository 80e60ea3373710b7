import { InterlockError, toInterlockError } from '../errors/interlock-error.js';
import type { Clock } from '../engine/clock.js';
import type { ICheckpointStore, StoredThread, ThreadRecord } from '../persistence/checkpoint-store.js';
import type { JobPlanner } from './job-planner.js';
import type { ThreadJob } from './thread-jobs.js';

/** What became of a job: done, or to be run again at `retryAt` (ms since the epoch). */
export type JobOutcome = { status: 'done'; note?: string } | { status: 'retry'; retryAt: number; note: string };

/** The part of Interlock a job runner drives. */
export interface ThreadDriver {
  /** Takes the thread forward; from `carried` (the thread as a job carried it) without reading it back. */
  resume(threadId: string, carried?: StoredThread): Promise<{ done(): Promise<unknown> }>;
  /** Offers a waiting approval to its escalation approvers (F51); whether it did. */
  escalate(interactionId: string): Promise<boolean>;
}

/**
 * Runs one job of a worker (issue 12): times out an overdue interaction, then takes the
 * thread forward with `resume()`, which claims it (one process at a time) and keeps every
 * promise of docs/persistence.md. A thread another live process holds is looked at again
 * once that claim ends; one that ended, or that nothing waits to move, is done.
 */
export class JobRunner {
  constructor(
    private readonly interlock: ThreadDriver,
    private readonly store: ICheckpointStore,
    private readonly clock: Clock,
    /** Plans the recover jobs this runner schedules (the worker's: `continueIn: 'workers'`). */
    private readonly planner: JobPlanner,
  ) {}

  async run(job: ThreadJob): Promise<JobOutcome> {
    switch (job.kind) {
      case 'deadline':
        await this.expire(job);
        return this.resume(job.threadId);
      // resume() reads the thread once (unless the job carries it, with its scope's remembered
      // approvals), and says when it ended (THREAD_NOT_WAITING).
      case 'continue':
        return this.resume(job.threadId, undefined, carriedOf(job));
      case 'recover': {
        const thread = await this.store.getThread(job.threadId);
        if (thread === undefined || (thread.status !== 'waiting' && thread.status !== 'running'))
          return { status: 'done', note: 'the thread ended' };
        return this.recover(job, thread);
      }
      case 'escalate': {
        // The thread stays as it is: only the question is offered to more people.
        const escalated = job.interactionId !== undefined && (await this.interlock.escalate(job.interactionId));
        return { status: 'done', note: escalated ? 'escalated' : 'nothing to escalate' };
      }
    }
  }

  /** A thread a claim should have let go of by now: goes on if it was left running or answered; looked at again while the claim lives. */
  private async recover(job: ThreadJob, thread: ThreadRecord): Promise<JobOutcome> {
    const until = thread.lease === undefined ? undefined : Date.parse(thread.lease.until);
    if (until !== undefined && until > this.clock.now())
      return { status: 'retry', retryAt: until + 1_000, note: 'the thread is still claimed' };
    if (thread.status === 'running') return recovered(await this.resume(thread.threadId, thread));
    // What the thread's own record waits on decides: an answer it has not taken in yet
    // (whatever the interaction's status says) or a deadline that passed moves it on.
    const waitedOn = (await this.store.listInteractions({ threadId: thread.threadId })).filter((interaction) =>
      thread.pendingInteractionIds.includes(interaction.interactionId),
    );
    const settled = waitedOn.some((interaction) => interaction.status !== 'pending');
    const overdue = waitedOn.some(
      (interaction) =>
        interaction.status === 'pending' &&
        interaction.deadline !== null &&
        Date.parse(interaction.deadline) <= this.clock.now(),
    );
    if (!settled && !overdue) return { status: 'done', note: `nothing to recover (${job.key})` };
    if (overdue) await this.expire({ ...job, kind: 'deadline' });
    return recovered(await this.resume(thread.threadId, thread));
  }

  /** Times out the job's interaction, or every overdue one of the thread, if still pending. */
  private async expire(job: ThreadJob): Promise<void> {
    const now = this.clock.now();
    const overdue = (await this.store.listInteractions({ threadId: job.threadId, status: 'pending' })).filter(
      (interaction) =>
        (job.interactionId === undefined || interaction.interactionId === job.interactionId) &&
        interaction.deadline !== null &&
        Date.parse(interaction.deadline) <= now,
    );
    if (overdue.length === 0) return;
    const at = new Date(now).toISOString();
    await this.store.commit({
      interactions: overdue.map((interaction) => ({
        kind: 'fail' as const,
        interactionId: interaction.interactionId,
        reason: 'timeout' as const,
        message: 'nobody answered before the deadline',
        at,
      })),
    });
  }

  /**
   * Takes the thread forward. A job a worker holds stays taken if the worker dies (on
   * PostgreSQL, for hours), so each such job has a recovery due once its claim should have
   * ended: continue and deadline jobs are scheduled with one (JobPlanner); a recover job
   * that takes the thread forward (`withRecovery`: the thread it read) schedules its own
   * first, and a job to run again later gets one with it. `carried`: the thread as the job
   * carried it; should the store refuse it as stale (or it show a claim that has ended since),
   * the thread is read again at once.
   */
  private async resume(threadId: string, withRecovery?: ThreadRecord, carried?: StoredThread): Promise<JobOutcome> {
    if (withRecovery !== undefined)
      await this.store.commit({ jobs: [this.planner.recovery(withRecovery, this.clock.now())] });
    try {
      await (await this.interlock.resume(threadId, carried)).done();
      return { status: 'done' };
    } catch (error) {
      const failure = toInterlockError(error);
      if (carried !== undefined && (failure.code === 'THREAD_BUSY' || failure.code === 'STORE_CONFLICT'))
        return this.resume(threadId);
      switch (failure.code) {
        // Another process holds the thread, or took it from this one (which froze past its
        // claim): look again once that claim ends, for its holder may die before it goes on.
        case 'THREAD_BUSY':
        case 'STORE_CONFLICT': {
          const current = await this.store.getThread(threadId);
          if (current === undefined) return { status: 'done', note: failure.message };
          const until = current.lease === undefined ? this.clock.now() : Date.parse(current.lease.until);
          const retryAt = Math.max(until, this.clock.now()) + 1_000;
          await this.store.commit({ jobs: [this.planner.recovery(current, retryAt)] });
          return { status: 'retry', retryAt, note: failure.message };
        }
        case 'THREAD_NOT_WAITING':
        case 'THREAD_NOT_FOUND':
          return { status: 'done', note: failure.message };
        case 'STORE_UNAVAILABLE':
        case 'STORE_OUTCOME_UNKNOWN':
          return { status: 'retry', retryAt: this.clock.now() + 5_000, note: failure.message };
        default:
          throw InterlockError.is(error) ? error : failure;
      }
    }
  }
}

/** A recover job's outcome once it took its thread forward: the thread went through recovery. */
function recovered(outcome: JobOutcome): JobOutcome {
  return outcome.status === 'done' ? { status: 'done', note: RECOVERED } : outcome;
}

/** The note of a recover job that took its thread forward (see `JobReport`). */
export const RECOVERED = 'recovered';

/** The thread a continue job carries, with the remembered approvals the store added to the job. */
function carriedOf(job: ThreadJob): StoredThread | undefined {
  if (job.stored === undefined || job.remembered === undefined) return job.stored;
  return { ...job.stored, remembered: job.remembered };
}
