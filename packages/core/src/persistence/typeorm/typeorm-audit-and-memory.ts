import type { ApprovalStage } from '@interlock/sdk-types';
import { LessThanOrEqual, type EntityManager } from 'typeorm';
import type { AuditEntry } from '../../audit/audit-log.js';
import { InterlockError } from '../../errors/interlock-error.js';
import { decodeJson, decodeOptionalJson, encodeJson, encodeOptionalJson, isStorableText, storableText } from './stored-text.js';
import { AuditEntryEntity, RememberedApprovalEntity, type AuditEntryRow } from './store-entities.js';

/*
 * The audit log and the remembered approvals of the TypeORM store, as functions the store
 * delegates to. `run` is the store's transaction runner (serialised on SQLite).
 */

/** Runs `work` in one transaction of the store. */
export type RunInTransaction = <T>(work: (manager: EntityManager) => Promise<T>) => Promise<T>;

/** Builds the next audit entry from the last one's sequence and hash (undefined for the first). */
export type AuditSeal = (previous: { sequence: number; hash: string } | undefined) => AuditEntry;

/** How often an append re-reads the chain's end after another writer took its sequence. */
const APPEND_ATTEMPTS = 10;

/**
 * Appends an audit entry: reads the last entry, seals the new one on it and inserts it, in
 * one transaction. The primary key on `sequence` refuses a second entry at the same
 * position, so when another process appended first the append starts over from the new
 * end of the chain (`seal` may therefore run more than once; it must have no side effects).
 *
 * @throws InterlockError STORE_CONFLICT when other writers kept taking the sequence;
 * INVALID_OPTIONS when a field cannot be stored.
 */
export async function appendAuditEntry(run: RunInTransaction, seal: AuditSeal): Promise<AuditEntry> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await run(async (manager) => {
        const [last] = await manager.find(AuditEntryEntity, {
          select: { sequence: true, hash: true },
          order: { sequence: 'DESC' },
          take: 1,
        });
        const entry = seal(last && { sequence: Number(last.sequence), hash: last.hash });
        const row = toAuditEntryRow(entry);
        await manager.insert(AuditEntryEntity, row);
        return toAuditEntry(row);
      });
    } catch (error) {
      if (!isAppendRace(error)) throw error;
      if (attempt >= APPEND_ATTEMPTS) {
        throw new InterlockError('STORE_CONFLICT', `could not append to the audit log after ${attempt} attempts: other writers kept appending`, {
          cause: error,
        });
      }
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 5 * attempt));
    }
  }
}

/** The audit log in sequence order, optionally of one thread. */
export async function listAuditEntries(run: RunInTransaction, filter: { threadId?: string } = {}): Promise<AuditEntry[]> {
  if (filter.threadId !== undefined && !isStorableText(filter.threadId)) return [];
  const rows = await run((manager) =>
    manager.find(AuditEntryEntity, {
      where: filter.threadId === undefined ? {} : { threadId: filter.threadId },
      order: { sequence: 'ASC' },
    }),
  );
  return rows.map(toAuditEntry);
}

/**
 * Remembers `key` until `expiresAt`, replacing an earlier expiry.
 *
 * @throws InterlockError INVALID_OPTIONS when the key holds NUL or `expiresAt` is not a whole number of milliseconds.
 */
export async function rememberApproval(run: RunInTransaction, key: string, expiresAt: number): Promise<void> {
  const row = { key: storableText(key, 'remembered approval key'), expiresAt: wholeMilliseconds(expiresAt, 'expiresAt') };
  await run((manager) =>
    manager.createQueryBuilder().insert().into(RememberedApprovalEntity).values(row).orUpdate(['expires_at'], ['key']).execute(),
  );
}

/** Whether `key` is remembered at `now`; an expired entry is deleted (only if it has not been extended meanwhile). */
export async function isApprovalRemembered(run: RunInTransaction, key: string, now: number): Promise<boolean> {
  if (!isStorableText(key)) return false;
  return run(async (manager) => {
    const row = await manager.findOne(RememberedApprovalEntity, { where: { key } });
    if (row === null) return false;
    if (Number(row.expiresAt) > now) return true;
    await manager.delete(RememberedApprovalEntity, { key, expiresAt: LessThanOrEqual(row.expiresAt) });
    return false;
  });
}

