import type { Subscription } from 'rxjs';
import type { InteractionRecord } from '../persistence/checkpoint-store.js';

/** What a deadline timer needs of an interaction. */
export type TimedInteraction = Pick<InteractionRecord, 'interactionId' | 'threadId' | 'deadline'>;
import { timerUntil, type Clock } from './clock.js';

/**
 * The deadlines of the durable waits of threads this process ran, or found waiting when it
 * started: one timer per interaction, at its absolute deadline on the process's clock
 * (which never steps back). `onDue` times the interaction out. (With workers, deadlines
 * are their jobs, issue 12.)
 */
export class DeadlineTimers {
  private readonly timers = new Map<string, Subscription>();

  constructor(
    private readonly clock: Clock,
    /** `attempt` counts the times timing it out failed before (see {@link armAgain}). */
    private readonly onDue: (interaction: TimedInteraction, attempt: number) => void,
  ) {}

  /** `keepsProcessAlive: false`: the timer alone does not keep the process running (deadlines armed at start). */
  arm(interaction: TimedInteraction, options: { keepsProcessAlive?: boolean } = {}): void {
    if (interaction.deadline !== null) this.armAt(interaction, Date.parse(interaction.deadline), 0, options);
  }

  /**
   * After timing the interaction out failed (the store did): due again after 1 s, 2 s, 4 s…
   * at most 30 s, so a deadline is not lost to a moment the database was unreachable.
   */
  armAgain(interaction: TimedInteraction, attempt: number): void {
    this.armAt(interaction, this.clock.now() + Math.min(1_000 * 2 ** (attempt - 1), 30_000), attempt);
  }

  private armAt(
    interaction: TimedInteraction,
    at: number,
    attempt: number,
    options: { keepsProcessAlive?: boolean } = {},
  ): void {
    if (this.timers.has(interaction.interactionId)) return;
    const subscription = timerUntil(at, this.clock, options).subscribe(() => {
      this.timers.delete(interaction.interactionId);
      this.onDue(interaction, attempt);
    });
    this.timers.set(interaction.interactionId, subscription);
  }

  disarm(interactionId: string): void {
    this.timers.get(interactionId)?.unsubscribe();
    this.timers.delete(interactionId);
  }

  disarmAll(): void {
    for (const subscription of this.timers.values()) subscription.unsubscribe();
    this.timers.clear();
  }

  get size(): number {
    return this.timers.size;
  }
}
