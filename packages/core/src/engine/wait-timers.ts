import { setImmediate } from 'node:timers';
import { isStoreFailure } from '../errors/interlock-error.js';
import type { InteractionRecord } from '../persistence/checkpoint-store.js';
import type { AnswerDesk } from './answer-desk.js';
import type { Clock } from './clock.js';
import { DeadlineTimers, type TimedInteraction } from './deadline-timers.js';
import { escalationOf } from './escalations.js';
import type { EmittedEvent } from './node-executor.js';

/** What the timers need of the runner: whether it runs the thread here, and taking a thread forward. */
export interface TimedThreads {
  runsHere(threadId: string): boolean;
  /** Takes the thread forward in this process (a run of it, or the one going on already). */
  goOn(threadId: string): Promise<unknown>;
  isClosed(): boolean;
}

/**
 * The deadlines, and on the same kind of timer the escalations (F51), of the questions
 * threads of this process wait on, or found waiting in the store when it started (issue 35).
 * When a deadline passes the answer desk times the question out, and the thread goes on here
 * (the model told TIMEOUT); a store that failed meanwhile is tried again, 1 s, 2 s, 4 s… later.
 * An escalation time passed: the desk offers the call to its escalation approvers. Both write
 * through the desk. (With workers, each is also a job.)
 */
export class WaitTimers {
  private readonly deadlines: DeadlineTimers;
  private readonly escalations: DeadlineTimers;

  constructor(
    clock: Clock,
    private readonly desk: AnswerDesk,
    private readonly threads: TimedThreads,
  ) {
    this.deadlines = new DeadlineTimers(clock, (interaction, attempt) => this.expireOnTime(interaction, attempt));
    this.escalations = new DeadlineTimers(clock, (interaction) => {
      this.desk.escalate(interaction.interactionId).catch(() => undefined);
    });
  }

  /** Arms the deadline and the escalation of a question; `keepsProcessAlive: false` for those found in the store. */
  arm(
    interaction: Pick<InteractionRecord, 'interactionId' | 'threadId' | 'deadline' | 'request' | 'quorum'>,
    options: { keepsProcessAlive?: boolean } = {},
  ): void {
    this.deadlines.arm(interaction, options);
    const escalation = escalationOf(interaction.request);
    if (escalation === undefined || interaction.quorum?.escalatedAt !== undefined) return;
    const { interactionId, threadId } = interaction;
    this.escalations.arm({ interactionId, threadId, deadline: escalation.at }, options);
  }

  /** Follows a run's events: a question asked is armed (it is stored by then), one settled disarmed. */
  watch(event: EmittedEvent): void {
    if (event.type === 'USER_INTERACTION_REQUESTED' && !this.threads.isClosed()) {
      const { interactionId, request } = event;
      this.arm({ interactionId, threadId: request.threadId, deadline: request.deadline, request });
    } else if (event.type === 'USER_INTERACTION_PROCESSED' || event.type === 'USER_INTERACTION_FAILED') {
      this.disarm(event.interactionId);
    }
  }

  disarm(interactionId: string): void {
    this.deadlines.disarm(interactionId);
    this.escalations.disarm(interactionId);
  }

  /** Only the deadline: a thread taken forward here asks again, and its run arms it again. */
  disarmDeadline(interactionId: string): void {
    this.deadlines.disarm(interactionId);
  }

  disarmAll(): void {
    this.deadlines.disarmAll();
    this.escalations.disarmAll();
  }

  get armedDeadlines(): number {
    return this.deadlines.size;
  }

  /**
   * The thread goes on after its answerer was told that a question timed out (at the end of
   * this event-loop turn); should that fail, the deadline's timer tries again.
   */
  goOnSoon(interaction: TimedInteraction): void {
    setImmediate(() => {
      if (this.threads.isClosed() || this.threads.runsHere(interaction.threadId)) return;
      this.threads.goOn(interaction.threadId).catch(() => this.deadlines.armAgain(interaction, 1));
    });
  }

  /** A deadline came: times the interaction out, and again later when the store failed. */
  private expireOnTime(interaction: TimedInteraction, attempt: number): void {
    this.expire(interaction, attempt > 0).catch((error: unknown) => {
      if (!this.threads.isClosed() && isStoreFailure(error)) this.deadlines.armAgain(interaction, attempt + 1);
    });
  }

  /**
   * Times an interaction out and continues its thread. `again`: an earlier try failed, maybe
   * after the interaction was timed out and before its thread went on, so a thread still
   * waiting on it goes on now.
   */
  private async expire(interaction: TimedInteraction, again: boolean): Promise<void> {
    this.deadlines.disarm(interaction.interactionId);
    const timedOut = await this.desk.timeOut(interaction.interactionId, { again });
    const { threadId } = interaction;
    if (!timedOut || this.threads.runsHere(threadId) || this.threads.isClosed()) return;
    await this.threads.goOn(threadId);
  }
}
