import { clearImmediate, setImmediate } from 'node:timers';
import type {
  ClaimFence,
  ICheckpointStore,
  InteractionRecord,
  StoredThread,
  ThreadLease,
  ThreadRecord,
  ToolExecutionRecord,
} from '../persistence/checkpoint-store.js';
import type { ClaimChange, InteractionChange, ThreadChange, UnitOfWork } from '../persistence/unit-of-work.js';
import { lostClaim } from '../persistence/stale-claim.js';
import type { EmittedEvent } from './emitted-event.js';
import { commitOrReadBack, commonPrefix, conflictError, settleOne, unitOfEffects } from './run-store.js';
import { RunViews, type RunOrigin } from './run-views.js';
import { combineEffects, type Effects, type Step } from './step.js';

/** What a run needs from around it. */
export interface RunContext {
  store: ICheckpointStore;
  /** This process's owner id and how long a claim it takes lasts. */
  owner: string;
  leaseUntil(): string;
  nowIso(): string;
  /** Publishes one of the thread's events (the engine adds thread, workflow and time). */
  publish(thread: ThreadRecord, event: EmittedEvent): void;
  /** Told when the run's claim is taken (renew it from now on) or moved on by a renewal. */
  onClaimed?(fence: ClaimFence, until: string): void;
  /** Told when the store refused a unit of the run because its claim had ended: the run's signal is aborted as for a lost claim. */
  onClaimEnded?(): void;
  /** The keys of the jobs the unit that ends the thread removes (its recovery has nothing left to look at). */
  endJobs?(threadId: string): readonly string[];
}

/** The key of a {@link StartsCommitted}: not exported, so only this module makes one. */
const committedStarts: unique symbol = Symbol('interlock.committedStarts');

/** Proof that some calls' write-ahead starts were committed (F40), made only by `Run.startCalls`. */
export interface StartsCommitted {
  readonly [committedStarts]: ReadonlySet<string>;
}

/** Whether `proof` says the start of this call was committed. */
export function startCommitted(proof: StartsCommitted, toolCallId: string): boolean {
  // The key cannot be forged outside this module; a value of another shape proves nothing.
  return (proof as Partial<StartsCommitted>)[committedStarts]?.has(toolCallId) === true;
}

/**
 * One run of a thread in this process: the thread as a value, replaced by each (pure) step,
 * and the writer of everything the run does. The steps' effects wait here until a durability
 * point commits them as one unit of work with the thread as it is then — claimed by the
 * run's first commit (fenced in every later one), released by its last — and only then are
 * their events published. Besides, it commits alone its claim's renewals and release, and an
 * interaction its handler settled. The engine's other writes go through the answer desk; a
 * worker's jobs through the job runner (docs/architecture.md, "Who writes").
 */
export class Run {
  private state: ThreadRecord;
  /** The thread as last committed (undefined until the first commit of a new thread). */
  private committed: ThreadRecord | undefined;
  private claimed = false;
  private pending: Effects = {};
  private readonly views: RunViews;
  private committing: Promise<void> = Promise.resolve();
  /** Events held for the next commit (see `Effects.announceAfterCommit`). */
  private held: EmittedEvent[] = [];
  /** Whether a commit of the run kept its claim: other processes saw it hold the thread. */
  private claimShown = false;
  /** Whether another caller joined the run (see join). */
  private joined = false;
  private lazyCommit: NodeJS.Immediate | undefined;
  private broken: unknown;
  private released = false;
  /** The claim ran out or was refused a renewal (see claimLost): nothing more is written. */
  private lost = false;
  private markCommitted: () => void = () => undefined;
  private markFailed: (error: unknown) => void = () => undefined;
  /** Settles at the run's first commit (an answer folded into the run is stored then). */
  readonly firstCommit: Promise<void>;
  /** The claim of another process the thread had when this run read it (it ended, or this run could not take it). */
  readonly previousLease: ThreadLease | undefined;

