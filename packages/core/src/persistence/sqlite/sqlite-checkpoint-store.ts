import type { InteractionFailureReason, InteractionStatus, WorkflowDefinition } from '@interlock/sdk-types';
import type BetterSqlite3 from 'better-sqlite3';
import type { AuditEntry } from '../../audit/audit-log.js';
import { InterlockError } from '../../errors/interlock-error.js';
import type {
  AuditHead,
  ClaimFence,
  ClaimResult,
  ICheckpointStore,
  InteractionRecord,
  InteractionResponseRecord,
  RecordResponseResult,
  ThreadRecord,
  ThreadStatus,
  ToolExecutionRecord,
  ToolExecutionStatus,
  ToolExecutionStore,
} from '../checkpoint-store.js';
import { encodeConversation } from '../sql/conversation-rows.js';
import {
  toInteractionRecord,
  toInteractionRow,
  toThreadRecord,
  toThreadRow,
  toWorkflowDefinition,
  toWorkflowDefinitionRow,
  type ToolApproval,
} from '../sql/record-mapping.js';
import {
  decodeOptionalJson,
  encodeJson,
  encodeOptionalJson,
  isStorableText,
  storableText,
} from '../sql/stored-text.js';
import type { InteractionRow, ThreadRow, WorkflowDefinitionRow } from '../sql/row-types.js';
import { isUniqueViolation, type AuditSeal } from '../sql/audit-rows.js';
import type { ThreadJob } from '../../workers/thread-jobs.js';
import { SqliteAuditMemoryAndJobs } from './sqlite-audit-memory-jobs.js';
import { SqliteTables } from './sqlite-tables.js';
import { SqliteToolExecutions } from './sqlite-tool-executions.js';
import { readConversation, writeConversation } from './sqlite-conversation.js';
import { INTERACTION_COLUMNS, SQL } from './sqlite-statements.js';

/** How a {@link SqliteCheckpointStore} commits. */
export interface SqliteCheckpointStoreOptions {
  /** `flush('now')` waits for the commit at the end of the event-loop turn, so concurrent threads share commits. Default false. */
  groupCommit?: boolean;
  /** How long a write waits for another process's write lock (ms). Default 10 000. */
  busyTimeoutMs?: number;
}

/**
 * The durable store (F21, F40) on SQLite through better-sqlite3, without an ORM on the hot
 * path: prepared statements over the tables and encodings of the TypeORM store (a file
 * written by one is read by the other). Writes go into one open transaction, committed
 * by `flush()` or at the end of the event-loop turn (see {@link SqliteConnection}); the
 * conditional writes are the same single statements as the TypeORM store's, and this
 * connection holds the write lock while its transaction is open, so they hold across
 * processes. Open it with `openSqliteStore`.
 */
export class SqliteCheckpointStore implements ICheckpointStore {
  private readonly tables: SqliteTables;
  private readonly toolExecutions: SqliteToolExecutions;
  private readonly rest: SqliteAuditMemoryAndJobs;

  /**
   * @param database a better-sqlite3 connection to a database whose tables are up to date
   * (`openSqliteStore` migrates it and sets its pragmas); the store closes it.
   */
  constructor(database: BetterSqlite3.Database, options: SqliteCheckpointStoreOptions = {}) {
    this.tables = new SqliteTables(database, {
      busyTimeoutMs: options.busyTimeoutMs ?? 10_000,
      groupCommit: options.groupCommit ?? false,
    });
    this.toolExecutions = new SqliteToolExecutions(this.tables);
    this.rest = new SqliteAuditMemoryAndJobs(this.tables);
  }

  /** @throws InterlockError STORE_CONFLICT when a thread with this id exists. */
  async createThread(thread: ThreadRecord, jobs: readonly ThreadJob[] = []): Promise<ThreadRecord> {
    const row = toThreadRow(thread, 1);
    const messages = encodeConversation(thread.threadId, thread.conversation);
    await this.tables.connection.write(() => {
      try {
        this.tables.statement(SQL.insertThread).run(row);
      } catch (error) {
        if (isUniqueViolation(error))
          throw new InterlockError('STORE_CONFLICT', `thread ${thread.threadId} already exists`, { cause: error });
        throw error;
      }
      writeConversation((sql) => this.tables.statement(sql), thread.threadId, messages);
      this.tables.insertJobs(jobs);
    }, thread.threadId);
    return { ...thread, version: 1 };
  }

