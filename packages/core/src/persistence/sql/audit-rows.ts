import type { ApprovalStage } from '@interlock/sdk-types';
import type { AuditEntry } from '../../audit/audit-log.js';
import { InterlockError } from '../../errors/interlock-error.js';
import type { AuditDraft } from '../unit-of-work.js';
import { decodeJson, decodeOptionalJson, encodeJson, encodeOptionalJson, storableText } from './stored-text.js';
import type { AuditEntryRow } from './row-types.js';

/*
 * Audit-log rows, shared by the SQLite and PostgreSQL stores (no
 * database code here, so the SQLite store never loads TypeORM).
 */

/** An `audit_entries` row with its position in its thread's chain (NULL for an entry of the older global chain). */
export type AuditEntryRowWithChain = AuditEntryRow & { threadSequence: number | null };

/** An entry's columns as both stores write them, before the store links it into its thread's chain. */
export function auditEntryColumns(
  entry: AuditDraft['entry'],
): Omit<AuditEntryRow, 'sequence' | 'previousHash' | 'hash'> {
  const what = `the audit entry of thread ${entry.threadId}`;
  return {
    threadId: storableText(entry.threadId, 'thread id'),
    toolCallId: storableText(entry.toolCallId, 'tool call id'),
    toolName: storableText(entry.toolName, 'tool name'),
    outcome: entry.outcome,
    decidedBy: storableText(entry.decidedBy, 'decidedBy'),
    rule: storableText(entry.rule, 'rule'),
    reason: encodeJson(entry.reason, `the reason of ${what}`),
    responder: entry.responder === undefined ? null : storableText(entry.responder, 'responder'),
    stage: entry.stage,
    originalArguments: encodeJson(entry.originalArguments, `the original arguments of ${what}`),
    editedArguments: encodeOptionalJson(entry.editedArguments, `the edited arguments of ${what}`),
    toolDefinitionHash: entry.toolDefinitionHash ?? null,
    interactionId: entry.interactionId ?? null,
    at: storableText(entry.at, 'at'),
  };
}

/** `value` if it is a whole number of milliseconds that can be stored exactly. */
export function wholeMilliseconds(value: number, what: string): number {
  if (Number.isSafeInteger(value)) return value;
  throw new InterlockError(
    'INVALID_OPTIONS',
    `${what} must be a whole number of milliseconds since the epoch, not ${String(value)}`,
  );
}

/** The audit entry of an `audit_entries` row. @throws InterlockError INTERNAL when the row was damaged. */
export function toAuditEntry(row: AuditEntryRow & { threadSequence?: number | null }): AuditEntry {
  const { sequence } = row;
  const what = `audit entry ${sequence}`;
  if (row.outcome !== 'allow' && row.outcome !== 'deny') {
    throw new InterlockError(
      'INTERNAL',
      `the stored outcome of ${what} is not valid (${JSON.stringify(row.outcome)}): the database row was changed outside Interlock`,
    );
  }
  const editedArguments = decodeOptionalJson(row.editedArguments, `edited arguments of ${what}`) as
    Record<string, unknown> | undefined;
  return {
    threadId: row.threadId,
    toolCallId: row.toolCallId,
    toolName: row.toolName,
    outcome: row.outcome,
    decidedBy: row.decidedBy,
    rule: row.rule,
    reason: decodeJson(row.reason, `reason of ${what}`) as string,
    ...(row.responder === null ? {} : { responder: row.responder }),
    stage: row.stage as ApprovalStage,
    originalArguments: decodeJson(row.originalArguments, `original arguments of ${what}`) as Record<string, unknown>,
    ...(editedArguments === undefined ? {} : { editedArguments }),
    // A row is what the driver returned: a select that leaves the column out reads undefined.
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- see above
    ...(row.toolDefinitionHash === null || row.toolDefinitionHash === undefined
      ? {}
      : { toolDefinitionHash: row.toolDefinitionHash }),
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- as above
    ...(row.interactionId === null || row.interactionId === undefined ? {} : { interactionId: row.interactionId }),
    // PostgreSQL returns a bigint column as a string.
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-conversion
    sequence: Number(sequence),
    ...(row.threadSequence === null || row.threadSequence === undefined
      ? {}
      : // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-conversion -- as above
        { threadSequence: Number(row.threadSequence) }),
    at: row.at,
    previousHash: row.previousHash,
    hash: row.hash,
  };
}
