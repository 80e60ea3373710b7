import {
  askerOf,
  requestWithProgress,
  type InteractionRecord,
  type Interlock,
  type ThreadRecord,
} from '@interlock/core';
import type { UserInteractionRequest } from '@interlock/sdk-types';

/**
 * The reads a chat makes of the store: one thread and its interactions. Never every thread
 * with its whole conversation — a chat message costs the same in a store of a thousand
 * threads as in one of a single thread (issue 15).
 */
export type ChatReader = Pick<Interlock, 'thread' | 'interactions'>;

/** A thread and the requests it waits on. */
export interface ThreadWaits {
  thread: ThreadRecord;
  /** What `interlock.pending()` lists of this thread: asked, unanswered, and still waited on; oldest first. */
  pending: UserInteractionRequest[];
}

/** A thread, what it waits on, and its tool approvals that ended (answered, timed out, cancelled). */
export interface ThreadApprovals extends ThreadWaits {
  /** Tool approvals no longer pending, as stored: how each ended is known here before the thread's audit says it. */
  settled: InteractionRecord[];
  /** Every interaction of the thread, as stored (the messages given to its agent among them). */
  interactions: InteractionRecord[];
}

/** Who asked for a call (core's `askerOf`), read from the store: one read of its thread's interactions. */
export async function readAsker(
  reader: Pick<Interlock, 'interactions'>,
  request: Pick<UserInteractionRequest, 'threadId' | 'requestedAt'>,
): Promise<string | undefined> {
  return askerOf(await reader.interactions({ threadId: request.threadId }), request);
}

/** Where a channel's chats live. */
export interface ChatPlace {
  channel: string;
  workflow: string;
}

/** A thread and what it waits on, or undefined when the store has no such thread. */
export async function readThreadWaits(reader: ChatReader, threadId: string): Promise<ThreadWaits | undefined> {
  // The thread first, then its interactions: an interaction is stored before the thread lists
  // it, so one the thread waits on is always in the later read (read together, a snapshot of
  // the interactions older than the thread's would miss it, and the chat would resume a thread
  // that still waits).
  const thread = await reader.thread(threadId);
  if (!thread) return undefined;
  if (thread.pendingInteractionIds.length === 0) return { thread, pending: [] };
  const interactions = await reader.interactions({ threadId, status: 'pending' });
  const waitedOn = new Set(thread.pendingInteractionIds);
  const pending = interactions
    .filter((interaction) => waitedOn.has(interaction.interactionId))
    .sort((a, b) => a.createdAt.localeCompare(b.createdAt))
    // With how many approvals a call that needs several has so far (F51).
    .map(requestWithProgress);
  return { thread, pending };
}

/**
 * A thread, what it waits on, and its tool approvals that ended: {@link readThreadWaits}
 * with the thread's other interactions in the same (later) read. An approval answered in
 * another process (the inbox, `interlock respond`, another web server's chat) or timed out
 * is settled in the store at once; the thread's audit says so only once a worker took the
 * thread on. Undefined when the store has no such thread.
 */
export async function readThreadApprovals(reader: ChatReader, threadId: string): Promise<ThreadApprovals | undefined> {
  const thread = await reader.thread(threadId);
  if (!thread) return undefined;
  const interactions = await reader.interactions({ threadId });
  const waitedOn = new Set(thread.pendingInteractionIds);
  const pending = interactions
    .filter((interaction) => interaction.status === 'pending' && waitedOn.has(interaction.interactionId))
    .sort((a, b) => a.createdAt.localeCompare(b.createdAt))
    .map(requestWithProgress);
  const settled = interactions.filter(
    (interaction) => interaction.status !== 'pending' && interaction.request.operationType === 'TOOL_APPROVAL',
  );
  return { thread, pending, settled, interactions };
}

/**
 * The thread of a chat this process has not met yet (after a restart, or a chat another
 * server opened). A chat's thread has the chat's id (see `ChatChannel.open`): one read. A
 * chat opened before that was so is found through what it waits on — a chat waits for its
 * next message between messages — and is not found while its agent is busy or after it ended.
 */
export async function findChatThread(
  reader: ChatReader,
  chatId: string,
  place: ChatPlace,
): Promise<ThreadRecord | undefined> {
  const own = await reader.thread(chatId);
  if (own !== undefined && isChatThread(own, chatId, place)) return own;
  const waiting = await reader.interactions({ status: 'pending' });
  const candidates = new Set(
    waiting
      .filter(
        ({ request }) =>
          request.session.chatId === chatId &&
          request.session.channel === place.channel &&
          request.workflowId === place.workflow,
      )
      .map((interaction) => interaction.threadId),
  );
  for (const threadId of candidates) {
    const thread = await reader.thread(threadId);
    if (thread !== undefined && isChatThread(thread, chatId, place)) return thread;
  }
  return undefined;
}

function isChatThread(thread: ThreadRecord, chatId: string, place: ChatPlace): boolean {
  return thread.session.chatId === chatId && thread.channel === place.channel && thread.workflowId === place.workflow;
}

/** Who asked for a call in a chat (core's rule, which keeps that person's approval from counting toward a quorum). */
export { askerOf };