  /** @throws InterlockError STORE_CONFLICT when the stored version is not `thread.version`; THREAD_NOT_FOUND. */
  async saveThread(thread: ThreadRecord, consumed: readonly string[] = []): Promise<ThreadRecord> {
    const saved = { ...thread, version: thread.version + 1, updatedAt: new Date().toISOString() };
    const row = toThreadRow(saved, saved.version);
    const messages = encodeConversation(thread.threadId, thread.conversation);
    await this.tables.connection.write(() => {
      const updated = this.tables.statement(SQL.updateThread).run({ ...row, expectedVersion: thread.version });
      if (updated.changes !== 1) {
        const stored = this.tables.statement(SQL.threadVersion).get(thread.threadId) as { version: number } | undefined;
        if (stored === undefined)
          throw new InterlockError('THREAD_NOT_FOUND', `thread ${thread.threadId} does not exist`);
        throw new InterlockError(
          'STORE_CONFLICT',
          `thread ${thread.threadId} was changed by someone else (stored version ${stored.version}, yours ${thread.version}): reload it and retry`,
        );
      }
      writeConversation((sql) => this.tables.statement(sql), thread.threadId, messages);
      for (const interactionId of consumed.filter(isStorableText))
        this.tables.statement(SQL.markProcessed).run(saved.updatedAt, interactionId);
    }, thread.threadId);
    return saved;
  }

  async getThread(threadId: string): Promise<ThreadRecord | undefined> {
    if (!isStorableText(threadId)) return undefined;
    return this.tables.connection.read(() => {
      const row = this.tables.statement(SQL.selectThread).get(threadId) as ThreadRow | undefined;
      return row === undefined
        ? undefined
        : toThreadRecord(
            row,
            readConversation((sql) => this.tables.statement(sql), threadId),
          );
    });
  }

  async claimThread(
    threadId: string,
    owner: string,
    until: string,
    now: string,
    expectedVersion: number,
  ): Promise<ClaimResult> {
    return this.tables.connection.write((): ClaimResult => {
      // One conditional UPDATE: no live claim, and the version the caller read.
      const claimed = this.tables.statement(SQL.claimThread).get({ threadId, owner, until, now, expectedVersion }) as
        { epoch: number; version: number } | undefined;
      if (claimed !== undefined) return { status: 'claimed', epoch: claimed.epoch, version: claimed.version };
      const stored = this.tables.statement(SQL.threadClaim).get(threadId) as
        { version: number; leaseOwner: string | null; leaseUntil: string | null } | undefined;
      if (stored === undefined) throw new InterlockError('THREAD_NOT_FOUND', `thread ${threadId} does not exist`);
      if (stored.leaseOwner !== null && stored.leaseUntil !== null && stored.leaseUntil > now) {
        return { status: 'busy', lease: { owner: stored.leaseOwner, until: stored.leaseUntil } };
      }
      return { status: 'changed' };
    }, threadId);
  }

  async renewClaim(fence: ClaimFence, owner: string, until: string): Promise<boolean> {
    const renewed = await this.tables.connection.write(
      () => this.tables.statement(SQL.renewClaim).run({ ...fence, owner, until }),
      fence.threadId,
    );
    return renewed.changes === 1;
  }

  async releaseClaim(fence: ClaimFence, owner: string): Promise<void> {
    await this.tables.connection.write(
      () => this.tables.statement(SQL.releaseClaim).run({ ...fence, owner }),
      fence.threadId,
    );
  }

  async listThreads(filter: { status?: ThreadStatus } = {}): Promise<ThreadRecord[]> {
    const { status } = filter;
    return this.tables.connection.read(() => {
      const rows = (
        status === undefined
          ? this.tables.statement(SQL.listThreads).all()
          : this.tables.statement(SQL.listThreadsByStatus).all(status)
      ) as ThreadRow[];
      return rows.map((row) =>
        toThreadRecord(
          row,
          readConversation((sql) => this.tables.statement(sql), row.threadId),
        ),
      );
    });
  }