  constructor(
    private readonly context: RunContext,
    thread: ThreadRecord,
    origin: RunOrigin,
  ) {
    this.state = thread;
    this.previousLease = thread.lease?.owner === context.owner ? undefined : thread.lease;
    this.views = new RunViews(origin);
    if (origin.kind === 'stored') this.committed = thread;
    this.firstCommit = new Promise<void>((resolve, reject) => {
      this.markCommitted = resolve;
      this.markFailed = reject;
    });
    this.firstCommit.catch(() => undefined);
  }

  /** A run of a thread just read from the store. */
  static fromStored(context: RunContext, stored: StoredThread): Run {
    return new Run(context, stored.thread, { kind: 'stored', ...stored });
  }

  /** The thread as it is now. */
  get thread(): ThreadRecord {
    return this.state;
  }

  /** The claim's fence: the thread and the epoch its writes carry. */
  get fence(): ClaimFence {
    return { threadId: this.state.threadId, epoch: this.state.epoch };
  }

  /** Whether the run's claim is taken (its first commit happened) and neither freed nor lost. */
  get holdsClaim(): boolean {
    return this.claimed && !this.released && !this.lost;
  }

  /**
   * The run's claim ran out by this process's clock, or the store refused its renewal: from
   * now on the run commits nothing (not even its claim's release), whatever its steps still
   * apply. A call it started stays `started`; the next process asks what became of it (F40,
   * F53). A unit already on its way is fenced by the store (the claim's end checked inside).
   */
  claimLost(): void {
    if (this.lost) return;
    this.lost = true;
    this.fail(lostClaim(this.fence));
  }

  /** An interaction of the thread as this run knows it (read with the thread, changed by the run's own steps). */
  interaction(interactionId: string): InteractionRecord | undefined {
    return this.views.interaction(interactionId);
  }

  /** An interaction as read again from the store (answered or failed by another process). */
  learn(interaction: InteractionRecord): void {
    this.views.learn(interaction);
  }

  /** Its scope's remembered approvals, when its copy came with them (a worker's job). */
  get remembered(): RunViews['remembered'] {
    return this.views.remembered;
  }

  /** The write-ahead record of a tool call as this run knows it. */
  toolCall(toolCallId: string): ToolExecutionRecord | undefined {
    return this.views.toolCall(toolCallId);
  }

  /** Applies a step: the thread's next value, its writes for the next durability point, then its events. */
  async apply(step: Step): Promise<void> {
    this.assertUsable();
    this.state = step.next;
    const effects = step.effects ?? {};
    this.pending = combineEffects(this.pending, { ...effects, events: [] });
    this.views.see(effects);
    if (effects.announceAfterCommit === true) this.held.push(...(effects.events ?? []));
    if (effects.durable === 'now') await this.commit();
    else if (effects.durable === 'soon') this.commitSoon();
    if (effects.announceAfterCommit !== true)
      for (const event of effects.events ?? []) this.context.publish(this.state, event);
  }

  /** Applies a step that starts tool calls, committed at once (before any side effect): the proof `ToolExecution.execute` needs. */
  async startCalls(step: Step): Promise<StartsCommitted> {
    await this.apply({ ...step, effects: { ...step.effects, durable: 'now' } });
    const starts = (step.effects?.toolCalls ?? []).flatMap((change) => (change.kind === 'start' ? [change] : []));
    return { [committedStarts]: new Set(starts.map((change) => change.call.toolCallId)) };
  }

  /** Runs `work` with the end-of-turn commit paused: what is pending goes with the durability point after it, not alone in a turn it awaits (a receipt's key read); if it throws, it is committed first. */
  async holdingCommit<T>(work: () => Promise<T>): Promise<T> {
    if (this.lazyCommit === undefined) return work();
    this.cancelLazyCommit();
    const result = await work().catch(async (error: unknown) => {
      await this.commit().catch(noop);
      throw error;
    });
    this.commitSoon();
    return result;
  }

