import { InterlockError } from '../../errors/interlock-error.js';
import type { ClaimFence, ToolExecutionRecord, ToolExecutionStatus, ToolExecutionStore } from '../checkpoint-store.js';
import { toToolExecutionRecord, toToolExecutionRow, type ToolApproval } from '../sql/record-mapping.js';
import type { ToolExecutionRow } from '../sql/row-types.js';
import { encodeJson, isStorableText, storableText } from '../sql/stored-text.js';
import { SQL, TOOL_EXECUTION_COLUMNS } from './sqlite-statements.js';
import { placeholders, type SqliteTables } from './sqlite-tables.js';

/** A `tool_executions` row as SQLite returns it: booleans are integers. */
type StoredToolExecutionRow = Omit<ToolExecutionRow, 'idempotent'> & { idempotent: number };

/** The write-ahead record of tool calls (F40) on SQLite: every move is one conditional statement. */
export class SqliteToolExecutions implements ToolExecutionStore {
  constructor(private readonly tables: SqliteTables) {}

  /**
   * Stores the approval of a tool call as `approved`. Approving it again with the same
   * arguments hash changes nothing, whatever its status by then.
   *
   * @throws InterlockError STORE_CONFLICT when the call was approved with another arguments hash;
   * INVALID_OPTIONS when an id, name or timestamp cannot be stored or the arguments are not JSON.
   */
  async recordToolApproval(approval: ToolApproval, fence?: ClaimFence): Promise<void> {
    const row = toToolExecutionRow(approval);
    await this.tables.connection.write(() => {
      this.tables.checkFence(fence);
      this.tables.statement(SQL.insertToolExecutionIfAbsent).run({ ...row, idempotent: row.idempotent ? 1 : 0 });
      const stored = this.tables.statement(SQL.toolExecutionHash).get(row.threadId, row.toolCallId) as
        { argumentsHash: string } | undefined;
      if (stored !== undefined && stored.argumentsHash !== row.argumentsHash) {
        throw new InterlockError(
          'STORE_CONFLICT',
          `tool call ${approval.toolCallId} of thread ${approval.threadId} was approved with other arguments`,
          {
            details: { threadId: approval.threadId, toolCallId: approval.toolCallId },
          },
        );
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
    const updated = await this.tables.connection.write(() => {
      this.tables.checkFence(fence);
      return this.tables.statement(sql).run(updatedAt, threadId, toolCallId, argumentsHash, ...from);
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
    const updated = await this.tables.connection.write(() => {
      this.tables.checkFence(fence);
      return this.tables.statement(SQL.finishToolExecution).run(encoded, updatedAt, threadId, toolCallId);
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
    const updated = await this.tables.connection.write(() => {
      this.tables.checkFence(fence);
      return this.tables.statement(sql).run(status, updatedAt, threadId, toolCallId, ...from);
    }, threadId);
    return updated.changes === 1;
  }

  async getToolExecution(threadId: string, toolCallId: string): Promise<ToolExecutionRecord | undefined> {
    if (!isStorableText(threadId) || !isStorableText(toolCallId)) return undefined;
    const row = await this.tables.connection.read(
      () =>
        this.tables.statement(SQL.selectToolExecution).get(threadId, toolCallId) as StoredToolExecutionRow | undefined,
    );
    return row === undefined ? undefined : toToolExecution(row);
  }

  /** Lists tool executions, oldest first (ties by thread id, then call id). */
  async listToolExecutions(
    filter: { threadId?: string; status?: ToolExecutionStatus } = {},
  ): Promise<ToolExecutionRecord[]> {
    const { threadId, status } = filter;
    if (threadId !== undefined && !isStorableText(threadId)) return [];
    const where = [
      ...(threadId === undefined ? [] : ['thread_id = @threadId']),
      ...(status === undefined ? [] : ['status = @status']),
    ];
    const sql = `SELECT ${TOOL_EXECUTION_COLUMNS} FROM tool_executions${where.length === 0 ? '' : ` WHERE ${where.join(' AND ')}`} ORDER BY created_at ASC, thread_id ASC, tool_call_id ASC`;
    const rows = await this.tables.connection.read(
      () => this.tables.statement(sql).all({ threadId, status }) as StoredToolExecutionRow[],
    );
    return rows.map(toToolExecution);
  }
}

function toToolExecution(row: StoredToolExecutionRow): ToolExecutionRecord {
  return toToolExecutionRecord({ ...row, idempotent: row.idempotent !== 0 });
}
