import { InterlockError, type AuditEntry, type Interlock, type ThreadRecord } from '@interlock/core';
import type { UserInteractionRequest } from '@interlock/sdk-types';
import type { ChatMemory } from './chat-memory.js';
import { askerOf, readThreadApprovals } from './chat-reads.js';
import { buildTranscript } from './chat-transcript.js';
import type { ChatEntry } from './chat-types.js';

/** The chat's thread and what waits in it, read from the store. */
export interface ChatState {
  thread: ThreadRecord;
  pending: UserInteractionRequest[];
  approvals: UserInteractionRequest[];
  audit: AuditEntry[];
  transcript: ChatEntry[];
  /** Who asked for a call: the author of the message that led to it (see {@link askerOf}). */
  askerOf: (request: UserInteractionRequest) => string | undefined;
}

/**
 * A chat's thread, what waits in it, its audit trail and its transcript: reads of this one
 * thread only (issue 15). `isoNow` dates the lines this process sees for the first time.
 *
 * @throws InterlockError THREAD_NOT_FOUND when the chat's thread is not in the store.
 */
export async function loadChatState(
  interlock: Pick<Interlock, 'thread' | 'interactions' | 'audit'>,
  memory: ChatMemory,
  isoNow: () => string,
): Promise<ChatState> {
  const [waits, audit] = await Promise.all([
    readThreadApprovals(interlock, memory.threadId),
    interlock.audit({ threadId: memory.threadId }),
  ]);
  if (!waits)
    throw new InterlockError(
      'THREAD_NOT_FOUND',
      `the thread ${memory.threadId} of chat ${memory.chatId} is not in the store`,
    );
  const { thread, pending, settled, interactions } = waits;
  const approvals = pending.filter((request) => request.operationType === 'TOOL_APPROVAL');
  const transcript = buildTranscript({
    thread,
    pending: approvals,
    settled,
    audit,
    seen: memory.seen,
    delivered: memory.delivered,
    notes: memory.notes,
    queued: memory.queue,
    firstSeen: (id) => {
      const known = memory.firstSeen.get(id);
      if (known !== undefined) return known;
      const at = isoNow();
      memory.firstSeen.set(id, at);
      return at;
    },
  });
  return { thread, pending, approvals, audit, transcript, askerOf: (request) => askerOf(interactions, request) };
}
