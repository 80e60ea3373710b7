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
} from '../checkpoint-store.js';
import { encodeConversation } from '../sql/conversation-rows.js';
import {
  toInteractionRecord,
  toInteractionRow,
  toThreadRecord,
  toThreadRow,
  toToolExecutionRecord,
  toToolExecutionRow,
  toWorkflowDefinition,
  toWorkflowDefinitionRow,
  type ToolApproval,
} from '../sql/record-mapping.js';
import { decodeOptionalJson, encodeJson, encodeOptionalJson, isStorableText, storableText } from '../sql/stored-text.js';
import type { InteractionRow, ThreadRow, ToolExecutionRow, WorkflowDefinitionRow } from '../sql/row-types.js';
import { isUniqueViolation, toAuditEntry, toAuditEntryRow, wholeMilliseconds, type AuditSeal } from '../sql/audit-rows.js';
import { staleClaim } from '../stale-claim.js';
import type { ThreadJob } from '../../workers/thread-jobs.js';
import { SqliteConnection } from './sqlite-connection.js';
import { readConversation, writeConversation } from './sqlite-conversation.js';
import { AUDIT_COLUMNS, INTERACTION_COLUMNS, SQL, TOOL_EXECUTION_COLUMNS } from './sqlite-statements.js';

/** How a {@link SqliteCheckpointStore} commits. */
export interface SqliteCheckpointStoreOptions {
  /** `flush('now')` waits for the commit at the end of the event-loop turn, so concurrent threads share commits. Default false. */
  groupCommit?: boolean;
  /** How long a write waits for another process's write lock (ms). Default 10 000. */
  busyTimeoutMs?: number;
}

