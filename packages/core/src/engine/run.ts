import { clearImmediate, setImmediate } from 'node:timers';
import { InterlockError } from '../errors/interlock-error.js';
import type {
  ClaimFence,
  ICheckpointStore,
  InteractionRecord,
  StoredThread,
  ThreadLease,
  ThreadRecord,
  ToolExecutionRecord,
} from '../persistence/checkpoint-store.js';
import type {
  ClaimChange,
  CommitResult,
  Conflict,
  InteractionChange,
  ThreadChange,
  UnitOfWork,
} from '../persistence/unit-of-work.js';
import { applyQuorumChange } from '../persistence/quorum-change.js';
import { lostClaim } from '../persistence/stale-claim.js';
import type { EmittedEvent } from './node-executor.js';
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

/** The statuses a thread does not leave. */
const ENDED: ReadonlySet<string> = new Set(['completed', 'failed', 'cancelled']);

/** How the thread came to this run. */
export type RunOrigin =
  /** Started here: stored by the run's first commit. */
  | { kind: 'new' }
  /** Read from the store: claimed by the run's first commit. */
  | { kind: 'stored'; interactions: readonly InteractionRecord[]; toolCalls: readonly ToolExecutionRecord[] };

/**
 * One run of a thread in this process: the thread as a value, replaced by each step
 * (transitions are pure: `(thread, …) → { next, effects }`), and the one place that writes.
 * The effects of the steps since the last durability point wait here; a durability point
 * commits them as one unit of work with the thread as it is then — claimed by the run's
 * first commit (its fence checked inside every later one), released by its last — and only
 * then are the step's events published. Nothing else in the engine writes to the store.
 */
export class Run {
  private state: ThreadRecord;
  /** The thread as last committed (undefined until the first commit of a new thread). */
  private committed: ThreadRecord | undefined;
  private claimed = false;
  private pending: Effects = {};
  private readonly interactions = new Map<string, InteractionRecord>();
  private readonly toolCalls = new Map<string, ToolExecutionRecord>();
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
    if (origin.kind === 'stored') {
      this.committed = thread;
      for (const interaction of origin.interactions) this.interactions.set(interaction.interactionId, interaction);
      for (const call of origin.toolCalls) this.toolCalls.set(call.toolCallId, call);
    }
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
   * The run's claim ran out by this process's clock, or the store refused its renewal: the
   * run's signal is being aborted. From now on the run commits nothing — no outcome, no audit
   * entry, no question, no completion, not even the release of its claim — whatever its steps
   * still apply (a tool that returns anyway). A call it started stays `started` in the store,
   * and the process that takes the thread next asks what became of it (F40, F53). A unit
   * already on its way is fenced by the store: its claim's end is checked inside the write.
   */
  claimLost(): void {
    if (this.lost) return;
    this.lost = true;
    this.fail(lostClaim(this.fence));
  }

  /** An interaction of the thread as this run knows it (read with the thread, changed by the run's own steps). */
  interaction(interactionId: string): InteractionRecord | undefined {
    return this.interactions.get(interactionId);
  }

  /** An interaction as read again from the store (answered or failed by another process). */
  learn(interaction: InteractionRecord): void {
    this.interactions.set(interaction.interactionId, interaction);
  }

  /** The write-ahead record of a tool call as this run knows it. */
  toolCall(toolCallId: string): ToolExecutionRecord | undefined {
    return this.toolCalls.get(toolCallId);
  }

  /** Applies a step: the thread's next value, its writes for the next durability point, then its events. */
  async apply(step: Step): Promise<void> {
    this.assertUsable();
    this.state = step.next;
    const effects = step.effects ?? {};
    this.pending = combineEffects(this.pending, { ...effects, events: [] });
    this.see(effects);
    if (effects.announceAfterCommit === true) this.held.push(...(effects.events ?? []));
    if (effects.durable === 'now') await this.commit();
    else if (effects.durable === 'soon') this.commitSoon();
    if (effects.announceAfterCommit !== true)
      for (const event of effects.events ?? []) this.context.publish(this.state, event);
  }

  /** Whether other processes could see the run hold the thread (a commit kept its claim): they leave answers to it. */
  get claimWasVisible(): boolean {
    return this.claimShown;
  }