  /** Whether other processes could see the run hold the thread (a commit kept its claim): they leave answers to it. */
  get claimWasVisible(): boolean {
    return this.claimShown;
  }

  /** Another caller asked to take the thread forward meanwhile (a job for an answer stored elsewhere): what it waits on is read again when the run stops (issue 38). */
  join(): void {
    this.joined = true;
  }

  /** Whether {@link join} was called. */
  get wasJoined(): boolean {
    return this.joined;
  }

  /** A durability point: commits everything pending, with the thread as it is now. `release` ends the run's claim. */
  commit(options: { release?: boolean } = {}): Promise<void> {
    this.cancelLazyCommit();
    const release = options.release === true;
    const next = this.committing.then(() => this.commitNow(release));
    this.committing = next.catch(() => undefined);
    return next;
  }

  /**
   * Stores a person's answer given to this run's handler at once (they were told it was taken)
   * if still pending. Returns the interaction as stored (this answer, or what came first).
   */
  answer(interactionId: string, response: InteractionRecord['response'] & object): Promise<InteractionRecord> {
    return this.settleInteraction(interactionId, { kind: 'answer', interactionId, response });
  }

  /** Fails a pending interaction at once (timed out, cancelled, no handler); returns it as stored (first writer wins). */
  failInteraction(
    interactionId: string,
    reason: InteractionRecord['failureReason'] & string,
    message: string,
  ): Promise<InteractionRecord> {
    return this.settleInteraction(interactionId, {
      kind: 'fail',
      interactionId,
      reason,
      message,
      at: this.context.nowIso(),
    });
  }

  private async settleInteraction(interactionId: string, change: InteractionChange): Promise<InteractionRecord> {
    this.assertUsable();
    // What is pending first: the interaction is stored (and the claim held) before it is settled.
    await this.commit();
    const settle = this.committing.then(() => settleOne(this.context.store, this.views, interactionId, change));
    this.committing = settle.then(noop, noop);
    return settle;
  }

  /** Puts the thread back to an earlier value and drops what is pending (a node retried after a conflict). */
  reset(thread: ThreadRecord, pending: Effects): void {
    this.state = thread;
    this.pending = pending;
  }

  /** What is pending (to reset to, should a retried node conflict). */
  get pendingEffects(): Effects {
    return this.pending;
  }

  private commitSoon(): void {
    this.lazyCommit ??= setImmediate(() => {
      this.lazyCommit = undefined;
      void this.commit().catch(() => undefined);
    });
  }

  private cancelLazyCommit(): void {
    if (this.lazyCommit !== undefined) clearImmediate(this.lazyCommit);
    this.lazyCommit = undefined;
  }

  private async commitNow(release: boolean): Promise<void> {
    this.assertUsable();
    if (this.released) return;
    const pending = this.pending;
    const unit = this.unitOf(pending, release);
    if (unit === undefined) {
      if (release) this.released = true;
      return;
    }
    this.pending = {};
    const thread = this.state;
    let result;
    try {
      result = await commitOrReadBack(this.context.store, unit);
    } catch (error) {
      this.pending = combineEffects(pending, this.pending);
      this.fail(error);
      throw error;
    }
    if (result.status === 'conflict') {
      const error = conflictError(result.conflict, this.state);
      // The store found the claim ended before this unit was built: the claim is lost, as when
      // this process's own clock finds it ended first (the run writes nothing more).
      if (result.conflict.kind === 'claim-ended') this.context.onClaimEnded?.();
      if (result.conflict.kind === 'global-changed') {
        // The run goes on: the node that wrote it reads the globals again and retries.
        this.pending = combineEffects(pending, this.pending);
        throw error;
      }
      this.fail(error);
      throw error;
    }
    if (result.thread !== undefined) {
      const { version, epoch, updatedAt, lease } = result.thread;
      const { lease: _lease, ...rest } = thread;
      const stored: ThreadRecord = { ...rest, version, epoch, updatedAt, ...(lease === undefined ? {} : { lease }) };
      this.committed = stored;
      // Steps applied while the commit was on its way keep their values; only the stored fields move.
      const { lease: _current, ...now } = this.state;
      this.state =
        this.state === thread ? stored : { ...now, version, epoch, ...(lease === undefined ? {} : { lease }) };
      const kind = unit.thread?.kind;
      if (kind === 'create' || (kind === 'save' && unit.thread?.claim.kind === 'take')) {
        this.claimed = true;
        if (lease !== undefined) this.context.onClaimed?.({ threadId: thread.threadId, epoch }, lease.until);
      }
    }
    if (release) this.released = true;
    else if (this.claimed) this.claimShown = true;
    this.markCommitted();
    const held = this.held;
    this.held = [];
    for (const event of held) this.context.publish(this.state, event);
  }

