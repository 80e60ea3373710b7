import { InterlockError } from '../errors/interlock-error.js';
import type { ICheckpointStore, InteractionRecord, ThreadRecord } from '../persistence/checkpoint-store.js';
import type {
  CommitResult,
  Conflict,
  InteractionChange,
  ThreadChange,
  UnitOfWork,
} from '../persistence/unit-of-work.js';
import type { RunViews } from './run-views.js';
import type { Effects } from './step.js';

/*
 * What a run's commits need besides the run (engine/run.ts, whose part of the writer this is):
 * reading back a unit whose outcome is unknown, settling one interaction at once, and the
 * errors of refused units.
 */

/**
 * Commits `unit`. When its outcome is unknown (the connection failed while committing),
 * reads the thread back (ADR 0002): stored as this unit left it, the run goes on; not, the
 * unit is committed again (its fence makes that safe: a thread another process changed
 * meanwhile is a conflict, as it would have been).
 */
export async function commitOrReadBack(store: ICheckpointStore, unit: UnitOfWork): Promise<CommitResult> {
  try {
    return await store.commit(unit);
  } catch (error) {
    const change = unit.thread;
    if (!outcomeUnknown(error) || change === undefined || (change.kind !== 'create' && change.kind !== 'save'))
      throw error;
    const stored = await store.getThread(change.thread.threadId).catch(() => {
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
    return store.commit(unit);
  }
}

/** How many messages two conversations share from the start (the stored ones a save does not write again). */
export function commonPrefix(stored: readonly unknown[], now: readonly unknown[]): number {
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

export function outcomeUnknown(error: unknown): boolean {
  return InterlockError.is(error) && error.code === 'STORE_OUTCOME_UNKNOWN';
}

/**
 * Answers or fails one interaction of a run at once, in a unit of its own (a person told by the
 * run's handler that the answer was taken, a timeout, a cancellation), and returns it as
 * stored: with this change, or with the answer or failure that came first. Its outcome
 * unknown, the change is read back: settled by it or by another, or committed again.
 */
export async function settleOne(
  store: ICheckpointStore,
  views: RunViews,
  interactionId: string,
  change: InteractionChange,
): Promise<InteractionRecord> {
  const unit = { interactions: [change] };
  const result = await store.commit(unit).catch(async (error: unknown) => {
    if (!outcomeUnknown(error)) throw error;
    const stored = await store.getInteraction(interactionId);
    return stored?.status === 'pending' ? store.commit(unit) : undefined;
  });
  const committed =
    result?.status === 'committed' && (change.kind === 'answer' || result.failed.includes(interactionId));
  if (committed) views.see({ interactions: [change] });
  const known = committed ? views.interaction(interactionId) : undefined;
  const stored = known ?? (await store.getInteraction(interactionId));
  if (stored === undefined)
    throw new InterlockError('INTERACTION_NOT_FOUND', `interaction ${interactionId} is missing from the store`);
  views.learn(stored);
  return stored;
}

/** The statuses a thread does not leave. */
const ENDED: ReadonlySet<string> = new Set(['completed', 'failed', 'cancelled']);

/** The jobs a unit that ends its thread removes (its recovery has nothing left to look at: issue 38). */
function endedJobs(change: ThreadChange | undefined, context: JobEnds): readonly string[] | undefined {
  if ((change?.kind !== 'save' && change?.kind !== 'create') || !ENDED.has(change.thread.status)) return undefined;
  return context.endJobs?.(change.thread.threadId);
}

/** What a run's context says of the jobs a unit that ends a thread removes (`RunContext.endJobs`). */
interface JobEnds {
  endJobs?(threadId: string): readonly string[];
}

/**
 * The unit of work of a run's next durability point, or undefined when there is nothing to
 * write. `threadChange` is the thread's part, given whether anything else is written.
 */
export function unitOfEffects(
  pending: Effects,
  threadChange: (writes: boolean) => ThreadChange | undefined,
  context: JobEnds,
): UnitOfWork | undefined {
  const writes =
    (pending.interactions?.length ?? 0) +
    (pending.toolCalls?.length ?? 0) +
    (pending.audit?.length ?? 0) +
    (pending.globals?.length ?? 0) +
    (pending.remember?.length ?? 0) +
    (pending.jobs?.length ?? 0);
  const change = threadChange(writes > 0);
  const ended = endedJobs(change, context);
  const unit: UnitOfWork = {
    ...(change === undefined ? {} : { thread: change }),
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