  /**
   * A caller of this process asked to take the thread forward while this run had it (a
   * worker's job for an answer stored elsewhere): the answer may have been stored after the
   * run's last read, even after its last commit was sent, so what the thread waits on is
   * read from the store when the run stops (issue 38: the job was otherwise done, and the
   * thread left to its recovery).
   */
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
   * Stores a person's answer given to this run's handler, at once (they were told it was
   * taken), if the interaction is still pending. Returns the interaction as stored: with
   * this answer, or with the one (or the failure) that came first.
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
    const settle = this.committing.then(async () => {
      // Its outcome unknown, the change is read back below: settled by it or by another, or committed again.
      const unit = { interactions: [change] };
      const result = await this.context.store.commit(unit).catch(async (error: unknown) => {
        if (!outcomeUnknown(error)) throw error;
        const stored = await this.context.store.getInteraction(interactionId);
        return stored?.status === 'pending' ? this.context.store.commit(unit) : undefined;
      });
      const committed =
        result?.status === 'committed' && (change.kind === 'answer' || result.failed.includes(interactionId));
      if (committed) this.see({ interactions: [change] });
      const known = committed ? this.interactions.get(interactionId) : undefined;
      const stored = known ?? (await this.context.store.getInteraction(interactionId));
      if (stored === undefined)
        throw new InterlockError('INTERACTION_NOT_FOUND', `interaction ${interactionId} is missing from the store`);
      this.learn(stored);
      return stored;
    });
    this.committing = settle.then(
      () => undefined,
      () => undefined,
    );
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
      result = await this.commitOrReadBack(unit);
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

  /**
   * Commits `unit`. When its outcome is unknown (the connection failed while committing),
   * reads the thread back (ADR 0002): stored as this unit left it, the run goes on; not, the
   * unit is committed again (its fence makes that safe: a thread another process changed
   * meanwhile is a conflict, as it would have been).
   */
  private async commitOrReadBack(unit: UnitOfWork): Promise<CommitResult> {
    try {
      return await this.context.store.commit(unit);
    } catch (error) {
      const change = unit.thread;
      if (!outcomeUnknown(error) || change === undefined || (change.kind !== 'create' && change.kind !== 'save'))
        throw error;
      const stored = await this.context.store.getThread(change.thread.threadId).catch(() => {
        throw error;
      });
      const version = change.kind === 'create' ? 1 : change.expectedVersion + 1;
      if (stored?.version === version && stored.updatedAt === change.thread.updatedAt) {
        const { epoch, updatedAt, lease } = stored;
        return {
          status: 'committed',
          thread: { version, epoch, updatedAt, ...(lease ? { lease } : {}) },
          audit: [],
          failed: [],
        };
      }
      return this.context.store.commit(unit);
    }
  }

  /** The unit of work of the next durability point, or undefined when there is nothing to write. */
  private unitOf(pending: Effects, release: boolean): UnitOfWork | undefined {
    const writes =
      (pending.interactions?.length ?? 0) +
      (pending.toolCalls?.length ?? 0) +
      (pending.audit?.length ?? 0) +
      (pending.globals?.length ?? 0) +
      (pending.remember?.length ?? 0) +
      (pending.jobs?.length ?? 0);
    const threadChange = this.threadChange(release, writes > 0);
    const ended =
      (threadChange?.kind === 'save' || threadChange?.kind === 'create') && ENDED.has(threadChange.thread.status)
        ? this.context.endJobs?.(threadChange.thread.threadId)
        : undefined;
    const unit: UnitOfWork = {
      ...(threadChange === undefined ? {} : { thread: threadChange }),
      ...(pending.interactions?.length ? { interactions: pending.interactions } : {}),
      ...(pending.toolCalls?.length ? { toolCalls: pending.toolCalls } : {}),
      ...(pending.audit?.length ? { audit: pending.audit } : {}),
      ...(pending.globals?.length ? { globals: pending.globals } : {}),
      ...(pending.remember?.length ? { remember: pending.remember } : {}),
      ...(pending.jobs?.length ? { jobs: pending.jobs } : {}),
      ...(ended?.length ? { dropJobs: ended } : {}),
    };
    return Object.keys(unit).length === 0 ? undefined : unit;
  }

