import type { Message } from '@interlock/sdk-types';
import type BetterSqlite3 from 'better-sqlite3';
import { appendStoredMessage, firstChangedPosition, type EncodedMessage } from '../sql/conversation-rows.js';
import { SQL } from './sqlite-statements.js';

/** The store's prepared statement of a piece of SQL. */
export type PreparedStatements = (sql: string) => BetterSqlite3.Statement;

/**
 * Brings the stored conversation of a thread to `messages`, writing as little as it can,
 * like the TypeORM store's `writeConversation`: usually only the new messages are
 * inserted; from an edited message on, the rows are replaced. Runs in the caller's write.
 */
export function writeConversation(
  statement: PreparedStatements,
  threadId: string,
  messages: readonly EncodedMessage[],
): void {
  const last = statement(SQL.lastMessage).get(threadId) as { position: number; digest: string } | undefined;
  const storedCount = last === undefined ? 0 : last.position + 1;
  let keep = storedCount;
  if (last !== undefined && messages[last.position]?.digest !== last.digest) {
    keep = firstChangedPosition(
      statement(SQL.messageDigests).all(threadId) as { position: number; digest: string }[],
      messages,
    );
  }
  if (keep < storedCount) statement(SQL.deleteMessagesFrom).run(threadId, keep);
  const insert = statement(SQL.insertMessage);
  for (let position = keep; position < messages.length; position += 1) {
    const message = messages[position];
    if (message !== undefined) insert.run(threadId, position, message.json, message.digest);
  }
}

/** The stored conversation of a thread, in order. */
export function readConversation(statement: PreparedStatements, threadId: string): Message[] {
  const conversations = new Map<string, Message[]>([[threadId, []]]);
  for (const row of statement(SQL.selectConversation).all(threadId) as { position: number; message: string }[]) {
    appendStoredMessage(conversations, { threadId, ...row });
  }
  return conversations.get(threadId) ?? [];
}
