// @ts-nocheck -- the old PostgreSQL store, replaced by the unit-of-work one in the next change
import type { InteractionFailureReason, InteractionStatus } from '@interlock/sdk-types';
import { In, type EntityManager } from 'typeorm';
import { InterlockError } from '../../errors/interlock-error.js';
import type { InteractionRecord, InteractionResponseRecord, RecordResponseResult } from '../checkpoint-store.js';
import { toInteractionRecord, toInteractionRow } from '../sql/record-mapping.js';
import { encodeJson, isStorableText, storableText } from '../sql/stored-text.js';
import { InteractionEntity } from './store-entities.js';
import type { RunInTransaction } from './typeorm-audit-and-memory.js';

/*
 * The interactions of the TypeORM store, as functions the store delegates to: `write`
 * runs a write transaction (fenced where the port says so), `read` a read transaction,
 * `addJobs` adds the jobs that go with the write inside its transaction.
 */

/** Adds the jobs that go with a write, inside its transaction. */
export type AddJobs = (manager: EntityManager) => Promise<void>;

/** Stores an interaction; one with the same id is replaced, as in the in-memory store. */
export async function createInteraction(
  write: RunInTransaction,
  addJobs: AddJobs,
  interaction: InteractionRecord,
): Promise<void> {
  const row = toInteractionRow(interaction);
  const { interactionId: _interactionId, ...columns } = row;
  await write(async (manager) => {
    await addJobs(manager);
    await manager
      .createQueryBuilder()
      .insert()
      .into(InteractionEntity)
      .values(row)
      .orUpdate(
        Object.keys(columns).map((property) => columnName(manager, property)),
        ['interaction_id'],
      )
      .execute();
  });
}

export async function getInteraction(
  read: RunInTransaction,
  interactionId: string,
): Promise<InteractionRecord | undefined> {
  if (!isStorableText(interactionId)) return undefined;
  const row = await read((manager) => manager.findOne(InteractionEntity, { where: { interactionId } }));
  return row === null ? undefined : toInteractionRecord(row);
}

export async function listInteractions(
  read: RunInTransaction,
  filter: { status?: InteractionStatus; threadId?: string } = {},
): Promise<InteractionRecord[]> {
  if (filter.threadId !== undefined && !isStorableText(filter.threadId)) return [];
  const rows = await read((manager) =>
    manager.find(InteractionEntity, {
      where: {
        ...(filter.status === undefined ? {} : { status: filter.status }),
        ...(filter.threadId === undefined ? {} : { threadId: filter.threadId }),
      },
      order: { createdAt: 'ASC', interactionId: 'ASC' },
    }),
  );
  return rows.map(toInteractionRecord);
}

/** Stores the answer if the interaction is still pending, and then its jobs, in one transaction. */
export async function recordResponse(
  write: RunInTransaction,
  addJobs: AddJobs,
  interactionId: string,
  response: InteractionResponseRecord,
): Promise<RecordResponseResult> {
  if (!isStorableText(interactionId)) return { status: 'not_found' };
  const encoded = encodeJson(response, `the response to interaction ${interactionId}`);
  const respondedAt = storableText(response.respondedAt, 'respondedAt');
  return write(async (manager): Promise<RecordResponseResult> => {
    const updated = await manager.update(
      InteractionEntity,
      { interactionId, status: 'pending' },
      { status: 'responded', response: encoded, updatedAt: respondedAt },
    );
    const row = await manager.findOne(InteractionEntity, { where: { interactionId } });
    if (row === null) return { status: 'not_found' };
    if (updated.affected === 1) await addJobs(manager);
    return { status: updated.affected === 1 ? 'recorded' : 'not_pending', interaction: toInteractionRecord(row) };
  });
}

export async function failInteraction(
  write: RunInTransaction,
  interactionId: string,
  reason: InteractionFailureReason,
  message: string,
): Promise<boolean> {
  if (!isStorableText(interactionId)) return false;
  const failureMessage = encodeJson(message, `the failure message of interaction ${interactionId}`);
  const updated = await write((manager) =>
    manager.update(
      InteractionEntity,
      { interactionId, status: 'pending' },
      { status: 'failed', failureReason: reason, failureMessage, updatedAt: new Date().toISOString() },
    ),
  );
  return updated.affected === 1;
}

/** Marks the answers a thread save applied processed, in that save's transaction. */
export async function markConsumed(manager: EntityManager, consumed: readonly string[], at: string): Promise<void> {
  const interactionIds = consumed.filter(isStorableText);
  if (interactionIds.length === 0) return;
  await manager.update(
    InteractionEntity,
    { interactionId: In(interactionIds), status: 'responded' },
    { status: 'processed', updatedAt: at },
  );
}

/** The database column of an entity property of `interactions`. */
function columnName(manager: EntityManager, property: string): string {
  const column = manager.dataSource.getMetadata(InteractionEntity).findColumnWithPropertyName(property);
  if (column === undefined) throw new InterlockError('INTERNAL', `interactions has no column for ${property}`);
  return column.databaseName;
}