/** True for a primary-key or unique violation from PostgreSQL (23505) or SQLite. */
export function isUniqueViolation(error: unknown): boolean {
  const code = driverErrorCode(error);
  return code === '23505' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY' || code === 'SQLITE_CONSTRAINT_UNIQUE';
}

/** Another writer appended first: the sequence is taken, or (SQLite WAL) the snapshot read is stale. */
function isAppendRace(error: unknown): boolean {
  // The store reports database failures as STORE_UNAVAILABLE; the driver's error is its cause.
  const original = InterlockError.is(error) && error.code === 'STORE_UNAVAILABLE' ? error.cause : error;
  return isUniqueViolation(original) || driverErrorCode(original) === 'SQLITE_BUSY_SNAPSHOT';
}

function driverErrorCode(error: unknown): unknown {
  const driverError = typeof error === 'object' && error !== null && 'driverError' in error ? error.driverError : error;
  return typeof driverError === 'object' && driverError !== null && 'code' in driverError ? driverError.code : undefined;
}

/** `value` if it is a whole number of milliseconds that can be stored exactly. */
export function wholeMilliseconds(value: number, what: string): number {
  if (Number.isSafeInteger(value)) return value;
  throw new InterlockError('INVALID_OPTIONS', `${what} must be a whole number of milliseconds since the epoch, not ${String(value)}`);
}

/** The `audit_entries` row of an audit entry. @throws InterlockError INVALID_OPTIONS when a field cannot be stored. */
export function toAuditEntryRow(entry: AuditEntry): AuditEntryRow {
  const what = `audit entry ${entry.sequence}`;
  if (!Number.isSafeInteger(entry.sequence) || entry.sequence < 1) {
    throw new InterlockError('INVALID_OPTIONS', `${what} cannot be stored: its sequence must be a positive whole number`);
  }
  return {
    sequence: entry.sequence,
    threadId: storableText(entry.threadId, `thread id of ${what}`),
    toolCallId: storableText(entry.toolCallId, `tool call id of ${what}`),
    toolName: storableText(entry.toolName, `tool name of ${what}`),
    outcome: storableText(entry.outcome, `outcome of ${what}`),
    decidedBy: storableText(entry.decidedBy, `decidedBy of ${what}`),
    rule: storableText(entry.rule, `rule of ${what}`),
    reason: encodeJson(entry.reason, `the reason of ${what}`),
    responder: entry.responder === undefined ? null : storableText(entry.responder, `responder of ${what}`),
    stage: storableText(entry.stage, `stage of ${what}`),
    originalArguments: encodeJson(entry.originalArguments, `the original arguments of ${what}`),
    editedArguments: encodeOptionalJson(entry.editedArguments, `the edited arguments of ${what}`),
    at: storableText(entry.at, `at of ${what}`),
    previousHash: storableText(entry.previousHash, `previous hash of ${what}`),
    hash: storableText(entry.hash, `hash of ${what}`),
  };
}

/** The audit entry of an `audit_entries` row. @throws InterlockError INTERNAL when the row was damaged. */
export function toAuditEntry(row: AuditEntryRow): AuditEntry {
  const sequence = Number(row.sequence);
  const what = `audit entry ${sequence}`;
  if (row.outcome !== 'allow' && row.outcome !== 'deny') {
    throw new InterlockError('INTERNAL', `the stored outcome of ${what} is not valid (${JSON.stringify(row.outcome)}): the database row was changed outside Interlock`);
  }
  const editedArguments = decodeOptionalJson(row.editedArguments, `edited arguments of ${what}`) as Record<string, unknown> | undefined;
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
    sequence,
    at: row.at,
    previousHash: row.previousHash,
    hash: row.hash,
  };
}
