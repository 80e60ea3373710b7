import { createHash } from 'node:crypto';
import type { Message } from '@interlock/sdk-types';
import { InterlockError } from '../../errors/interlock-error.js';
import { decodeJson, encodeJson } from './stored-text.js';
import type { MessageRow } from './row-types.js';

/*
 * The rows of a thread's conversation, shared by the SQLite and TypeORM stores (no database
 * code here, so the SQLite store never loads TypeORM).
 */

/** A message ready to store: its JSON, and the digest chained over the conversation up to it. */
export interface EncodedMessage {
  json: string;
  digest: string;
}

/**
 * Encodes a conversation. Each digest covers its message and every one before it, so
 * comparing the digest of the last stored message tells whether the stored prefix is
 * still the conversation's prefix, without reading it back.
 */
export function encodeConversation(threadId: string, conversation: readonly Message[]): EncodedMessage[] {
  let previous = '';
  return conversation.map((message, position) => {
    const json = encodeJson(message, `message ${position} of thread ${threadId}`);
    previous = createHash('sha256').update(previous).update('\n').update(json).digest('hex');
    return { json, digest: previous };
  });
}

/**
 * The position of the first stored message (`stored` in position order) that is not
 * `messages`' message at that position: from there on the stored rows must be replaced.
 */
export function firstChangedPosition(
  stored: readonly Pick<MessageRow, 'position' | 'digest'>[],
  messages: readonly EncodedMessage[],
): number {
  const index = stored.findIndex(
    (row, position) => row.position !== position || messages[position]?.digest !== row.digest,
  );
  return index === -1 ? stored.length : index;
}

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
  return conversation.slice(from).map((message, index) => encodeJson(message, `message ${from + index} of thread ${threadId}`));
}