  /** The unit of work of the next durability point, or undefined when there is nothing to write. */
  private unitOf(pending: Effects, release: boolean): UnitOfWork | undefined {
    return unitOfEffects(pending, (writes) => this.threadChange(release, writes), this.context);
  }

  /** The thread's part of the unit: in every unit that writes (its fence checked); the run's first claims it. */
  private threadChange(release: boolean, writes: boolean): ThreadChange | undefined {
    const current = this.state;
    const thread = { ...current, updatedAt: this.context.nowIso() };
    if (this.committed === undefined) {
      const { lease: _lease, ...rest } = thread;
      return {
        kind: 'create',
        thread: release
          ? { ...rest, version: 1 }
          : { ...rest, version: 1, lease: { owner: this.context.owner, until: this.context.leaseUntil() } },
      };
    }
    if (this.committed === current && !writes) {
      if (!release || !this.claimed) return undefined;
      return { kind: 'release', threadId: thread.threadId, epoch: thread.epoch, owner: this.context.owner };
    }
    // A held claim's end is part of the fence: the store refuses this unit if the claim ran out before now.
    const claim: ClaimChange = this.claimed
      ? { kind: release ? 'release' : 'keep', now: this.context.nowIso() }
      : {
          kind: 'take',
          owner: this.context.owner,
          until: this.context.leaseUntil(),
          now: this.context.nowIso(),
          ...(release ? { release: true as const } : {}),
        };
    return {
      kind: 'save',
      thread,
      expectedVersion: this.committed.version,
      claim,
      messagesFrom: commonPrefix(this.committed.conversation, thread.conversation),
      storedMessages: this.committed.conversation.length,
    };
  }

  /**
   * Renews the run's claim until `until` (`now`: when it was built; a claim ended by then is
   * lost), straight to the store, not behind the run's commits. Whether the store kept it.
   */
  async renewClaim(until: string, now: string): Promise<boolean> {
    const { threadId, epoch } = this.fence;
    const renew = { kind: 'renew' as const, threadId, epoch, owner: this.context.owner, until, now };
    return (await this.context.store.commit({ thread: renew })).status === 'committed';
  }

  /** Frees the claim of a run that stopped on an error, writing nothing else (another process may go on at once). */
  async freeClaim(): Promise<void> {
    if (!this.holdsClaim) return;
    await this.committing;
    const { threadId, epoch } = this.state;
    await this.context.store.commit({ thread: { kind: 'release', threadId, epoch, owner: this.context.owner } });
    this.released = true;
  }

  /** The run stopped on an error: whoever waits for its first commit is told, if it never came. */
  abandon(error: unknown): void {
    this.markFailed(error);
  }

  private fail(error: unknown): void {
    this.broken ??= error;
    this.cancelLazyCommit();
    this.markFailed(error);
  }

  private assertUsable(): void {
    // eslint-disable-next-line @typescript-eslint/only-throw-error -- the first failure, rethrown as it was
    if (this.broken !== undefined) throw this.broken;
  }
}

function noop(): void {}
