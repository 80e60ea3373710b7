import type { InteractionStatus, Message, WorkflowDefinition } from '@interlock/sdk-types';
import type { Pool } from 'pg';
import type { DataSource } from 'typeorm';
import type { AuditEntry } from '../../audit/audit-log.js';
import { InterlockError } from '../../errors/interlock-error.js';
import type {
  ICheckpointStore,
  InteractionRecord,
  StoreChange,
  StoredAuditEvidence,
  StoredThread,
  ThreadRecord,
  ThreadStatus,
  ToolExecutionRecord,
  ToolExecutionStatus,
} from '../checkpoint-store.js';
import { toAuditEntry, type AuditEntryRowWithChain } from '../sql/audit-rows.js';
import { appendStoredMessage } from '../sql/conversation-rows.js';
import {
  toInteractionRecord,
  toThreadRecord,
  toToolExecutionRecord,
  toWorkflowDefinition,
} from '../sql/record-mapping.js';
import type { InteractionRow, ThreadRow, ToolExecutionRow, WorkflowDefinitionRow } from '../sql/row-types.js';
import { decodeOptionalJson, isStorableText } from '../sql/stored-text.js';
import { isEmptyUnit, type CommitResult, type UnitOfWork } from '../unit-of-work.js';
import { listenForChanges } from './change-listener.js';
import { runStatement, type StatementKind } from './postgres-connection.js';
import { readStatements, type ReadStatements } from './postgres-reads.js';
import { decodeAnswer, encodeUnit } from './postgres-unit.js';
import { qualified, type PostgresPlacement } from './postgres-placement.js';

type ThreadMessagesRow = ThreadRow & { messages: [number, string][] };

/**
 * The durable store (F21, F40, F54) on PostgreSQL: every unit of work is one statement,
 * `SELECT interlock_commit($1::jsonb)`, a function in the database that applies the whole
 * unit in its one transaction and checks each precondition where it writes (ADR 0008); every
 * read is one statement. TypeORM is the connection (its DataSource's pool), the migrations
 * and the schema of record (./store-entities.ts); no query goes through its query building.
 * Open it with `createTypeormStore` (or `openStore({ type: 'postgres', … })`).
 */
export class PostgresCheckpointStore implements ICheckpointStore {
  private readonly running = new Set<Promise<unknown>>();
  private readonly sql: ReadStatements;
  private readonly pool: Pool;
  private closed = false;

  /**
   * @param dataSource an initialized DataSource on PostgreSQL whose migrations ran; the store destroys it on close.
   * @param connection the URL, for the connection that listens for changes.
   * @param placement where its tables and its job queue are, resolved as it opened: every
   * statement names its tables there, and the workers and readiness checks read it here.
   */
  constructor(
    private readonly dataSource: DataSource,
    private readonly connection: { url: string },
    readonly placement: PostgresPlacement,
  ) {
    this.sql = readStatements((name) => qualified(placement, name));
    // TypeORM's PostgreSQL driver keeps its pg pool as `master`.
    this.pool = (dataSource.driver as unknown as { master: Pool }).master;
  }

  /** One statement: the unit, encoded, to `interlock_commit` (none for a unit that writes nothing). */
  async commit(unit: UnitOfWork): Promise<CommitResult> {
    if (isEmptyUnit(unit)) {
      if (this.closed) throw new InterlockError('INVALID_OPTIONS', 'the store is closed: create a new one to go on');
      return { status: 'committed', audit: [], failed: [] };
    }
    const parameter = encodeUnit(unit, new Date().toISOString());
    const [row] = await this.run<{ answer: Parameters<typeof decodeAnswer>[0] }>(
      this.sql.commit,
      [parameter],
      'commit',
    );
    if (row === undefined) throw new InterlockError('INTERNAL', 'interlock_commit returned no row');
    return decodeAnswer(row.answer);
  }

  async getThread(threadId: string): Promise<ThreadRecord | undefined> {
    if (!isStorableText(threadId)) return undefined;
    const [row] = await this.run<ThreadMessagesRow>(this.sql.thread, [threadId]);
    return row === undefined ? undefined : threadOf(row);
  }

  loadThread(threadId: string): Promise<StoredThread | undefined> {
    return this.load(this.sql.loadThread, threadId);
  }

  loadThreadOf(interactionId: string): Promise<StoredThread | undefined> {
    return this.load(this.sql.loadThreadOf, interactionId);
  }

  private async load(statement: string, id: string): Promise<StoredThread | undefined> {
    if (!isStorableText(id)) return undefined;
    const [row] = await this.run<ThreadMessagesRow & { interactions: InteractionRow[]; toolCalls: ToolExecutionRow[] }>(
      statement,
      [id],
    );
    if (row === undefined) return undefined;
    const { interactions, toolCalls, ...thread } = row;
    return {
      thread: threadOf(thread),
      interactions: interactions.map(toInteractionRecord),
      toolCalls: toolCalls.map(toToolExecutionRecord),
    };
  }

