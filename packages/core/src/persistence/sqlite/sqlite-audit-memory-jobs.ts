import type { AuditEntry } from '../../audit/audit-log.js';
import { InterlockError } from '../../errors/interlock-error.js';
import type { ApprovalMemoryStore, AuditHead, AuditStore, ClaimFence, JobStore } from '../checkpoint-store.js';
import {
  isUniqueViolation,
  toAuditEntry,
  toAuditEntryRow,
  wholeMilliseconds,
  type AuditSeal,
} from '../sql/audit-rows.js';
import { isStorableText, storableText } from '../sql/stored-text.js';
import type { ThreadJob } from '../../workers/thread-jobs.js';
import { AUDIT_COLUMNS, SQL } from './sqlite-statements.js';
import { placeholders, type SqliteTables } from './sqlite-tables.js';

/** The audit log (F33, F45), remembered approvals (F19) and the workers' jobs on SQLite. */
export class SqliteAuditMemoryAndJobs implements AuditStore, ApprovalMemoryStore, JobStore {
  constructor(private readonly tables: SqliteTables) {}

  /**
   * Appends to the audit log and moves its head. The head is read inside this connection's
   * write transaction, which holds the database's write lock: no other process can append
   * between the read and the insert.
   *
   * @throws InterlockError INVALID_OPTIONS when a field cannot be stored; STORE_CONFLICT
   * if the sequence `seal` chose is taken, or the fence's claim was.
   */
  async appendAuditEntry(seal: AuditSeal, fence?: ClaimFence): Promise<AuditEntry> {
    return this.tables.connection.write(() => {
      this.tables.checkFence(fence);
      const head = this.tables.statement(SQL.auditHead).get() as AuditHead | undefined;
      const row = toAuditEntryRow(
        seal(head && head.sequence > 0 ? { sequence: head.sequence, hash: head.hash } : undefined),
      );
      try {
        this.tables.statement(SQL.insertAuditEntry).run(row);
      } catch (error) {
        if (isUniqueViolation(error))
          throw new InterlockError('STORE_CONFLICT', `audit entry ${row.sequence} exists already`, { cause: error });
        throw error;
      }
      this.tables.statement(SQL.moveAuditHead).run({ sequence: row.sequence, hash: row.hash });
      return toAuditEntry(row);
    }, fence?.threadId);
  }

  async getAuditHead(): Promise<AuditHead | undefined> {
    const head = await this.tables.connection.read(
      () => this.tables.statement(SQL.auditHead).get() as AuditHead | undefined,
    );
    return head && head.sequence > 0 ? { sequence: head.sequence, hash: head.hash } : undefined;
  }

  async listAuditEntries(filter: { threadId?: string } = {}): Promise<AuditEntry[]> {
    const { threadId } = filter;
    if (threadId !== undefined && !isStorableText(threadId)) return [];
    const sql = `SELECT ${AUDIT_COLUMNS} FROM audit_entries${threadId === undefined ? '' : ' WHERE thread_id = ?'} ORDER BY sequence ASC`;
    const rows = await this.tables.connection.read(() =>
      threadId === undefined ? this.tables.statement(sql).all() : this.tables.statement(sql).all(threadId),
    );
    return (rows as Parameters<typeof toAuditEntry>[0][]).map(toAuditEntry);
  }

  /**
   * Remembers `key` until `expiresAt`, replacing an earlier expiry.
   *
   * @throws InterlockError INVALID_OPTIONS when the key holds NUL or `expiresAt` is not a whole number of milliseconds.
   */
  async rememberApproval(key: string, expiresAt: number): Promise<void> {
    const row = {
      key: storableText(key, 'remembered approval key'),
      expiresAt: wholeMilliseconds(expiresAt, 'expiresAt'),
    };
    await this.tables.connection.write(() => this.tables.statement(SQL.upsertRememberedApproval).run(row));
  }

  /** Whether `key` is remembered at `now`; an expired entry is deleted (only if it has not been extended meanwhile). */
  async isApprovalRemembered(key: string, now: number): Promise<boolean> {
    if (!isStorableText(key)) return false;
    const row = await this.tables.connection.read(
      () => this.tables.statement(SQL.selectRememberedApproval).get(key) as { expiresAt: number } | undefined,
    );
    if (row === undefined) return false;
    if (row.expiresAt > now) return true;
    await this.tables.connection.write(() => this.tables.statement(SQL.deleteExpiredApproval).run(key, row.expiresAt));
    return false;
  }

  async scheduleJobs(jobs: readonly ThreadJob[]): Promise<void> {
    if (jobs.length > 0) await this.tables.connection.write(() => this.tables.insertJobs(jobs));
  }

  /** Locks due jobs in one write: the write lock keeps two workers from taking the same one. */
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
      `WHERE workflow_id IN (${placeholders(workflowIds.length)}) AND run_at <= ? AND (locked_until IS NULL OR locked_until <= ?) ORDER BY run_at LIMIT ?`;
    return this.tables.connection.write(() => {
      const rows = this.tables.statement(sql).all(...workflowIds, now, now, limit) as (Omit<
        ThreadJob,
        'interactionId'
      > & { interactionId: string | null })[];
      for (const row of rows) this.tables.statement(SQL.lockJob).run(owner, lockedUntil, row.key);
      return rows.map(({ interactionId, ...job }) => (interactionId === null ? job : { ...job, interactionId }));
    });
  }

  async finishJob(key: string, owner: string): Promise<void> {
    await this.tables.connection.write(() => this.tables.statement(SQL.finishJob).run(key, owner));
  }
}
