import { randomUUID } from 'node:crypto';
import { filter, interval, map, switchMap, take, type Observable, type Subscription } from 'rxjs';
import type { ClaimFence, ICheckpointStore, ThreadLease, ThreadRecord } from '../persistence/checkpoint-store.js';
import type { Clock } from './clock.js';

/** How long a claim lasts without renewal unless `createInterlock({ leaseMs })` says otherwise. */
export const DEFAULT_LEASE_MS = 15_000;

/**
 * The claims of the threads this process takes forward (ThreadLease). A run claims its
 * thread before it starts (a new epoch: the fencing token of every write of the run),
 * renews the claim every third of its life while it works — tool calls and questions
 * included — and frees it when it stops. Another process's `resume()` meanwhile gets
 * THREAD_BUSY; an answer given there is only stored, and the poll here picks it up. A
 * process that dies or freezes stops renewing; after `ttlMs` another process may claim
 * the thread, and the stale process's writes are refused.
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

  /** The claim of a thread this process creates: its first epoch. */
  initial(): { epoch: number; lease: ThreadLease } {
    return { epoch: 1, lease: { owner: this.owner, until: this.until() } };
  }

  /**
   * Claims a thread read from the store (at the version read): on success the record gets
   * the new epoch, version and lease. `busy` when another live claim holds it, `changed`
   * when it was saved since it was read.
   */
  async claim(thread: ThreadRecord): Promise<'claimed' | 'busy' | 'changed'> {
    const until = this.until();
    const result = await this.store.claimThread(thread.threadId, this.owner, until, this.nowIso(), thread.version);
    if (result.status === 'busy') thread.lease = result.lease;
    if (result.status !== 'claimed') return result.status;
    thread.epoch = result.epoch;
    thread.version = result.version;
    thread.lease = { owner: this.owner, until };
    return 'claimed';
  }

  /** Whether another process holds a live claim on the thread. */
  heldElsewhere(thread: ThreadRecord): boolean {
    return (
      thread.lease !== undefined &&
      thread.lease.owner !== this.owner &&
      Date.parse(thread.lease.until) > this.clock.now()
    );
  }

  /**
   * Renews the claim every third of its life until unsubscribed. A renewal the store
   * refuses means the claim was taken: `onLost` is called once and renewals stop. A renewal
   * that failed for another reason (the database is away) is retried at the next tick.
   */
  keepAlive(thread: ThreadRecord, onLost: () => void): Subscription {
    const fence = fenceOf(thread);
    const renewals = interval(Math.max(1, Math.floor(this.ttlMs / 3))).subscribe(() => {
      const until = this.until();
      void this.store.renewClaim(fence, this.owner, until).then(
        (renewed) => {
          if (renewals.closed) return;
          if (renewed) thread.lease = { owner: this.owner, until };
          else {
            renewals.unsubscribe();
            onLost();
          }
        },
        () => undefined,
      );
    });
    return renewals;
  }

  /** Frees the claim in the store if this process holds it at the record's epoch. */
  async release(thread: ThreadRecord): Promise<void> {
    if (thread.lease?.owner !== this.owner) return;
    delete thread.lease;
    await this.store.releaseClaim(fenceOf(thread), this.owner);
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
    for (;;) {
      await new Promise((resolve) => setTimeout(resolve, this.pollMs));
      if ((await this.store.getInteraction(interactionId))?.status !== 'responded') return true;
      const thread = await this.store.getThread(threadId);
      if (!thread || !this.heldElsewhere(thread))
        return (await this.store.getInteraction(interactionId))?.status !== 'responded';
    }
  }

  private until(): string {
    return new Date(this.clock.now() + this.ttlMs).toISOString();
  }

  private nowIso(): string {
    return new Date(this.clock.now()).toISOString();
  }
}

/** The fence of a run's writes: the thread and the epoch of its claim. */
export function fenceOf(thread: ThreadRecord): ClaimFence {
  return { threadId: thread.threadId, epoch: thread.epoch };
}