  async listThreads(filter: { status?: ThreadStatus } = {}): Promise<ThreadRecord[]> {
    const rows =
      filter.status === undefined
        ? await this.run<ThreadMessagesRow>(this.sql.threads, [])
        : await this.run<ThreadMessagesRow>(this.sql.threadsByStatus, [filter.status]);
    return rows.map(threadOf);
  }

  async getInteraction(interactionId: string): Promise<InteractionRecord | undefined> {
    if (!isStorableText(interactionId)) return undefined;
    const [row] = await this.run<InteractionRow>(this.sql.interaction, [interactionId]);
    return row === undefined ? undefined : toInteractionRecord(row);
  }

  async listInteractions(filter: { status?: InteractionStatus; threadId?: string } = {}): Promise<InteractionRecord[]> {
    const { status, threadId } = filter;
    if (threadId !== undefined && !isStorableText(threadId)) return [];
    const rows = await this.run<InteractionRow>(this.sql.interactions, [status ?? null, threadId ?? null]);
    return rows.map(toInteractionRecord);
  }

  async listToolExecutions(
    filter: { threadId?: string; status?: ToolExecutionStatus } = {},
  ): Promise<ToolExecutionRecord[]> {
    const { threadId, status } = filter;
    if (threadId !== undefined && !isStorableText(threadId)) return [];
    const rows = await this.run<ToolExecutionRow>(this.sql.toolExecutions, [threadId ?? null, status ?? null]);
    return rows.map(toToolExecutionRecord);
  }

  async listAuditEntries(filter: { threadId?: string; after?: number } = {}): Promise<AuditEntry[]> {
    const { threadId } = filter;
    if (threadId !== undefined && !isStorableText(threadId)) return [];
    const rows = await this.run<AuditEntryRowWithChain>(this.sql.auditEntries, [filter.after ?? 0, threadId ?? null]);
    return rows.map(toAuditEntry);
  }

  async readAuditEvidence(): Promise<StoredAuditEvidence> {
    const [row] = await this.run<StoredAuditEvidence>(this.sql.auditEvidence, []);
    return row ?? { heads: [], anchors: [], legacyHead: null };
  }

  async getGlobalVariables(scope: string): Promise<Record<string, unknown>> {
    if (!isStorableText(scope)) return {};
    const rows = await this.run<{ name: string; value: string | null }>(this.sql.globals, [scope]);
    return Object.fromEntries(
      rows.map((row) => [row.name, decodeOptionalJson(row.value, `global variable ${row.name} of ${scope}`)]),
    );
  }

  /** Remembered while `expires_at > now`; whole milliseconds (a fraction of one changes nothing). */
  async isApprovalRemembered(key: string, now: number): Promise<boolean> {
    if (!isStorableText(key)) return false;
    const [row] = await this.run<{ remembered: boolean }>(this.sql.remembered, [key, Math.floor(now)]);
    return row?.remembered === true;
  }

  async getWorkflowDefinition(workflowId: string, version: string): Promise<WorkflowDefinition | undefined> {
    if (!isStorableText(workflowId) || !isStorableText(version)) return undefined;
    const [row] = await this.run<WorkflowDefinitionRow>(this.sql.definition, [workflowId, version]);
    return row === undefined ? undefined : toWorkflowDefinition(row);
  }

  /** The changes every process makes, heard by LISTEN on a connection of its own. */
  watchChanges(listener: (change: StoreChange) => void): Promise<{ stop(): Promise<void> }> {
    return listenForChanges(this.connection.url, this.placement.schema, listener);
  }

  /** Waits for the statements under way, then closes the pool. Closing twice is harmless. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await Promise.allSettled(this.running);
    if (this.dataSource.isInitialized) await this.dataSource.destroy();
  }

  private run<Row>(sql: string, parameters: readonly unknown[], kind: StatementKind = 'read'): Promise<Row[]> {
    if (this.closed) {
      return Promise.reject(new InterlockError('INVALID_OPTIONS', 'the store is closed: create a new one to go on'));
    }
    const result = runStatement<Row>(this.pool, sql, parameters, kind);
    this.running.add(result);
    const done = () => this.running.delete(result);
    result.then(done, done);
    return result;
  }
}

/** The record of a thread row and its conversation (`[position, message JSON]` in position order). */
function threadOf(row: ThreadMessagesRow): ThreadRecord {
  const { messages, ...thread } = row;
  const conversations = new Map<string, Message[]>([[thread.threadId, []]]);
  for (const [position, message] of messages)
    appendStoredMessage(conversations, { threadId: thread.threadId, position, message });
  return toThreadRecord(thread, conversations.get(thread.threadId) ?? []);
}
