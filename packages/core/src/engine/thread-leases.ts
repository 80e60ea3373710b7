import { randomUUID } from 'node:crypto';
import { filter, interval, map, switchMap, take, type Observable, type Subscription } from 'rxjs';
import type { ICheckpointStore, ThreadRecord } from '../persistence/checkpoint-store.js';
import type { Clock } from './clock.js';

/** How long a lease lasts without renewal unless `createInterlock({ leaseMs })` says otherwise. */
export const DEFAULT_LEASE_MS = 15_000;

/**
 * The leases of the threads this process is asking a person about (ThreadLease). While a
 * handler here asks, the thread's lease is renewed, and the store is polled for an answer
 * given in another process (`interlock respond` in a second terminal, the web inbox): that
 * process only stores its answer, and this one takes the thread forward. A process that
 * dies stops renewing; after `ttlMs` another process may resume the thread.
 */
export class ThreadLeases {
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

  /** Puts this process's lease on the record: the thread's next save stores it, with no write of its own. */
  grant(thread: ThreadRecord): void {
    thread.lease = { owner: this.owner, until: this.until() };
  }

  /** Whether another process holds a live lease on the thread. */
  heldElsewhere(thread: ThreadRecord): boolean {
    return thread.lease !== undefined && thread.lease.owner !== this.owner && Date.parse(thread.lease.until) > this.clock.now();
  }

  /** Takes (or renews) the lease in the store, noting it on the record while `stillWanted`; false when another live process holds it. */
  async acquire(thread: ThreadRecord, stillWanted: () => boolean = () => true): Promise<boolean> {
    const until = this.until();
    const taken = await this.store.acquireLease(thread.threadId, this.owner, until, new Date(this.clock.now()).toISOString());
    if (taken && stillWanted()) thread.lease = { owner: this.owner, until };
    return taken;
  }

  /**
   * Renews the lease every third of its life until unsubscribed. A failed renewal is retried
   * at the next tick; a renewal that ends after the unsubscription leaves the record alone.
   */
  keepAlive(thread: ThreadRecord): Subscription {
    let stopped = false;
    const renewals = interval(Math.max(1, Math.floor(this.ttlMs / 3))).subscribe(() => {
      void this.acquire(thread, () => !stopped).catch(() => undefined);
    });
    renewals.add(() => {
      stopped = true;
    });
    return renewals;
  }

  /** Frees the lease in the store if this process holds it. */
  async release(thread: ThreadRecord): Promise<void> {
    if (thread.lease?.owner !== this.owner) return;
    delete thread.lease;
    await this.store.releaseLease(thread.threadId, this.owner);
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
   * After an answer to a thread whose lease another process holds was stored: waits until
   * that process has taken it (true), or until its lease ends without that (false: it died
   * or stopped asking, and the caller takes the thread forward). Bounded by the lease.
   */
  async pickedUpElsewhere(threadId: string, interactionId: string): Promise<boolean> {
    for (;;) {
      await new Promise((resolve) => setTimeout(resolve, this.pollMs));
      if ((await this.store.getInteraction(interactionId))?.status !== 'responded') return true;
      const thread = await this.store.getThread(threadId);
      if (!thread || !this.heldElsewhere(thread)) return (await this.store.getInteraction(interactionId))?.status !== 'responded';
    }
  }

  private until(): string {
    return new Date(this.clock.now() + this.ttlMs).toISOString();
  }
}
