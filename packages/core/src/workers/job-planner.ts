import type { Clock } from '../engine/clock.js';
import type {
  InteractionRecord,
  InteractionResponseRecord,
  StoredThread,
  ThreadRecord,
} from '../persistence/checkpoint-store.js';
import {
  continueJob,
  deadlineJob,
  escalateJob,
  recoverJob,
  recoverKey,
  type JobThread,
  type ThreadJob,
} from './thread-jobs.js';

/**
 * Where threads go on: in the process that answered (`this-process`, the embedded default),
 * in a worker after each answer (`workers`: the process that starts a thread runs it until it
 * first waits), or only ever in workers (`workers-only`: this process runs no thread at
 * all — an answerer such as the web inbox or a chat bot, which holds none of the tools).
 */
export type ContinueIn = 'this-process' | 'workers' | 'workers-only';

export const CONTINUE_IN: readonly ContinueIn[] = ['this-process', 'workers', 'workers-only'];

/**
 * Which jobs go with which write (issue 12), when threads continue in workers: a deadline
 * job with each interaction that has one, a continue job with each answer, and with each a
 * recover job a little after the claim that follows should have ended, so a worker that
 * dies or freezes never leaves the thread behind. In `this-process` mode there are none.
 */
export class JobPlanner {
  constructor(
    readonly continueIn: ContinueIn,
    private readonly clock: Clock,
    private readonly leaseMs: number,
  ) {}

  get enabled(): boolean {
    return this.continueIn !== 'this-process';
  }

  /** Whether this process runs threads at all (not with `workers-only`). */
  get runsThreads(): boolean {
    return this.continueIn !== 'workers-only';
  }

  /** With new interactions: their deadlines, each with its recovery, and their escalations (F51). */
  forInteractions(thread: ThreadRecord, interactions: readonly InteractionRecord[]): ThreadJob[] {
    if (!this.enabled) return [];
    return interactions.flatMap((interaction) => {
      const escalation = interaction.request.toolApproval?.quorum?.escalation;
      return [
        ...(interaction.deadline === null
          ? []
          : [
              deadlineJob(thread, interaction.interactionId, interaction.deadline),
              this.deadlineRecovery(thread, interaction.interactionId, interaction.deadline),
            ]),
        ...(escalation === undefined ? [] : [escalateJob(thread, interaction.interactionId, escalation.at)]),
      ];
    });
  }

  /**
   * With an answer: the thread's continuation, and its recovery. `carry`: the thread as the
   * answer's unit leaves it (read before it, the answer applied), which the continuation
   * carries so the worker does not read it back (issue 38).
   */
  forAnswer(
    thread: ThreadRecord,
    interactionId: string,
    carry?: { stored: StoredThread; response: InteractionResponseRecord },
  ): ThreadJob[] {
    if (!this.enabled) return [];
    const now = this.clock.now();
    const stored = carry === undefined ? undefined : answered(carry.stored, interactionId, carry.response);
    return [continueJob(thread, now, stored), this.recovery(thread, now)];
  }

  /**
   * With a thread handed to the workers (started or resumed by a process that runs none):
   * its continuation, and its recovery, should the worker that takes it die before it waits.
   * `stored`: the thread as the unit leaves it, carried by the continuation.
   */
  forHandOver(thread: JobThread, stored?: StoredThread): ThreadJob[] {
    const now = this.clock.now();
    // A key of its own: the answer's continuation that follows never touches this job's row
    // while a worker still holds it (its completion would wait for that transaction).
    const handOver = { ...continueJob(thread, now, stored), key: `handover:${thread.threadId}` };
    return [handOver, this.recovery(thread, now)];
  }

  /** With a new thread: its recovery, should the process that runs it die. */
  forStart(thread: ThreadRecord): ThreadJob[] {
    return this.enabled ? [this.recovery(thread, this.clock.now())] : [];
  }

  /** The jobs a unit that ends the thread removes: its recovery has nothing left to look at. */
  forEnd(threadId: string): string[] {
    return this.enabled ? [recoverKey(threadId)] : [];
  }

  /**
   * A look at the thread after the claim taken at `from` should have ended (two leases, plus
   * a second). One waits per thread: a later one replaces it.
   */
  recovery(thread: JobThread, from: number): ThreadJob {
    return recoverJob(thread, from + 2 * this.leaseMs + 1_000);
  }

  /** A look at the thread once the worker that times a question out at `deadline` should be done with it. */
  deadlineRecovery(thread: JobThread, interactionId: string, deadline: string): ThreadJob {
    return {
      ...recoverJob(thread, Date.parse(deadline) + 2 * this.leaseMs + 1_000),
      key: `recover:deadline:${interactionId}`,
    };
  }
}

/** The thread as an answer's unit leaves it: the interaction answered (status, response, time), the rest as read. */
function answered(stored: StoredThread, interactionId: string, response: InteractionResponseRecord): StoredThread {
  return {
    ...stored,
    interactions: stored.interactions.map((interaction) =>
      interaction.interactionId === interactionId
        ? { ...interaction, status: 'responded' as const, response, updatedAt: response.respondedAt }
        : interaction,
    ),
  };
}
