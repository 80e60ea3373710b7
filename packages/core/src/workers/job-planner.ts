import type { Clock } from '../engine/clock.js';
import type { InteractionRecord, ThreadRecord } from '../persistence/checkpoint-store.js';
import { continueJob, deadlineJob, escalateJob, recoverJob, type JobThread, type ThreadJob } from './thread-jobs.js';

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
              this.recovery(thread, `deadline:${interaction.interactionId}`, Date.parse(interaction.deadline)),
            ]),
        ...(escalation === undefined ? [] : [escalateJob(thread, interaction.interactionId, escalation.at)]),
      ];
    });
  }

  /** With an answer: the thread's continuation, and its recovery. */
  forAnswer(thread: ThreadRecord, interactionId: string): ThreadJob[] {
    if (!this.enabled) return [];
    const now = this.clock.now();
    return [continueJob(thread, now), this.recovery(thread, `answer:${interactionId}`, now)];
  }

  /**
   * With a thread handed to the workers (started or resumed by a process that runs none):
   * its continuation, and its recovery, should the worker that takes it die before it waits.
   */
  forHandOver(thread: JobThread): ThreadJob[] {
    const now = this.clock.now();
    return [continueJob(thread, now), this.recovery(thread, `handover:${thread.threadId}`, now)];
  }

  /** With a new thread: its recovery, should the process that runs it die. */
  forStart(thread: ThreadRecord): ThreadJob[] {
    return this.enabled ? [this.recovery(thread, `start:${thread.threadId}`, this.clock.now())] : [];
  }

  /** A look at the thread after the claim taken at `from` should have ended (two leases, plus a second). */
  recovery(thread: JobThread, reason: string, from: number): ThreadJob {
    return { ...recoverJob(thread, from + 2 * this.leaseMs + 1_000), key: `recover:${reason}` };
  }
}
