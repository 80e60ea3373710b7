import type { Message } from '@interlock/sdk-types';
import { In, MoreThanOrEqual, type EntityManager } from 'typeorm';
import { appendStoredMessage, firstChangedPosition, type EncodedMessage } from '../sql/conversation-rows.js';
import type { MessageRow } from '../sql/row-types.js';
import { MessageEntity } from './store-entities.js';

/** Rows per multi-row INSERT and ids per IN list: far below SQLite's and PostgreSQL's parameter limits. */
const BATCH = 500;

/**
 * Brings the stored conversation of a thread to `messages`, writing as little as it can:
 * usually the stored messages are an unchanged prefix and only the new ones are
 * inserted. If an earlier message was edited (or the conversation shortened), the rows
 * from the first difference on are replaced. Runs inside the caller's transaction.
 */
export async function writeConversation(
  manager: EntityManager,
  threadId: string,
  messages: readonly EncodedMessage[],
): Promise<void> {
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
async function firstDifference(
  manager: EntityManager,
  threadId: string,
  messages: readonly EncodedMessage[],
): Promise<number> {
  const stored = await manager.find(MessageEntity, {
    select: { position: true, digest: true },
    where: { threadId },
    order: { position: 'ASC' },
  });
  return firstChangedPosition(stored, messages);
}

/** Reads the conversations of the given threads, each in order. */
export async function readConversations(
  manager: EntityManager,
  threadIds: readonly string[],
): Promise<Map<string, Message[]>> {
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
