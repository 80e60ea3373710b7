// @ts-nocheck -- the old PostgreSQL store, replaced by the unit-of-work one in the next change
import { LessThanOrEqual, type EntityManager } from 'typeorm';
import type { AuditEntry } from '../../audit/audit-log.js';
import { toAuditEntry, toAuditEntryRow, wholeMilliseconds, type AuditSeal } from '../sql/audit-rows.js';
import { isStorableText, storableText } from '../sql/stored-text.js';
import { AuditEntryEntity, AuditHeadEntity, RememberedApprovalEntity } from './store-entities.js';
import type { AuditHead } from '../checkpoint-store.js';

/*
 * The audit log and the remembered approvals of the TypeORM store, as functions the store
 * delegates to. `run` is the store's transaction runner.
 */

/** Runs `work` in one transaction of the store. */
export type RunInTransaction = <T>(work: (manager: EntityManager) => Promise<T>) => Promise<T>;

/**
 * Appends an audit entry inside the caller's transaction: locks the chain's head (FOR
 * UPDATE), seals the new entry on it, inserts the entry and moves the head. Appenders from any number of
 * processes queue on the head's row lock for the few statements of their append: none
 * fails because another appended first.
 *
 * @throws InterlockError INVALID_OPTIONS when a field cannot be stored.
 */
export async function appendAuditEntry(manager: EntityManager, seal: AuditSeal): Promise<AuditEntry> {
  const head = await manager
    .createQueryBuilder(AuditHeadEntity, 'head')
    .where('head.id = 1')
    .setLock('pessimistic_write')
    .getOne();
  const row = toAuditEntryRow(
    seal(head === null || head.sequence === 0 ? undefined : { sequence: head.sequence, hash: head.hash }),
  );
  await manager.insert(AuditEntryEntity, row);
  if (head === null) await manager.insert(AuditHeadEntity, { id: 1, sequence: row.sequence, hash: row.hash });
  else await manager.update(AuditHeadEntity, { id: 1 }, { sequence: row.sequence, hash: row.hash });
  return toAuditEntry(row);
}

/** The chain's head as stored. */
export async function getAuditHead(run: RunInTransaction): Promise<AuditHead | undefined> {
  const head = await run((manager) => manager.findOne(AuditHeadEntity, { where: { id: 1 } }));
  return head === null || head.sequence === 0 ? undefined : { sequence: head.sequence, hash: head.hash };
}

/** The audit log in sequence order, optionally of one thread. */
export async function listAuditEntries(
  run: RunInTransaction,
  filter: { threadId?: string } = {},
): Promise<AuditEntry[]> {
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
  const row = {
    key: storableText(key, 'remembered approval key'),
    expiresAt: wholeMilliseconds(expiresAt, 'expiresAt'),
  };
  await run((manager) =>
    manager
      .createQueryBuilder()
      .insert()
      .into(RememberedApprovalEntity)
      .values(row)
      .orUpdate(['expires_at'], ['key'])
      .execute(),
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
