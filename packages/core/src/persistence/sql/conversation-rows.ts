import type { Message } from '@interlock/sdk-types';
import { InterlockError } from '../../errors/interlock-error.js';
import { decodeJson, encodeJson } from './stored-text.js';
import type { MessageRow } from './row-types.js';

/*
 * The rows of a thread's conversation, shared by the SQLite and PostgreSQL stores (no database
 * code here, so the SQLite store never loads TypeORM).
 */

/**
 * Appends a stored message row to its thread's conversation in `conversations`; rows must
 * come in position order per thread.
 *
 * @throws InterlockError INTERNAL when a position is missing (the rows were changed outside Interlock).
 */
export function appendStoredMessage(
  conversations: Map<string, Message[]>,
  row: Pick<MessageRow, 'threadId' | 'position' | 'message'>,
): void {
  const conversation = conversations.get(row.threadId);
  if (conversation?.length !== row.position) {
    throw new InterlockError(
      'INTERNAL',
      `the stored conversation of thread ${row.threadId} has a gap at message ${row.position}`,
    );
  }
  conversation.push(decodeJson(row.message, `message ${row.position} of thread ${row.threadId}`) as Message);
}

/** The JSON of each message of a conversation from position `from` on, to store. */
export function encodeConversationFrom(threadId: string, conversation: readonly unknown[], from: number): string[] {
  return conversation
    .slice(from)
    .map((message, index) => encodeJson(message, `message ${from + index} of thread ${threadId}`));
}