  /** Stores an interaction; one with the same id is replaced, as in the in-memory store. */
  async createInteraction(
    interaction: InteractionRecord,
    fence?: ClaimFence,
    jobs: readonly ThreadJob[] = [],
  ): Promise<void> {
    const row = toInteractionRow(interaction);
    await this.tables.connection.write(() => {
      this.tables.checkFence(fence);
      this.tables.statement(SQL.upsertInteraction).run(row);
      this.tables.insertJobs(jobs);
    }, interaction.threadId);
  }

  async getInteraction(interactionId: string): Promise<InteractionRecord | undefined> {
    if (!isStorableText(interactionId)) return undefined;
    const row = await this.tables.connection.read(
      () => this.tables.statement(SQL.selectInteraction).get(interactionId) as InteractionRow | undefined,
    );
    return row === undefined ? undefined : toInteractionRecord(row);
  }

  async listInteractions(filter: { status?: InteractionStatus; threadId?: string } = {}): Promise<InteractionRecord[]> {
    const { status, threadId } = filter;
    if (threadId !== undefined && !isStorableText(threadId)) return [];
    const where = [
      ...(status === undefined ? [] : ['status = @status']),
      ...(threadId === undefined ? [] : ['thread_id = @threadId']),
    ];
    const sql = `SELECT ${INTERACTION_COLUMNS} FROM interactions${where.length === 0 ? '' : ` WHERE ${where.join(' AND ')}`} ORDER BY created_at ASC, interaction_id ASC`;
    const rows = await this.tables.connection.read(
      () => this.tables.statement(sql).all({ status, threadId }) as InteractionRow[],
    );
    return rows.map(toInteractionRecord);
  }

  async recordResponse(
    interactionId: string,
    response: InteractionResponseRecord,
    jobs: readonly ThreadJob[] = [],
  ): Promise<RecordResponseResult> {
    if (!isStorableText(interactionId)) return { status: 'not_found' };
    const encoded = encodeJson(response, `the response to interaction ${interactionId}`);
    const respondedAt = storableText(response.respondedAt, 'respondedAt');
    return this.tables.connection.write((): RecordResponseResult => {
      const updated = this.tables.statement(SQL.respondToInteraction).run(encoded, respondedAt, interactionId);
      const row = this.tables.statement(SQL.selectInteraction).get(interactionId) as InteractionRow | undefined;
      if (row === undefined) return { status: 'not_found' };
      if (updated.changes === 1) this.tables.insertJobs(jobs);
      return { status: updated.changes === 1 ? 'recorded' : 'not_pending', interaction: toInteractionRecord(row) };
    });
  }

  async failInteraction(interactionId: string, reason: InteractionFailureReason, message: string): Promise<boolean> {
    if (!isStorableText(interactionId)) return false;
    const failureMessage = encodeJson(message, `the failure message of interaction ${interactionId}`);
    const updatedAt = new Date().toISOString();
    const updated = await this.tables.connection.write(() =>
      this.tables.statement(SQL.failInteraction).run(reason, failureMessage, updatedAt, interactionId),
    );
    return updated.changes === 1;
  }

  async getGlobalVariables(workflowId: string): Promise<Record<string, unknown>> {
    if (!isStorableText(workflowId)) return {};
    const rows = await this.tables.connection.read(
      () =>
        this.tables.statement(SQL.selectGlobalVariables).all(workflowId) as { name: string; value: string | null }[],
    );
    return Object.fromEntries(
      rows.map((row) => [
        row.name,
        decodeOptionalJson(row.value, `global variable ${row.name} of workflow ${workflowId}`),
      ]),
    );
  }

  /** Sets global variables in one step; with `onlyIfAbsent`, an existing variable is left as it is. */
  async setGlobalVariables(
    workflowId: string,
    values: Record<string, unknown>,
    options: { onlyIfAbsent?: boolean } = {},
  ): Promise<void> {
    const rows = Object.entries(values).map(([name, value]) => ({
      workflowId: storableText(workflowId, 'workflow id'),
      name: storableText(name, 'global variable name'),
      value: encodeOptionalJson(value, `global variable ${name} of workflow ${workflowId}`),
    }));
    if (rows.length === 0) return;
    const insert = this.tables.statement(
      options.onlyIfAbsent ? SQL.insertGlobalVariableIfAbsent : SQL.upsertGlobalVariable,
    );
    await this.tables.connection.write(() => {
      for (const row of rows) insert.run(row);
    });
  }

