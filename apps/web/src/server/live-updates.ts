import { isStoreFailure, type ICheckpointStore, type Interlock, type StoreChange } from '@interlock/core';
import type { InterlockEvent } from '@interlock/sdk-types';

/** What the page is told over Server-Sent Events: something changed, refetch. */
export interface LiveChange {
  kind: 'interaction' | 'thread' | 'chat';
  /** requested, answered, expired, cancelled, failed, pending-changed, started, completed, … */
  reason: string;
  threadId?: string;
  interactionId?: string;
  /** Who answered, for `answered`. */
  responder?: string;
  chatId?: string;
}

export interface LiveUpdatesOptions {
  /**
   * How often the store is looked at for answers from other processes and passed deadlines
   * (ms). 0 turns it off. A store that reports changes (PostgreSQL) is looked at only for
   * deadlines, and not at all without `expireDeadlines`.
   */
  pollInterval: number;
  /** Time out questions whose deadline passed and continue their threads (not in a deployment: its workers do). */
  expireDeadlines: boolean;
  now: () => number;
  /** Where to report what went wrong in the background (never secrets). */
  warn?: (message: string) => void;
}

type Listener = (change: LiveChange) => void;

/**
 * The server's source of live updates: this process's events; the changes every process
 * makes, heard from the store as they happen where it reports them (PostgreSQL
 * LISTEN/NOTIFY: several web servers on one database show the same inbox); and otherwise a
 * look at the store every `pollInterval`, which also times out interactions whose deadline
 * passed (and continues their threads) when `expireDeadlines`.
 */
export class LiveUpdates {
  private readonly listeners = new Set<Listener>();
  private subscription: { unsubscribe(): void } | undefined;
  private timer: ReturnType<typeof setInterval> | undefined;
  private pendingSignature = '';
  /** Threads timed out here that are still to be continued. */
  private readonly toContinue = new Set<string>();
  private lastLook: Promise<void> = Promise.resolve();
  private looking = false;
  private stopped = false;
  private watch: Promise<{ stop(): Promise<void> } | undefined> = Promise.resolve(undefined);

  constructor(
    private readonly interlock: Interlock,
    private readonly store: ICheckpointStore,
    private readonly options: LiveUpdatesOptions,
  ) {}

  start(): void {
    this.subscription = this.interlock.events$.subscribe({ next: (event) => this.onEvent(event) });
    if (this.store.watchChanges === undefined) {
      this.poll();
      return;
    }
    this.watch = this.store
      .watchChanges((change) => this.onStoreChange(change))
      .then((watch) => {
        // What changed before the store listened (the server was already serving) was not
        // heard: read it again, as after a reconnection.
        if (!this.stopped) this.onStoreChange({ table: '*' });
        return watch;
      })
      .catch((error: unknown) => {
        this.options.warn?.(
          `live updates: cannot listen for changes, looking at the store instead: ${error instanceof Error ? error.message : String(error)}`,
        );
        if (!this.stopped) this.poll();
        return undefined;
      });
    if (this.options.expireDeadlines) this.poll();
  }

  /** Resolves once the store's changes are listened for, or looked at instead (see start). */
  async listening(): Promise<void> {
    await this.watch;
  }

  private poll(): void {
    if (this.timer === undefined && this.options.pollInterval > 0) {
      this.timer = setInterval(() => {
        // A slow store is not asked again until it answered.
        if (this.looking) return;
        this.looking = true;
        void this.tick()
          .catch((error: unknown) => this.options.warn?.(`live updates: a look at the store failed: ${String(error)}`))
          .finally(() => (this.looking = false));
      }, this.options.pollInterval);
      this.timer.unref();
    }
  }

