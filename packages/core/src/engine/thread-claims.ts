import { randomUUID } from 'node:crypto';
import { filter, interval, map, switchMap, take, type Observable, type Subscription } from 'rxjs';
import type { ICheckpointStore, InteractionRecord, ThreadRecord } from '../persistence/checkpoint-store.js';
import { heldElsewhere } from './answer-plan.js';
import { timerUntil, type Clock, isoTime } from './clock.js';

/** How long a claim lasts without renewal unless `createInterlock({ leaseMs })` says otherwise. */
export const DEFAULT_LEASE_MS = 15_000;

/**
 * The claims of the threads this process takes forward (ThreadLease). A run takes its
 * thread's claim in its first commit (a new epoch: the fencing token of every later commit
 * of the run), renews it every third of its life while it works — tool calls and questions
 * included — and frees it in its last commit. Another process's `resume()` meanwhile gets
 * THREAD_BUSY; an answer given there is only stored, and the poll here picks it up. A
 * process that dies or freezes stops renewing; after `ttlMs` another process may claim the
 * thread, and the stale process's writes are refused. The run of a claim that ends without
 * a renewal is stopped at once, here, even before a renewal could be refused: a process
 * that thaws after its claim ended aborts its tools' signal before anything else.
 */
export class ThreadClaims {
  /** This process's owner id. */
  readonly owner = randomUUID();
  /** How often the store is read for an answer given elsewhere. */
  readonly pollMs: number;

  constructor(
    private readonly store: ICheckpointStore,
    private readonly clock: Clock,
    readonly ttlMs: number = DEFAULT_LEASE_MS,
  ) {
    this.pollMs = Math.max(50, Math.min(500, Math.floor(ttlMs / 3)));
  }

  /** When a claim taken now ends. */
  leaseUntil(): string {
    return isoTime(this.clock.now() + this.ttlMs);
  }

  nowIso(): string {
    return isoTime(this.clock.now());
  }

  /** Whether another process holds a live claim on the thread. */
  heldElsewhere(thread: Pick<ThreadRecord, 'lease'>): boolean {
    return heldElsewhere(thread, this.owner, this.clock.now());
  }

  /**
   * Renews the claim every third of its life until unsubscribed (`renew`: the run's
   * `renewClaim`, which commits the renewal), and calls `onLost` once
   * when it is lost: a renewal the store refuses (another process took it, or — checked
   * inside the write — the claim had ended when the renewal was built: this process froze
   * past it), or the claim's end reached without a renewal (this process froze or could not
   * reach the store). A renewal that failed for another reason is retried at the next tick.
   * Renewals go straight to the store, not behind the run's commits (and SQLite's group
   * commit commits one at once), so only a process that does not run at all delays them.
   */
  keepAlive(renew: (until: string, now: string) => Promise<boolean>, until: string, onLost: () => void): Subscription {
    let expiry: Subscription | undefined;
    let lost = false;
    const lose = () => {
      if (lost) return;
      lost = true;
      renewals.unsubscribe();
      onLost();
    };
    const expireAt = (at: string) => {
      expiry?.unsubscribe();
      expiry = timerUntil(Date.parse(at), this.clock).subscribe(lose);
    };
    const renewals = interval(Math.max(1, Math.floor(this.ttlMs / 3))).subscribe(() => {
      const now = this.clock.now();
      const next = isoTime(now + this.ttlMs);
      // `now`: a claim that ran out (this process froze past its end) is lost, never renewed:
      // the store refuses the renewal, as it refuses every later unit of the run.
      void renew(next, isoTime(now)).then(
        (renewed) => {
          if (renewals.closed) return;
          if (renewed) expireAt(next);
          else lose();
        },
        () => undefined,
      );
    });
    renewals.add(() => expiry?.unsubscribe());
    expireAt(until);
    return renewals;
  }

  /** Emits once when the stored interaction is no longer pending: answered, timed out or cancelled by another process. */
  settledElsewhere$(interactionId: string): Observable<void> {
    return interval(this.pollMs).pipe(
      switchMap(() => this.store.getInteraction(interactionId).catch(() => undefined)),
      filter((interaction) => interaction !== undefined && interaction.status !== 'pending'),
      take(1),
      map(() => undefined),
    );
  }

  /**
   * After an answer to a thread another process holds was stored: waits until that process
   * has taken it (true), or until its claim ends without that (false: it died or stopped,
   * and the caller takes the thread forward). Bounded by the claim.
   */
  async pickedUpElsewhere(threadId: string, interactionId: string): Promise<boolean> {
    const taken = (interaction: InteractionRecord | undefined) => interaction?.status !== 'responded';
    for (;;) {
      await new Promise((resolve) => setTimeout(resolve, this.pollMs));
      if (taken(await this.store.getInteraction(interactionId))) return true;
      const thread = await this.store.getThread(threadId);
      if (!thread || !this.heldElsewhere(thread)) return taken(await this.store.getInteraction(interactionId));
    }
  }
}