  recordToolApproval(approval: ToolApproval, fence?: ClaimFence): Promise<void> {
    return this.toolExecutions.recordToolApproval(approval, fence);
  }

  markToolStarted(...args: Parameters<ToolExecutionStore['markToolStarted']>): Promise<boolean> {
    return this.toolExecutions.markToolStarted(...args);
  }

  markToolFinished(...args: Parameters<ToolExecutionStore['markToolFinished']>): Promise<boolean> {
    return this.toolExecutions.markToolFinished(...args);
  }

  setToolExecutionStatus(...args: Parameters<ToolExecutionStore['setToolExecutionStatus']>): Promise<boolean> {
    return this.toolExecutions.setToolExecutionStatus(...args);
  }

  getToolExecution(threadId: string, toolCallId: string): Promise<ToolExecutionRecord | undefined> {
    return this.toolExecutions.getToolExecution(threadId, toolCallId);
  }

  listToolExecutions(filter?: { threadId?: string; status?: ToolExecutionStatus }): Promise<ToolExecutionRecord[]> {
    return this.toolExecutions.listToolExecutions(filter);
  }

  appendAuditEntry(seal: AuditSeal, fence?: ClaimFence): Promise<AuditEntry> {
    return this.rest.appendAuditEntry(seal, fence);
  }

  getAuditHead(): Promise<AuditHead | undefined> {
    return this.rest.getAuditHead();
  }

  listAuditEntries(filter?: { threadId?: string }): Promise<AuditEntry[]> {
    return this.rest.listAuditEntries(filter);
  }

  rememberApproval(key: string, expiresAt: number): Promise<void> {
    return this.rest.rememberApproval(key, expiresAt);
  }

  isApprovalRemembered(key: string, now: number): Promise<boolean> {
    return this.rest.isApprovalRemembered(key, now);
  }

  scheduleJobs(jobs: readonly ThreadJob[]): Promise<void> {
    return this.rest.scheduleJobs(jobs);
  }

  takeJobs(
    workflowIds: readonly string[],
    owner: string,
    now: string,
    lockedUntil: string,
    limit: number,
  ): Promise<ThreadJob[]> {
    return this.rest.takeJobs(workflowIds, owner, now, lockedUntil, limit);
  }

  finishJob(key: string, owner: string): Promise<void> {
    return this.rest.finishJob(key, owner);
  }

  /**
   * Stores a workflow definition unless this id and version are stored already: the first
   * one stored is kept, so a thread always resumes with the definition it started with.
   *
   * @throws InterlockError INVALID_OPTIONS when the id or version cannot be stored.
   */
  async saveWorkflowDefinition(definition: WorkflowDefinition): Promise<void> {
    const row = toWorkflowDefinitionRow(definition, new Date().toISOString());
    await this.tables.connection.write(() => this.tables.statement(SQL.insertWorkflowDefinitionIfAbsent).run(row));
  }

  async getWorkflowDefinition(workflowId: string, version: string): Promise<WorkflowDefinition | undefined> {
    if (!isStorableText(workflowId) || !isStorableText(version)) return undefined;
    const row = await this.tables.connection.read(
      () =>
        this.tables.statement(SQL.selectWorkflowDefinition).get(workflowId, version) as
          WorkflowDefinitionRow | undefined,
    );
    return row === undefined ? undefined : toWorkflowDefinition(row);
  }

  /**
   * Makes every write made so far durable before it resolves: `'now'` commits at once (unless
   * the store was opened with `groupCommit`), `'soon'` waits for the commit at the end of
   * this event-loop turn.
   *
   * @throws InterlockError STORE_UNAVAILABLE when the commit failed (the writes since the last commit were lost).
   */
  flush(when: 'now' | 'soon' = 'now'): Promise<void> {
    return this.tables.connection.flush(when);
  }

  /** Commits what is pending, then closes the connection. Closing twice is harmless. */
  close(): Promise<void> {
    return this.tables.connection.close();
  }
}