  /** Calls `listener` for every change until the returned function is called. */
  subscribe(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  publish(change: LiveChange): void {
    for (const listener of this.listeners) listener(change);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.subscription?.unsubscribe();
    clearInterval(this.timer);
    this.listeners.clear();
    await (await this.watch)?.stop();
  }

  /**
   * One look at the store: expire what is overdue, report a changed set of pending
   * interactions. Looks run one after another; the returned promise settles when this one ran.
   */
  tick(): Promise<void> {
    this.lastLook = this.lastLook.then(() => this.look());
    return this.lastLook;
  }

  private async look(): Promise<void> {
    if (this.stopped) return;
    try {
      let pending = await this.interlock.pending();
      const now = this.options.now();
      const overdue = pending.filter((request) => request.deadline !== null && Date.parse(request.deadline) <= now);
      // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- stop() may run during the await
      if (overdue.length > 0 && this.options.expireDeadlines && !this.stopped) {
        // Noted first: if timing out fails part-way, the threads already timed out still go on.
        for (const request of overdue) this.toContinue.add(request.threadId);
        await this.interlock.expireOverdue();
        for (const request of overdue)
          this.publish({
            kind: 'interaction',
            reason: 'expired',
            threadId: request.threadId,
            interactionId: request.interactionId,
          });
        pending = await this.interlock.pending();
      }
      // Also the threads an earlier look timed out but could not continue (the store failed).
      for (const threadId of [...this.toContinue]) await this.continueThread(threadId);
      // What the inbox shows of each question: which wait, and how far each call that needs
      // several approvers has come ("1 of 2", escalated). An approval that does not end its
      // question changes only the latter, and no event of this process tells of it.
      const signature = JSON.stringify(
        pending.map((request) => [request.interactionId, request.toolApproval?.quorum ?? null]),
      );
      if (signature !== this.pendingSignature) {
        this.pendingSignature = signature;
        this.publish({ kind: 'interaction', reason: 'pending-changed' });
      }
    } catch (error) {
      // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- stop() may run during the awaits
      if (!this.stopped)
        this.options.warn?.(
          `live updates: could not read the store: ${error instanceof Error ? error.message : String(error)}`,
        );
    }
  }

  /**
   * A thread whose wait timed out goes on (the refused call is reported to its model) here,
   * unless it runs elsewhere. When the store failed it is tried again at the next look.
   */
  private async continueThread(threadId: string): Promise<void> {
    try {
      await this.interlock.resume(threadId);
      this.toContinue.delete(threadId);
    } catch (error) {
      // THREAD_BUSY (another process holds it) and THREAD_NOT_WAITING are normal here.
      if (!isStoreFailure(error)) this.toContinue.delete(threadId);
      this.options.warn?.(
        `live updates: thread ${threadId} was not continued after its deadline${this.toContinue.has(threadId) ? ' (tried again at the next look)' : ''}: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
  }

  /** A change another process (or this one) made, as the store reported it. */
  private onStoreChange(change: StoreChange): void {
    if (change.table === '*') {
      this.publish({ kind: 'thread', reason: 'resync' });
      return;
    }
    const { threadId, status } = change;
    if (change.table === 'threads') {
      this.publish({ kind: 'thread', reason: status, threadId });
      return;
    }
    const reason = status === 'pending' ? 'requested' : status === 'responded' ? 'answered' : status;
    this.publish({ kind: 'interaction', reason, threadId, interactionId: change.id });
  }

  private onEvent(event: InterlockEvent): void {
    const { threadId } = event;
    switch (event.type) {
      case 'USER_INTERACTION_REQUESTED':
        this.publish({ kind: 'interaction', reason: 'requested', threadId, interactionId: event.interactionId });
        return;
      case 'USER_INTERACTION_RESPONDED':
        this.publish({
          kind: 'interaction',
          reason: 'answered',
          threadId,
          interactionId: event.interactionId,
          ...(event.responder === undefined ? {} : { responder: event.responder }),
        });
        return;
      case 'USER_INTERACTION_FAILED':
        this.publish({
          kind: 'interaction',
          reason: event.reason === 'timeout' ? 'expired' : event.reason,
          threadId,
          interactionId: event.interactionId,
        });
        return;
      case 'THREAD_STARTED':
      case 'THREAD_RESUMED':
      case 'THREAD_SUSPENDED':
      case 'THREAD_COMPLETED':
      case 'THREAD_FAILED':
      case 'THREAD_CANCELLED':
        this.publish({ kind: 'thread', reason: event.type.slice('THREAD_'.length).toLowerCase(), threadId });
        return;
      case 'TOOL_CALL_DECIDED':
      case 'TOOL_CALL_COMPLETED':
      case 'TOOL_CALL_FAILED':
        this.publish({ kind: 'thread', reason: event.type.toLowerCase(), threadId });
        return;
      default:
        return undefined;
    }
  }
}
