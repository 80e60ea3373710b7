import { expect } from 'vitest';
import type { ICheckpointStore, ThreadRecord } from '../../persistence/checkpoint-store.js';
import type { ClaimChange, UnitOfWork } from '../../persistence/unit-of-work.js';
import type { ThreadOverrides } from './store-records.js';

export { committed, createThread, refused } from './store-records.js';

/** A save of `thread` read at `thread.version`, its conversation stored as read (`stored` messages). */
export function saveOf(
  thread: ThreadRecord,
  changes: ThreadOverrides = {},
  claim: ClaimChange = { kind: 'keep' },
  stored = thread.conversation.length,
): UnitOfWork {
  const next = { ...thread, ...changes } as ThreadRecord;
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
