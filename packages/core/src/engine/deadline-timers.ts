import type { Subscription } from 'rxjs';
import type { InteractionRecord } from '../persistence/checkpoint-store.js';
import { timerUntil, type Clock } from './clock.js';

/**
 * The deadlines of the durable waits of threads this process ran: one timer per
 * interaction, at its absolute deadline on the process's clock (which never steps back).
 * `onDue` times the interaction out. (Deadlines of threads no process here ran are jobs
 * of the workers, issue 12.)
 */
export class DeadlineTimers {
  private readonly timers = new Map<string, Subscription>();

  constructor(
    private readonly clock: Clock,
    private readonly onDue: (interaction: InteractionRecord) => void,
  ) {}

  arm(interaction: InteractionRecord): void {
    if (interaction.deadline === null || this.timers.has(interaction.interactionId)) return;
    const subscription = timerUntil(Date.parse(interaction.deadline), this.clock).subscribe(() => {
      this.timers.delete(interaction.interactionId);
      this.onDue(interaction);
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
