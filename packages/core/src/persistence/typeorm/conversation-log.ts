import { createHash } from 'node:crypto';
import type { Message } from '@interlock/sdk-types';
import { In, MoreThanOrEqual, type EntityManager } from 'typeorm';
import { InterlockError } from '../../errors/interlock-error.js';
import { decodeJson, encodeJson } from './stored-text.js';
import { MessageEntity, type MessageRow } from './store-entities.js';

/** Rows per multi-row INSERT and ids per IN list: far below SQLite's and PostgreSQL's parameter limits. */
const BATCH = 500;

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
 * Brings the stored conversation of a thread to `messages`, writing as little as it can:
 * usually the stored messages are an unchanged prefix and only the new ones are
 * inserted. If an earlier message was edited (or the conversation shortened), the rows
 * from the first difference on are replaced. Runs inside the caller's transaction.
 */
export async function writeConversation(manager: EntityManager, threadId: string, messages: readonly EncodedMessage[]): Promise<void> {
  const last = await manager.findOne(MessageEntity, {
    select: { position: true, digest: true },
    where: { threadId },
    order: { position: 'DESC' },
  });
  const storedCount = last === null ? 0 : last.position + 1;
  let keep = storedCount;
  if (last !== null && messages[last.position]?.digest !== last.digest) {
    keep = await firstDifference(manager, threadId, messages);
  }
  if (keep < storedCount) {
    await manager.delete(MessageEntity, { threadId, position: MoreThanOrEqual(keep) });
  }
  const rows: MessageRow[] = messages
    .slice(keep)
    .map((message, index) => ({ threadId, position: keep + index, message: message.json, digest: message.digest }));
  for (let start = 0; start < rows.length; start += BATCH) {
    await manager.insert(MessageEntity, rows.slice(start, start + BATCH));
  }
}

/** The position of the first stored message that differs from `messages`. */
async function firstDifference(manager: EntityManager, threadId: string, messages: readonly EncodedMessage[]): Promise<number> {
  const stored = await manager.find(MessageEntity, {
    select: { position: true, digest: true },
    where: { threadId },
    order: { position: 'ASC' },
  });
  return firstChangedPosition(stored, messages);
}

/**
 * The position of the first stored message (`stored` in position order) that is not
 * `messages`' message at that position: from there on the stored rows must be replaced.
 */
export function firstChangedPosition(
  stored: readonly Pick<MessageRow, 'position' | 'digest'>[],
  messages: readonly EncodedMessage[],
): number {
  const index = stored.findIndex((row, position) => row.position !== position || messages[position]?.digest !== row.digest);
  return index === -1 ? stored.length : index;
}

/** Reads the conversations of the given threads, each in order. */
export async function readConversations(manager: EntityManager, threadIds: readonly string[]): Promise<Map<string, Message[]>> {
  const conversations = new Map<string, Message[]>(threadIds.map((threadId) => [threadId, []]));
  for (let start = 0; start < threadIds.length; start += BATCH) {
    const rows = await manager.find(MessageEntity, {
      where: { threadId: In(threadIds.slice(start, start + BATCH)) },
      order: { threadId: 'ASC', position: 'ASC' },
    });
    for (const row of rows) appendStoredMessage(conversations, row);
  }
  return conversations;
}

/**
 * Appends a stored message row to its thread's conversation in `conversations`; rows must
 * come in position order per thread.
 *
 * @throws InterlockError INTERNAL when a position is missing (the rows were changed outside Interlock).
 */
export function appendStoredMessage(conversations: Map<string, Message[]>, row: Pick<MessageRow, 'threadId' | 'position' | 'message'>): void {
  const conversation = conversations.get(row.threadId);
  if (conversation?.length !== row.position) {
    throw new InterlockError('INTERNAL', `the stored conversation of thread ${row.threadId} has a gap at message ${row.position}`);
  }
  conversation.push(decodeJson(row.message, `message ${row.position} of thread ${row.threadId}`) as Message);
}
