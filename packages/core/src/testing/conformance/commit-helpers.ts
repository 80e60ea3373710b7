import { expect } from 'vitest';
import type { ICheckpointStore, ThreadRecord } from '../../persistence/checkpoint-store.js';
import type { ClaimChange, CommitResult, Conflict, UnitOfWork } from '../../persistence/unit-of-work.js';

/** What a unit that must commit came to. */
export type Committed = Extract<CommitResult, { status: 'committed' }>;

/** Commits `unit` and fails the test when it is refused. */
export async function committed(store: ICheckpointStore, unit: UnitOfWork): Promise<Committed> {
  const result = await store.commit(unit);
  if (result.status !== 'committed')
    return expect.unreachable(`the unit was refused: ${JSON.stringify(result.conflict)}`);
  return result;
}

/** Commits `unit` and returns why it was refused; fails the test when it commits. */
export async function refused(store: ICheckpointStore, unit: UnitOfWork): Promise<Conflict> {
  const result = await store.commit(unit);
  if (result.status !== 'conflict') return expect.unreachable('the unit committed; a conflict was expected');
  return result.conflict;
}

/** Stores `thread` new; returns it as stored (version 1). */
export async function createThread(store: ICheckpointStore, thread: ThreadRecord): Promise<ThreadRecord> {
  await committed(store, { thread: { kind: 'create', thread } });
  return { ...thread, version: 1 };
}

/** A save of `thread` read at `thread.version`, its conversation stored as read (`stored` messages). */
export function saveOf(
  thread: ThreadRecord,
  changes: Partial<ThreadRecord> = {},
  claim: ClaimChange = { kind: 'keep' },
  stored = thread.conversation.length,
): UnitOfWork {
  const next = { ...thread, ...changes };
  // The messages stored before and still unchanged are the common prefix.
  let same = 0;
  while (
    same < Math.min(stored, next.conversation.length) &&
    JSON.stringify(next.conversation[same]) === JSON.stringify(thread.conversation[same])
  )
    same += 1;
  return {
    thread: {
      kind: 'save',
      thread: next,
      expectedVersion: thread.version,
      claim,
      messagesFrom: same,
      storedMessages: stored,
    },
  };
}

/** The thread as read back; fails the test when it is missing. */
export async function stored(store: ICheckpointStore, threadId = 'thread-1'): Promise<ThreadRecord> {
  const thread = await store.getThread(threadId);
  if (thread === undefined) return expect.unreachable(`thread ${threadId} is not stored`);
  return thread;
}
