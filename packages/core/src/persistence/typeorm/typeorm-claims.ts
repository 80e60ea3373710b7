// @ts-nocheck -- the old PostgreSQL store, replaced by the unit-of-work one in the next change
import type { EntityManager } from 'typeorm';
import { InterlockError } from '../../errors/interlock-error.js';
import type { ClaimFence, ClaimResult } from '../checkpoint-store.js';
import { staleClaim } from '../stale-claim.js';
import { ThreadEntity } from './store-entities.js';

/*
 * The claims of threads in the TypeORM store, as functions the store runs inside its
 * transactions (F21, issue 11).
 */

/**
 * Claims a thread in one conditional UPDATE: no live claim, and the version the caller
 * read. The UPDATE holds the row's lock until the transaction ends, so the read after it
 * is this claim's.
 */
export async function claimThread(
  manager: EntityManager,
  threadId: string,
  owner: string,
  until: string,
  now: string,
  expectedVersion: number,
): Promise<ClaimResult> {
  const updated = await manager
    .createQueryBuilder()
    .update(ThreadEntity)
    .set({ leaseOwner: owner, leaseUntil: until, epoch: () => 'epoch + 1', version: () => 'version + 1' })
    .where('thread_id = :threadId', { threadId })
    .andWhere('(lease_owner IS NULL OR lease_until <= :now)', { now })
    .andWhere('version = :expectedVersion', { expectedVersion })
    .execute();
  const stored = await manager.findOne(ThreadEntity, {
    select: { version: true, epoch: true, leaseOwner: true, leaseUntil: true },
    where: { threadId },
  });
  if (stored === null) throw new InterlockError('THREAD_NOT_FOUND', `thread ${threadId} does not exist`);
  if (updated.affected === 1) return { status: 'claimed', epoch: stored.epoch, version: stored.version };
  if (stored.leaseOwner !== null && stored.leaseUntil !== null && stored.leaseUntil > now) {
    return { status: 'busy', lease: { owner: stored.leaseOwner, until: stored.leaseUntil } };
  }
  return { status: 'changed' };
}

/** Renews the lease of the claim `fence` (`until`), or releases it (`null`); true when this owner still held it. */
export async function setLease(
  manager: EntityManager,
  fence: ClaimFence,
  owner: string,
  until: string | null,
): Promise<boolean> {
  const where = { threadId: fence.threadId, epoch: fence.epoch, leaseOwner: owner };
  const updated = await manager.update(
    ThreadEntity,
    where,
    until === null ? { leaseOwner: null, leaseUntil: null } : { leaseUntil: until },
  );
  return updated.affected === 1;
}

/**
 * Refuses a write whose claim was taken (STORE_CONFLICT), inside the write's transaction.
 * The thread's row is read FOR SHARE: a claim cannot land until this
 * transaction ends, and a claim that landed first is seen.
 */
export async function checkFence(manager: EntityManager, fence: ClaimFence | undefined): Promise<void> {
  if (fence === undefined) return;
  const query = manager
    .createQueryBuilder(ThreadEntity, 'thread')
    .select('thread.epoch', 'epoch')
    .where('thread.thread_id = :threadId', fence);
  const stored: { epoch: number | string } | undefined = await query.setLock('pessimistic_read').getRawOne();
  if (stored === undefined || Number(stored.epoch) !== fence.epoch) throw staleClaim(fence);
}