/** A `tool_executions` row as SQLite returns it: booleans are integers. */
type StoredToolExecutionRow = Omit<ToolExecutionRow, 'idempotent'> & { idempotent: number };

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

  /** @throws InterlockError STORE_CONFLICT when a thread with this id exists. */
  async createThread(thread: ThreadRecord, jobs: readonly ThreadJob[] = []): Promise<ThreadRecord> {
    const row = toThreadRow(thread, 1);
    const messages = encodeConversation(thread.threadId, thread.conversation);
    await this.connection.write(() => {
      try {
        this.statement(SQL.insertThread).run(row);
      } catch (error) {
        if (isUniqueViolation(error)) throw new InterlockError('STORE_CONFLICT', `thread ${thread.threadId} already exists`, { cause: error });
        throw error;
      }
      writeConversation((sql) => this.statement(sql), thread.threadId, messages);
      this.insertJobs(jobs);
    }, thread.threadId);
    return { ...thread, version: 1 };
  }

  /** @throws InterlockError STORE_CONFLICT when the stored version is not `thread.version`; THREAD_NOT_FOUND. */
  async saveThread(thread: ThreadRecord): Promise<ThreadRecord> {
    const saved = { ...thread, version: thread.version + 1, updatedAt: new Date().toISOString() };
    const row = toThreadRow(saved, saved.version);
    const messages = encodeConversation(thread.threadId, thread.conversation);
    await this.connection.write(() => {
      const updated = this.statement(SQL.updateThread).run({ ...row, expectedVersion: thread.version });
      if (updated.changes !== 1) {
        const stored = this.statement(SQL.threadVersion).get(thread.threadId) as { version: number } | undefined;
        if (stored === undefined) throw new InterlockError('THREAD_NOT_FOUND', `thread ${thread.threadId} does not exist`);
        throw new InterlockError(
          'STORE_CONFLICT',
          `thread ${thread.threadId} was changed by someone else (stored version ${stored.version}, yours ${thread.version}): reload it and retry`,
        );
      }
      writeConversation((sql) => this.statement(sql), thread.threadId, messages);
    }, thread.threadId);
    return saved;
  }

  async getThread(threadId: string): Promise<ThreadRecord | undefined> {
    if (!isStorableText(threadId)) return undefined;
    return this.connection.read(() => {
      const row = this.statement(SQL.selectThread).get(threadId) as ThreadRow | undefined;
      return row === undefined ? undefined : toThreadRecord(row, readConversation((sql) => this.statement(sql), threadId));
    });
  }

  async claimThread(threadId: string, owner: string, until: string, now: string, expectedVersion: number): Promise<ClaimResult> {
    return this.connection.write((): ClaimResult => {
      // One conditional UPDATE: no live claim, and the version the caller read.
      const claimed = this.statement(SQL.claimThread).get({ threadId, owner, until, now, expectedVersion }) as
        | { epoch: number; version: number }
        | undefined;
      if (claimed !== undefined) return { status: 'claimed', epoch: claimed.epoch, version: claimed.version };
      const stored = this.statement(SQL.threadClaim).get(threadId) as
        | { version: number; leaseOwner: string | null; leaseUntil: string | null }
        | undefined;
      if (stored === undefined) throw new InterlockError('THREAD_NOT_FOUND', `thread ${threadId} does not exist`);
      if (stored.leaseOwner !== null && stored.leaseUntil !== null && stored.leaseUntil > now) {
        return { status: 'busy', lease: { owner: stored.leaseOwner, until: stored.leaseUntil } };
      }
      return { status: 'changed' };
    }, threadId);
  }

  async renewClaim(fence: ClaimFence, owner: string, until: string): Promise<boolean> {
    const renewed = await this.connection.write(() => this.statement(SQL.renewClaim).run({ ...fence, owner, until }), fence.threadId);
    return renewed.changes === 1;
  }

  async releaseClaim(fence: ClaimFence, owner: string): Promise<void> {
    await this.connection.write(() => this.statement(SQL.releaseClaim).run({ ...fence, owner }), fence.threadId);
  }

  /**
   * Refuses a write whose claim was taken (STORE_CONFLICT). Called inside the write: this
   * connection holds the database's write lock, so no claim can land between the check and the write.
   */
  private checkFence(fence: ClaimFence | undefined): void {
    if (fence === undefined) return;
    const stored = this.statement(SQL.threadEpoch).get(fence.threadId) as { epoch: number } | undefined;
    if (stored?.epoch !== fence.epoch) throw staleClaim(fence);
  }

  async listThreads(filter: { status?: ThreadStatus } = {}): Promise<ThreadRecord[]> {
    const { status } = filter;
    return this.connection.read(() => {
      const rows = (
        status === undefined ? this.statement(SQL.listThreads).all() : this.statement(SQL.listThreadsByStatus).all(status)
      ) as ThreadRow[];
      return rows.map((row) => toThreadRecord(row, readConversation((sql) => this.statement(sql), row.threadId)));
    });
  }

  /** Stores an interaction; one with the same id is replaced, as in the in-memory store. */
  async createInteraction(interaction: InteractionRecord, fence?: ClaimFence, jobs: readonly ThreadJob[] = []): Promise<void> {
    const row = toInteractionRow(interaction);
    await this.connection.write(() => {
      this.checkFence(fence);
      this.statement(SQL.upsertInteraction).run(row);
      this.insertJobs(jobs);
    }, interaction.threadId);
  }

  async getInteraction(interactionId: string): Promise<InteractionRecord | undefined> {
    if (!isStorableText(interactionId)) return undefined;
    const row = await this.connection.read(() => this.statement(SQL.selectInteraction).get(interactionId) as InteractionRow | undefined);
    return row === undefined ? undefined : toInteractionRecord(row);
  }

  async listInteractions(filter: { status?: InteractionStatus; threadId?: string } = {}): Promise<InteractionRecord[]> {
    const { status, threadId } = filter;
    if (threadId !== undefined && !isStorableText(threadId)) return [];
    const where = [...(status === undefined ? [] : ['status = @status']), ...(threadId === undefined ? [] : ['thread_id = @threadId'])];
    const sql = `SELECT ${INTERACTION_COLUMNS} FROM interactions${where.length === 0 ? '' : ` WHERE ${where.join(' AND ')}`} ORDER BY created_at ASC, interaction_id ASC`;
    const rows = await this.connection.read(() => this.statement(sql).all({ status, threadId }) as InteractionRow[]);
    return rows.map(toInteractionRecord);
  }

  async recordResponse(interactionId: string, response: InteractionResponseRecord, jobs: readonly ThreadJob[] = []): Promise<RecordResponseResult> {
    if (!isStorableText(interactionId)) return { status: 'not_found' };
    const encoded = encodeJson(response, `the response to interaction ${interactionId}`);
    const respondedAt = storableText(response.respondedAt, 'respondedAt');
    return this.connection.write((): RecordResponseResult => {
      const updated = this.statement(SQL.respondToInteraction).run(encoded, respondedAt, interactionId);
      const row = this.statement(SQL.selectInteraction).get(interactionId) as InteractionRow | undefined;
      if (row === undefined) return { status: 'not_found' };
      if (updated.changes === 1) this.insertJobs(jobs);
      return { status: updated.changes === 1 ? 'recorded' : 'not_pending', interaction: toInteractionRecord(row) };
    });
  }

  async failInteraction(interactionId: string, reason: InteractionFailureReason, message: string): Promise<boolean> {
    if (!isStorableText(interactionId)) return false;
    const failureMessage = encodeJson(message, `the failure message of interaction ${interactionId}`);
    const updatedAt = new Date().toISOString();
    const updated = await this.connection.write(() => this.statement(SQL.failInteraction).run(reason, failureMessage, updatedAt, interactionId));
    return updated.changes === 1;
  }

  async markProcessed(interactionId: string, fence?: ClaimFence): Promise<void> {
    if (!isStorableText(interactionId)) return;
    const updatedAt = new Date().toISOString();
    await this.connection.write(() => {
      this.checkFence(fence);
      this.statement(SQL.markProcessed).run(updatedAt, interactionId);
    }, fence?.threadId);
  }

  async getGlobalVariables(workflowId: string): Promise<Record<string, unknown>> {
    if (!isStorableText(workflowId)) return {};
    const rows = await this.connection.read(
      () => this.statement(SQL.selectGlobalVariables).all(workflowId) as { name: string; value: string | null }[],
    );
    return Object.fromEntries(
      rows.map((row) => [row.name, decodeOptionalJson(row.value, `global variable ${row.name} of workflow ${workflowId}`)]),
    );
  }

  /** Sets global variables in one step; with `onlyIfAbsent`, an existing variable is left as it is. */
  async setGlobalVariables(workflowId: string, values: Record<string, unknown>, options: { onlyIfAbsent?: boolean } = {}): Promise<void> {
    const rows = Object.entries(values).map(([name, value]) => ({
      workflowId: storableText(workflowId, 'workflow id'),
      name: storableText(name, 'global variable name'),
      value: encodeOptionalJson(value, `global variable ${name} of workflow ${workflowId}`),
    }));
    if (rows.length === 0) return;
    const insert = this.statement(options.onlyIfAbsent ? SQL.insertGlobalVariableIfAbsent : SQL.upsertGlobalVariable);
    await this.connection.write(() => {
      for (const row of rows) insert.run(row);
    });
  }

  /**
   * Stores the approval of a tool call as `approved`. Approving it again with the same
   * arguments hash changes nothing, whatever its status by then.
   *
   * @throws InterlockError STORE_CONFLICT when the call was approved with another arguments hash;
   * INVALID_OPTIONS when an id, name or timestamp cannot be stored or the arguments are not JSON.
   */
  async recordToolApproval(approval: ToolApproval, fence?: ClaimFence): Promise<void> {
    const row = toToolExecutionRow(approval);
    await this.connection.write(() => {
      this.checkFence(fence);
      this.statement(SQL.insertToolExecutionIfAbsent).run({ ...row, idempotent: row.idempotent ? 1 : 0 });
      const stored = this.statement(SQL.toolExecutionHash).get(row.threadId, row.toolCallId) as { argumentsHash: string } | undefined;
      if (stored !== undefined && stored.argumentsHash !== row.argumentsHash) {
        throw new InterlockError('STORE_CONFLICT', `tool call ${approval.toolCallId} of thread ${approval.threadId} was approved with other arguments`, {
          details: { threadId: approval.threadId, toolCallId: approval.toolCallId },
        });
      }
    }, approval.threadId);
  }

  /** Moves an approved call to `started` in one conditional UPDATE: of concurrent callers, one gets true. */
  async markToolStarted(
    threadId: string,
    toolCallId: string,
    argumentsHash: string,
    from: readonly ToolExecutionStatus[],
    at: string,
    fence?: ClaimFence,
  ): Promise<boolean> {
    if (from.length === 0 || ![threadId, toolCallId, argumentsHash].every(isStorableText)) return false;
    const updatedAt = storableText(at, 'at');
    const sql = `UPDATE tool_executions SET status = 'started', updated_at = ? WHERE thread_id = ? AND tool_call_id = ? AND arguments_hash = ? AND status IN (${placeholders(from.length)})`;
    const updated = await this.connection.write(() => {
      this.checkFence(fence);
      return this.statement(sql).run(updatedAt, threadId, toolCallId, argumentsHash, ...from);
    }, threadId);
    return updated.changes === 1;
  }

  /**
   * Stores the outcome and marks the call `finished` unless it is finished already; a call
   * never approved is left absent.
   *
   * @throws InterlockError INVALID_OPTIONS when the outcome is not JSON.
   */
  async markToolFinished(
    threadId: string,
    toolCallId: string,
    outcome: NonNullable<ToolExecutionRecord['outcome']>,
    at: string,
    fence?: ClaimFence,
  ): Promise<boolean> {
    if (!isStorableText(threadId) || !isStorableText(toolCallId)) return false;
    const encoded = encodeJson(outcome, `the outcome of tool call ${toolCallId}`);
    const updatedAt = storableText(at, 'at');
    const updated = await this.connection.write(() => {
      this.checkFence(fence);
      return this.statement(SQL.finishToolExecution).run(encoded, updatedAt, threadId, toolCallId);
    }, threadId);
    return updated.changes === 1;
  }

  /** Moves a call from one of `from` to `to` in one conditional UPDATE. */
  async setToolExecutionStatus(
    threadId: string,
    toolCallId: string,
    from: readonly ToolExecutionStatus[],
    to: ToolExecutionStatus,
    at: string,
    fence?: ClaimFence,
  ): Promise<boolean> {
    if (from.length === 0 || !isStorableText(threadId) || !isStorableText(toolCallId)) return false;
    const updatedAt = storableText(at, 'at');
    const status = storableText(to, 'tool execution status');
    const sql = `UPDATE tool_executions SET status = ?, updated_at = ? WHERE thread_id = ? AND tool_call_id = ? AND status IN (${placeholders(from.length)})`;
    const updated = await this.connection.write(() => {
      this.checkFence(fence);
      return this.statement(sql).run(status, updatedAt, threadId, toolCallId, ...from);
    }, threadId);
    return updated.changes === 1;
  }

  async getToolExecution(threadId: string, toolCallId: string): Promise<ToolExecutionRecord | undefined> {
    if (!isStorableText(threadId) || !isStorableText(toolCallId)) return undefined;
    const row = await this.connection.read(() => this.statement(SQL.selectToolExecution).get(threadId, toolCallId) as StoredToolExecutionRow | undefined);
    return row === undefined ? undefined : toToolExecution(row);
  }

  /** Lists tool executions, oldest first (ties by thread id, then call id). */
  async listToolExecutions(filter: { threadId?: string; status?: ToolExecutionStatus } = {}): Promise<ToolExecutionRecord[]> {
    const { threadId, status } = filter;
    if (threadId !== undefined && !isStorableText(threadId)) return [];
    const where = [...(threadId === undefined ? [] : ['thread_id = @threadId']), ...(status === undefined ? [] : ['status = @status'])];
    const sql = `SELECT ${TOOL_EXECUTION_COLUMNS} FROM tool_executions${where.length === 0 ? '' : ` WHERE ${where.join(' AND ')}`} ORDER BY created_at ASC, thread_id ASC, tool_call_id ASC`;
    const rows = await this.connection.read(() => this.statement(sql).all({ threadId, status }) as StoredToolExecutionRow[]);
    return rows.map(toToolExecution);
  }

  /**
   * Appends to the audit log and moves its head. The head is read inside this connection's
   * write transaction, which holds the database's write lock: no other process can append
   * between the read and the insert.
   *
   * @throws InterlockError INVALID_OPTIONS when a field cannot be stored; STORE_CONFLICT
   * if the sequence `seal` chose is taken, or the fence's claim was.
   */
  async appendAuditEntry(seal: AuditSeal, fence?: ClaimFence): Promise<AuditEntry> {
    return this.connection.write(() => {
      this.checkFence(fence);
      const head = this.statement(SQL.auditHead).get() as AuditHead | undefined;
      const row = toAuditEntryRow(seal(head && head.sequence > 0 ? { sequence: Number(head.sequence), hash: head.hash } : undefined));
      try {
        this.statement(SQL.insertAuditEntry).run(row);
      } catch (error) {
        if (isUniqueViolation(error)) throw new InterlockError('STORE_CONFLICT', `audit entry ${row.sequence} exists already`, { cause: error });
        throw error;
      }
      this.statement(SQL.moveAuditHead).run({ sequence: row.sequence, hash: row.hash });
      return toAuditEntry(row);
    }, fence?.threadId);
  }

  async getAuditHead(): Promise<AuditHead | undefined> {
    const head = await this.connection.read(() => this.statement(SQL.auditHead).get() as AuditHead | undefined);
    return head && head.sequence > 0 ? { sequence: Number(head.sequence), hash: head.hash } : undefined;
  }

  async listAuditEntries(filter: { threadId?: string } = {}): Promise<AuditEntry[]> {
    const { threadId } = filter;
    if (threadId !== undefined && !isStorableText(threadId)) return [];
    const sql = `SELECT ${AUDIT_COLUMNS} FROM audit_entries${threadId === undefined ? '' : ' WHERE thread_id = ?'} ORDER BY sequence ASC`;
    const rows = await this.connection.read(() => (threadId === undefined ? this.statement(sql).all() : this.statement(sql).all(threadId)));
    return (rows as Parameters<typeof toAuditEntry>[0][]).map(toAuditEntry);
  }

  /**
   * Remembers `key` until `expiresAt`, replacing an earlier expiry.
   *
   * @throws InterlockError INVALID_OPTIONS when the key holds NUL or `expiresAt` is not a whole number of milliseconds.
   */
  async rememberApproval(key: string, expiresAt: number): Promise<void> {
    const row = { key: storableText(key, 'remembered approval key'), expiresAt: wholeMilliseconds(expiresAt, 'expiresAt') };
    await this.connection.write(() => this.statement(SQL.upsertRememberedApproval).run(row));
  }

  /** Whether `key` is remembered at `now`; an expired entry is deleted (only if it has not been extended meanwhile). */
  async isApprovalRemembered(key: string, now: number): Promise<boolean> {
    if (!isStorableText(key)) return false;
    const row = await this.connection.read(() => this.statement(SQL.selectRememberedApproval).get(key) as { expiresAt: number } | undefined);
    if (row === undefined) return false;
    if (Number(row.expiresAt) > now) return true;
    await this.connection.write(() => this.statement(SQL.deleteExpiredApproval).run(key, row.expiresAt));
    return false;
  }

  async scheduleJobs(jobs: readonly ThreadJob[]): Promise<void> {
    if (jobs.length > 0) await this.connection.write(() => this.insertJobs(jobs));
  }

  /** Locks due jobs in one write: the write lock keeps two workers from taking the same one. */
  async takeJobs(workflowIds: readonly string[], owner: string, now: string, lockedUntil: string, limit: number): Promise<ThreadJob[]> {
    if (workflowIds.length === 0 || limit <= 0) return [];
    const sql =
      'SELECT key, kind, thread_id AS threadId, workflow_id AS workflowId, interaction_id AS interactionId, run_at AS runAt FROM jobs ' +
      `WHERE workflow_id IN (${placeholders(workflowIds.length)}) AND run_at <= ? AND (locked_until IS NULL OR locked_until <= ?) ORDER BY run_at LIMIT ?`;
    return this.connection.write(() => {
      const rows = this.statement(sql).all(...workflowIds, now, now, limit) as (Omit<ThreadJob, 'interactionId'> & { interactionId: string | null })[];
      for (const row of rows) this.statement(SQL.lockJob).run(owner, lockedUntil, row.key);
      return rows.map(({ interactionId, ...job }) => (interactionId === null ? job : { ...job, interactionId }));
    });
  }

  async finishJob(key: string, owner: string): Promise<void> {
    await this.connection.write(() => this.statement(SQL.finishJob).run(key, owner));
  }

  private insertJobs(jobs: readonly ThreadJob[]): void {
    for (const job of jobs) this.statement(SQL.scheduleJob).run({ interactionId: null, ...job });
  }

  /**
   * Stores a workflow definition unless this id and version are stored already: the first
   * one stored is kept, so a thread always resumes with the definition it started with.
   *
   * @throws InterlockError INVALID_OPTIONS when the id or version cannot be stored.
   */
  async saveWorkflowDefinition(definition: WorkflowDefinition): Promise<void> {
    const row = toWorkflowDefinitionRow(definition, new Date().toISOString());
    await this.connection.write(() => this.statement(SQL.insertWorkflowDefinitionIfAbsent).run(row));
  }

  async getWorkflowDefinition(workflowId: string, version: string): Promise<WorkflowDefinition | undefined> {
    if (!isStorableText(workflowId) || !isStorableText(version)) return undefined;
    const row = await this.connection.read(
      () => this.statement(SQL.selectWorkflowDefinition).get(workflowId, version) as WorkflowDefinitionRow | undefined,
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
    return this.connection.flush(when);
  }

  /** Commits what is pending, then closes the connection. Closing twice is harmless. */
  close(): Promise<void> {
    return this.connection.close();
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
}

function placeholders(count: number): string {
  return Array.from({ length: count }, () => '?').join(', ');
}

function toToolExecution(row: StoredToolExecutionRow): ToolExecutionRecord {
  return toToolExecutionRecord({ ...row, idempotent: row.idempotent !== 0 });
}
