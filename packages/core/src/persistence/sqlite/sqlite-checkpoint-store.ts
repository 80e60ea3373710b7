import type { InteractionStatus, Message, WorkflowDefinition } from '@interlock/sdk-types';
import type BetterSqlite3 from 'better-sqlite3';
import type { AuditAnchor, AuditHead, AuditThreadHead } from '../../audit/audit-chain.js';
import type { AuditEntry } from '../../audit/audit-log.js';
import type { ThreadJob } from '../../workers/thread-jobs.js';
import type {
  ICheckpointStore,
  InteractionRecord,
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
import type {
  InteractionRow,
  MessageRow,
  ThreadRow,
  ToolExecutionRow,
  WorkflowDefinitionRow,
} from '../sql/row-types.js';
import { decodeOptionalJson, isStorableText } from '../sql/stored-text.js';
import type { CommitResult, UnitOfWork } from '../unit-of-work.js';
import { SqliteConnection } from './sqlite-connection.js';
import {
  INTERACTION_COLUMNS,
  interactionStatusCondition,
  SQL,
  threadsByStatus,
  TOOL_EXECUTION_COLUMNS,
  toolExecutionStatusCondition,
} from './sqlite-statements.js';
import { applyUnit, Refused, sqliteBoolean } from './sqlite-unit.js';
import { isoTime } from '../../engine/clock.js';

/** How a {@link SqliteCheckpointStore} commits. */
export interface SqliteCheckpointStoreOptions {
  /** Units of work of one event-loop turn share one transaction and its fsync. Default false. */
  groupCommit?: boolean;
  /** How long a write waits for another process's write lock (ms). Default 10 000. */
  busyTimeoutMs?: number;
}

type ThreadMessageRow = ThreadRow & { position: number | null; message: string | null };

/**
 * The durable store (F21, F40, F54) on SQLite through better-sqlite3, without an ORM on the
 * hot path: a unit of work is one transaction of prepared statements, each change one
 * conditional statement (sqlite-unit.ts); reads are single statements. The tables and their
 * encodings are the PostgreSQL store's (one set of migrations). Open it with `openSqliteStore`.
 */
export class SqliteCheckpointStore implements ICheckpointStore {
  private readonly connection: SqliteConnection;
  private readonly prepared = new Map<string, BetterSqlite3.Statement>();

  /**
   * @param database a better-sqlite3 connection to a database whose tables are up to date
   * (`openSqliteStore` migrates it and sets its pragmas); the store closes it.
   */
  constructor(
    private readonly database: BetterSqlite3.Database,
    options: SqliteCheckpointStoreOptions = {},
  ) {
    this.connection = new SqliteConnection(database, {
      busyTimeoutMs: options.busyTimeoutMs ?? 10_000,
      groupCommit: options.groupCommit ?? false,
    });
  }

  /** The prepared statement of `sql`: prepared on first use, then reused. */
  private statement(sql: string): BetterSqlite3.Statement {
    let statement = this.prepared.get(sql);
    if (statement === undefined) {
      statement = this.database.prepare(sql);
      this.prepared.set(sql, statement);
    }
    return statement;
  }

  async commit(unit: UnitOfWork): Promise<CommitResult> {
    const now = isoTime(Date.now());
    // A renewal is committed at once, group or not (see SqliteConnection.write).
    const atOnce = unit.thread?.kind === 'renew';
    try {
      return await this.connection.write(() => applyUnit((sql) => this.statement(sql), unit, now), { atOnce });
    } catch (error) {
      if (error instanceof Refused) return { status: 'conflict', conflict: error.conflict };
      throw error;
    }
  }

  async getThread(threadId: string): Promise<ThreadRecord | undefined> {
    if (!isStorableText(threadId)) return undefined;
    return this.connection.readTogether(() => this.threadNow(threadId));
  }

  async loadThread(threadId: string): Promise<StoredThread | undefined> {
    if (!isStorableText(threadId)) return undefined;
    return this.connection.readTogether(() => this.loadNow(threadId));
  }

  async loadThreadOf(interactionId: string): Promise<StoredThread | undefined> {
    if (!isStorableText(interactionId)) return undefined;
    return this.connection.readTogether(() => {
      const threadId = this.statement(SQL.threadOfInteraction).pluck().get(interactionId) as string | undefined;
      return threadId === undefined ? undefined : this.loadNow(threadId);
    });
  }

  /** A thread with its interactions and calls; inside `readTogether`. */
  private loadNow(threadId: string): StoredThread | undefined {
    const thread = this.threadNow(threadId);
    if (thread === undefined) return undefined;
    const interactions = (this.statement(SQL.interactionsOfThread).all(threadId) as InteractionRow[]).map(
      toInteractionRecord,
    );
    const toolCalls = (this.statement(SQL.toolCallsOfThread).all(threadId) as ToolExecutionRow[]).map(toolCallOf);
    return { thread, interactions, toolCalls };
  }

  /** One thread with its conversation; inside `readTogether` (one snapshot for both statements). */
  private threadNow(threadId: string): ThreadRecord | undefined {
    const row = this.statement(SQL.selectThread).get(threadId) as ThreadRow | undefined;
    if (row === undefined) return undefined;
    const messages = this.statement(SQL.messagesOfThread).all(threadId) as Pick<MessageRow, 'position' | 'message'>[];
    const conversations = new Map<string, Message[]>([[threadId, []]]);
    for (const message of messages) appendStoredMessage(conversations, { threadId, ...message });
    return toThreadRecord(row, conversations.get(threadId) ?? []);
  }

  async listThreads(filter: { status?: ThreadStatus } = {}): Promise<ThreadRecord[]> {
    const { status } = filter;
    return this.connection.read(() =>
      threadsOf(
        (status === undefined
          ? this.statement(SQL.listThreads).all()
          : this.statement(threadsByStatus(status)).all(status)) as ThreadMessageRow[],
      ),
    );
  }

  async getInteraction(interactionId: string): Promise<InteractionRecord | undefined> {
    if (!isStorableText(interactionId)) return undefined;
    const row = this.connection.read(
      () => this.statement(SQL.selectInteraction).get(interactionId) as InteractionRow | undefined,
    );
    return row === undefined ? undefined : toInteractionRecord(row);
  }

  async listInteractions(filter: { status?: InteractionStatus; threadId?: string } = {}): Promise<InteractionRecord[]> {
    const { status, threadId } = filter;
    if (threadId !== undefined && !isStorableText(threadId)) return [];
    const where = [
      ...(status === undefined ? [] : ['status = @status', interactionStatusCondition(status)]),
      ...(threadId === undefined ? [] : ['thread_id = @threadId']),
    ].filter((term) => term !== '');
    const sql = `SELECT ${INTERACTION_COLUMNS} FROM interactions${where.length === 0 ? '' : ` WHERE ${where.join(' AND ')}`} ORDER BY created_at ASC, rowid ASC`;
    return this.connection
      .read(() => this.statement(sql).all({ status, threadId }) as InteractionRow[])
      .map(toInteractionRecord);
  }

  async listToolExecutions(
    filter: { threadId?: string; status?: ToolExecutionStatus } = {},
  ): Promise<ToolExecutionRecord[]> {
    const { threadId, status } = filter;
    if (threadId !== undefined && !isStorableText(threadId)) return [];
    const where = [
      ...(threadId === undefined ? [] : ['thread_id = @threadId']),
      ...(status === undefined ? [] : ['status = @status', toolExecutionStatusCondition(status)]),
    ].filter((term) => term !== '');
    const sql = `SELECT ${TOOL_EXECUTION_COLUMNS} FROM tool_executions${where.length === 0 ? '' : ` WHERE ${where.join(' AND ')}`} ORDER BY created_at ASC, thread_id ASC, tool_call_id ASC`;
    return this.connection
      .read(() => this.statement(sql).all({ threadId, status }) as ToolExecutionRow[])
      .map(toolCallOf);
  }

  async listAuditEntries(filter: { threadId?: string; after?: number } = {}): Promise<AuditEntry[]> {
    const { threadId } = filter;
    const after = filter.after ?? 0;
    if (threadId !== undefined && !isStorableText(threadId)) return [];
    const rows = this.connection.read(
      () =>
        (threadId === undefined
          ? this.statement(SQL.listAuditEntries).all(after)
          : this.statement(SQL.listAuditEntriesOfThread).all(threadId, after)) as AuditEntryRowWithChain[],
    );
    return rows.map(toAuditEntry);
  }

  async readAuditEvidence(): Promise<StoredAuditEvidence> {
    return this.connection.readTogether(() => {
      const heads = this.statement(SQL.auditHeads).all() as AuditThreadHead[];
      const anchors = this.statement(SQL.auditAnchors).all() as AuditAnchor[];
      const legacy = this.statement(SQL.legacyAuditHead).get() as AuditHead | undefined;
      return { heads, anchors, legacyHead: legacy ?? null };
    });
  }

  async getGlobalVariables(scope: string): Promise<Record<string, unknown>> {
    if (!isStorableText(scope)) return {};
    const rows = this.connection.read(
      () => this.statement(SQL.selectGlobalVariables).all(scope) as { name: string; value: string | null }[],
    );
    return Object.fromEntries(
      rows.map((row) => [row.name, decodeOptionalJson(row.value, `global variable ${row.name} of ${scope}`)]),
    );
  }

  async isApprovalRemembered(key: string, now: number): Promise<boolean> {
    if (!isStorableText(key)) return false;
    return this.connection.read(() => this.statement(SQL.isRemembered).get(key, now) !== undefined);
  }

  async getWorkflowDefinition(workflowId: string, version: string): Promise<WorkflowDefinition | undefined> {
    if (!isStorableText(workflowId) || !isStorableText(version)) return undefined;
    const row = this.connection.read(
      () => this.statement(SQL.selectWorkflowDefinition).get(workflowId, version) as WorkflowDefinitionRow | undefined,
    );
    return row === undefined ? undefined : toWorkflowDefinition(row);
  }

  async takeJobs(
    workflowIds: readonly string[],
    owner: string,
    now: string,
    lockedUntil: string,
    limit: number,
  ): Promise<ThreadJob[]> {
    if (workflowIds.length === 0 || limit <= 0) return [];
    const sql =
      'SELECT key, kind, thread_id AS threadId, workflow_id AS workflowId, interaction_id AS interactionId, run_at AS runAt FROM jobs ' +
      `WHERE workflow_id IN (${workflowIds.map(() => '?').join(', ')}) AND run_at <= ? AND (locked_until IS NULL OR locked_until <= ?) ` +
      'ORDER BY run_at ASC LIMIT ?';
    return this.connection.write(() => {
      const rows = this.statement(sql).all(...workflowIds, now, now, limit) as (Omit<ThreadJob, 'interactionId'> & {
        interactionId: string | null;
      })[];
      for (const row of rows) this.statement(SQL.lockJob).run(owner, lockedUntil, row.key);
      return rows.map(({ interactionId, ...job }) => (interactionId === null ? job : { ...job, interactionId }));
    });
  }

  async finishJob(key: string, owner: string): Promise<void> {
    await this.connection.write(() => this.statement(SQL.finishJob).run(key, owner));
  }

  /** Commits what a group holds, then closes the connection. Closing twice is harmless. */
  close(): Promise<void> {
    return this.connection.close();
  }
}

/** Threads from rows of a thread joined with its messages (in position order per thread). */
function threadsOf(rows: readonly ThreadMessageRow[]): ThreadRecord[] {
  const conversations = new Map<string, Message[]>();
  const threads: ThreadRow[] = [];
  for (const row of rows) {
    if (!conversations.has(row.threadId)) {
      conversations.set(row.threadId, []);
      threads.push(row);
    }
    if (row.position !== null && row.message !== null)
      appendStoredMessage(conversations, { threadId: row.threadId, position: row.position, message: row.message });
  }
  return threads.map((row) => toThreadRecord(row, conversations.get(row.threadId) ?? []));
}

function toolCallOf(row: ToolExecutionRow): ToolExecutionRecord {
  return toToolExecutionRecord({ ...row, idempotent: sqliteBoolean(row.idempotent) });
}