  /**
   * The thread's part of the unit. Every unit of a run that writes anything carries the
   * thread, so its fence (version and epoch) is checked, and a run's first unit claims it.
   */
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

  /** Keeps the run's views of its interactions and tool calls in step with its own writes. */
  private see(effects: Effects): void {
    for (const change of effects.interactions ?? []) {
      if (change.kind === 'open') {
        this.interactions.set(change.interaction.interactionId, change.interaction);
        continue;
      }
      const known = this.interactions.get(change.interactionId);
      if (known === undefined) continue;
      if (change.kind === 'answer')
        this.interactions.set(change.interactionId, { ...known, status: 'responded', response: change.response });
      else if (change.kind === 'consume' && known.status === 'responded')
        this.interactions.set(change.interactionId, { ...known, status: 'processed' });
      else if (change.kind === 'fail' && known.status === 'pending')
        this.interactions.set(change.interactionId, {
          ...known,
          status: 'failed',
          failureReason: change.reason,
          failureMessage: change.message,
        });
      else if (change.kind === 'approve-partially' || change.kind === 'escalate') {
        // The last approval of a call that needs several (F51), folded into this run's first commit.
        const applied = applyQuorumChange(known, change);
        if (typeof applied === 'object' && 'next' in applied) this.interactions.set(change.interactionId, applied.next);
      }
    }
    for (const change of effects.toolCalls ?? []) {
      const id = change.kind === 'start' ? change.call.toolCallId : change.toolCallId;
      const known = this.toolCalls.get(id);
      if (change.kind === 'start')
        this.toolCalls.set(id, { ...(known ?? change.call), status: 'started', updatedAt: change.at });
      else if (known !== undefined && change.kind === 'finish' && known.status !== 'finished')
        this.toolCalls.set(id, { ...known, status: 'finished', outcome: change.outcome, updatedAt: change.at });
      else if (known !== undefined && change.kind === 'status')
        this.toolCalls.set(id, { ...known, status: change.to, updatedAt: change.at });
    }
  }

  /**
   * Frees the claim of a run that stopped on an error, writing nothing else: the thread stays
   * as last committed, and another process may take it forward at once.
   */
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

/** How many messages two conversations share from the start (the stored ones a save does not write again). */
function commonPrefix(stored: readonly unknown[], now: readonly unknown[]): number {
  const length = Math.min(stored.length, now.length);
  let index = 0;
  while (index < length && stored[index] === now[index]) index += 1;
  return index;
}

/** The error a refused unit of a run becomes: STORE_CONFLICT, with the conflict in `details`. */
export function conflictError(conflict: Conflict, thread: ThreadRecord): InterlockError {
  const { threadId, epoch } = thread;
  switch (conflict.kind) {
    case 'thread-changed':
    case 'thread-busy':
      return new InterlockError(
        'STORE_CONFLICT',
        `this process no longer holds thread ${threadId} (another process saved or claimed it since it was read, epoch ${epoch}): it stops and writes nothing`,
        { details: { threadId, epoch, conflict } },
      );
    case 'claim-ended':
      return new InterlockError(
        'STORE_CONFLICT',
        `this process's claim on thread ${threadId} (epoch ${epoch}) ended${conflict.until === undefined ? '' : ` at ${conflict.until}`} before this write: it stops and writes nothing; resume the thread, and a call it was running is asked about`,
        { details: { threadId, epoch, conflict } },
      );
    case 'global-changed':
      return new InterlockError(
        'STORE_CONFLICT',
        `global variable ${conflict.name} of ${conflict.scope} changed since thread ${threadId} read it: read it again and retry`,
        { details: { threadId, conflict } },
      );
    default:
      return new InterlockError(
        'STORE_CONFLICT',
        `thread ${threadId}: the store refused the write (${conflict.kind})`,
        {
          details: { threadId, conflict },
        },
      );
  }
}

/** The conflict a STORE_CONFLICT error of a run carries, if any. */
export function conflictOf(error: unknown): Conflict | undefined {
  if (!InterlockError.is(error) || error.code !== 'STORE_CONFLICT') return undefined;
  const details = error.details as { conflict?: Conflict } | undefined;
  return details?.conflict;
}

function outcomeUnknown(error: unknown): boolean {
  return InterlockError.is(error) && error.code === 'STORE_OUTCOME_UNKNOWN';
}
