import { LessThanOrEqual, type EntityManager } from 'typeorm';
import type { AuditEntry } from '../../audit/audit-log.js';
import { InterlockError } from '../../errors/interlock-error.js';
import { driverErrorCode, isUniqueViolation, toAuditEntry, toAuditEntryRow, wholeMilliseconds, type AuditSeal } from '../rows/audit-rows.js';
import { isStorableText, storableText } from './stored-text.js';
import { AuditEntryEntity, RememberedApprovalEntity } from './store-entities.js';

/*
 * The audit log and the remembered approvals of the TypeORM store, as functions the store
 * delegates to. `run` is the store's transaction runner (serialised on SQLite).
 */

/** Runs `work` in one transaction of the store. */
export type RunInTransaction = <T>(work: (manager: EntityManager) => Promise<T>) => Promise<T>;


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

/** Another writer appended first: the sequence is taken, or (SQLite WAL) the snapshot read is stale. */
function isAppendRace(error: unknown): boolean {
  // The store reports database failures as STORE_UNAVAILABLE; the driver's error is its cause.
  const original = InterlockError.is(error) && error.code === 'STORE_UNAVAILABLE' ? error.cause : error;
  return isUniqueViolation(original) || driverErrorCode(original) === 'SQLITE_BUSY_SNAPSHOT';
}
