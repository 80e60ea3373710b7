import { In, Not } from 'typeorm';
import { InterlockError } from '../../errors/interlock-error.js';
import type { ToolExecutionRecord, ToolExecutionStatus } from '../checkpoint-store.js';
import { toToolExecutionRecord, toToolExecutionRow, type ToolApproval } from '../sql/record-mapping.js';
import { encodeJson, isStorableText, storableText } from '../sql/stored-text.js';
import { ToolExecutionEntity } from './store-entities.js';
import type { RunInTransaction } from './typeorm-audit-and-memory.js';

/*
 * The write-ahead record of tool calls on the TypeORM store, as functions the store
 * delegates to. `write` runs a transaction that has already refused a stale claim; `read`
 * a read transaction.
 */

/**
 * Stores the approval of a tool call as `approved`. Approving it again with the same
 * arguments hash changes nothing, whatever its status by then.
 *
 * @throws InterlockError STORE_CONFLICT when the call was approved with another arguments hash;
 * INVALID_OPTIONS when an id, name or timestamp cannot be stored or the arguments are not JSON.
 */
export async function recordToolApproval(write: RunInTransaction, approval: ToolApproval): Promise<void> {
  const row = toToolExecutionRow(approval);
  await write(async (manager) => {
    // Insert-if-absent is one statement, so of two concurrent approvals exactly one
    // row is stored; the loser then reads the winner's committed row.
    await manager.createQueryBuilder().insert().into(ToolExecutionEntity).values(row).orIgnore().execute();
    const stored = await manager.findOne(ToolExecutionEntity, {
      select: { argumentsHash: true },
      where: { threadId: row.threadId, toolCallId: row.toolCallId },
    });
    if (stored !== null && stored.argumentsHash !== row.argumentsHash) throw approvedWithOtherArguments(approval);
  });
}

/** The refusal of an approval whose call was approved with other arguments. */
export function approvedWithOtherArguments(approval: Pick<ToolApproval, 'threadId' | 'toolCallId'>): InterlockError {
  return new InterlockError(
    'STORE_CONFLICT',
    `tool call ${approval.toolCallId} of thread ${approval.threadId} was approved with other arguments`,
    {
      details: { threadId: approval.threadId, toolCallId: approval.toolCallId },
    },
  );
}

/** Moves an approved call to `started` in one conditional UPDATE: of concurrent callers, one gets true. */
export async function markToolStarted(
  write: RunInTransaction,
  threadId: string,
  toolCallId: string,
  argumentsHash: string,
  from: readonly ToolExecutionStatus[],
  at: string,
): Promise<boolean> {
  if (from.length === 0 || ![threadId, toolCallId, argumentsHash].every(isStorableText)) return false;
  const updatedAt = storableText(at, 'at');
  const updated = await write((manager) =>
    manager.update(
      ToolExecutionEntity,
      { threadId, toolCallId, argumentsHash, status: In([...from]) },
      { status: 'started', updatedAt },
    ),
  );
  return updated.affected === 1;
}

/**
 * Stores the outcome and marks the call `finished` unless it is finished already; a call
 * never approved is left absent.
 *
 * @throws InterlockError INVALID_OPTIONS when the outcome is not JSON.
 */
export async function markToolFinished(
  write: RunInTransaction,
  threadId: string,
  toolCallId: string,
  outcome: NonNullable<ToolExecutionRecord['outcome']>,
  at: string,
): Promise<boolean> {
  if (!isStorableText(threadId) || !isStorableText(toolCallId)) return false;
  const encoded = encodeJson(outcome, `the outcome of tool call ${toolCallId}`);
  const updatedAt = storableText(at, 'at');
  const updated = await write((manager) =>
    manager.update(
      ToolExecutionEntity,
      { threadId, toolCallId, status: Not('finished') },
      { status: 'finished', outcome: encoded, updatedAt },
    ),
  );
  return updated.affected === 1;
}

/** Moves a call from one of `from` to `to` in one conditional UPDATE. */
export async function setToolExecutionStatus(
  write: RunInTransaction,
  threadId: string,
  toolCallId: string,
  from: readonly ToolExecutionStatus[],
  to: ToolExecutionStatus,
  at: string,
): Promise<boolean> {
  if (from.length === 0 || !isStorableText(threadId) || !isStorableText(toolCallId)) return false;
  const updatedAt = storableText(at, 'at');
  const updated = await write((manager) =>
    manager.update(ToolExecutionEntity, { threadId, toolCallId, status: In([...from]) }, { status: to, updatedAt }),
  );
  return updated.affected === 1;
}

export async function getToolExecution(
  read: RunInTransaction,
  threadId: string,
  toolCallId: string,
): Promise<ToolExecutionRecord | undefined> {
  if (!isStorableText(threadId) || !isStorableText(toolCallId)) return undefined;
  const row = await read((manager) => manager.findOne(ToolExecutionEntity, { where: { threadId, toolCallId } }));
  return row === null ? undefined : toToolExecutionRecord(row);
}

/** Lists tool executions, oldest first (ties by thread id, then call id). */
export async function listToolExecutions(
  read: RunInTransaction,
  filter: { threadId?: string; status?: ToolExecutionStatus } = {},
): Promise<ToolExecutionRecord[]> {
  if (filter.threadId !== undefined && !isStorableText(filter.threadId)) return [];
  const rows = await read((manager) =>
    manager.find(ToolExecutionEntity, {
      where: {
        ...(filter.threadId === undefined ? {} : { threadId: filter.threadId }),
        ...(filter.status === undefined ? {} : { status: filter.status }),
      },
      order: { createdAt: 'ASC', threadId: 'ASC', toolCallId: 'ASC' },
    }),
  );
  return rows.map(toToolExecutionRecord);
}
