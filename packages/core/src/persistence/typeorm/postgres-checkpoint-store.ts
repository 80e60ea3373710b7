// @ts-nocheck -- the old PostgreSQL store, replaced by the unit-of-work one in the next change
import type { InteractionStatus, Message } from '@interlock/sdk-types';
import type { DataSource, EntitySchema } from 'typeorm';
import type { AuditEntry } from '../../audit/audit-log.js';
import { InterlockError } from '../../errors/interlock-error.js';
import type {
  ClaimFence,
  ClaimResult,
  InteractionRecord,
  InteractionResponseRecord,
  RecordResponseResult,
  ThreadRecord,
  ToolExecutionRecord,
  ToolExecutionStatus,
} from '../checkpoint-store.js';
import { toAuditEntry, toAuditEntryRow, wholeMilliseconds, type AuditSeal } from '../sql/audit-rows.js';
import { appendStoredMessage, encodeConversation } from '../sql/conversation-rows.js';
import * as sql from '../sql/postgres-statements.js';
import {
  toInteractionRecord,
  toInteractionRow,
  toThreadRecord,
  toThreadRow,
  toToolExecutionRecord,
  toToolExecutionRow,
  type ToolApproval,
} from '../sql/record-mapping.js';
import type { AuditEntryRow, InteractionRow, ThreadRow, ToolExecutionRow } from '../sql/row-types.js';
import { encodeJson, isStorableText, storableText } from '../sql/stored-text.js';
import { staleClaim } from '../stale-claim.js';
import type { ThreadJob } from '../../workers/thread-jobs.js';
import { postgresRead, postgresWrite, type RunStatement } from './postgres-connection.js';
import {
  AuditEntryEntity,
  AuditHeadEntity,
  InteractionEntity,
  MessageEntity,
  RememberedApprovalEntity,
  ThreadEntity,
  ToolExecutionEntity,
} from './store-entities.js';
import { threadSave, TypeormCheckpointStore } from './typeorm-checkpoint-store.js';
import { approvedWithOtherArguments } from './typeorm-tool-executions.js';

/** How many threads' stored message counts a store keeps as hints before it starts over. */
const HINTS = 10_000;

/**
 * The PostgreSQL store (issue 18): the TypeORM store, its DataSource, migrations and
 * entities, with the methods an approval round trip calls sent as plain SQL
 * (`../sql/postgres-statements.ts`) through the DataSource's query runners. Each of them is
 * one statement: reads on their own (one snapshot, one network round trip), writes in a
 * transaction whose BEGIN goes out with the statement and whose COMMIT follows its answer.
 * The rest (listing threads, global variables, workflow definitions…) stays TypeORM's.
 */
export class PostgresCheckpointStore extends TypeormCheckpointStore {
  private readonly tables: sql.PostgresTables;
  /** Per thread, how many messages this store last saw stored: a save sends only the ones after (a hint; the statement checks it). */
  private readonly storedMessages = new Map<string, number>();

  constructor(dataSource: DataSource, jobsSchema: string) {
    super(dataSource, jobsSchema);
    const schema = (dataSource.options as { schema?: string }).schema;
    const table = (entity: EntitySchema): sql.SqlTable => {
      const metadata = dataSource.getMetadata(entity);
      return {
        name: schema === undefined ? `"${metadata.tableName}"` : `"${schema}"."${metadata.tableName}"`,
        columns: Object.fromEntries(
          metadata.columns.map((column) => [column.propertyName, `"${column.databaseName}"`]),
        ),
      };
    };
    this.tables = {
      threads: table(ThreadEntity),
      messages: table(MessageEntity),
      interactions: table(InteractionEntity),
      toolExecutions: table(ToolExecutionEntity),
      auditEntries: table(AuditEntryEntity),
      auditHead: table(AuditHeadEntity),
      rememberedApprovals: table(RememberedApprovalEntity),
      jobsSchema,
    };
  }

  /** @throws InterlockError STORE_CONFLICT when a thread with this id exists. */
  override async createThread(thread: ThreadRecord, jobs: readonly ThreadJob[] = []): Promise<ThreadRecord> {
    const row = toThreadRow(thread, 1);
    const messages = encodeConversation(thread.threadId, thread.conversation);
    await this.writeStatements(async (run) => {
      const [created] = await run<{ created: number }>(sql.insertThread(this.tables, row, messages, jobs));
      if (created?.created !== 1)
        throw new InterlockError('STORE_CONFLICT', `thread ${thread.threadId} already exists`);
    });
    this.hint(thread.threadId, messages.length);
    return { ...thread, version: 1 };
  }

  /** @throws InterlockError STORE_CONFLICT when the stored version is not `thread.version`; THREAD_NOT_FOUND. */
  override async saveThread(thread: ThreadRecord, consumed: readonly string[] = []): Promise<ThreadRecord> {
    const { saved, columns, messages } = threadSave(thread);
    const from = Math.min(this.storedMessages.get(thread.threadId) ?? 0, messages.length);
    const marked = { interactionIds: consumed.filter(isStorableText), at: saved.updatedAt };
    const written = await this.writeStatements(async (run) => {
      const [result] = await run<{ updated: number; prefix: boolean; storedVersion: number | null }>(
        sql.updateThread(this.tables, thread.threadId, thread.version, columns, messages, from, marked),
      );
      if (result?.updated === 1) return true;
      if (result === undefined || result.storedVersion === null)
        throw new InterlockError('THREAD_NOT_FOUND', `thread ${thread.threadId} does not exist`);
      if (result.storedVersion !== thread.version) {
        throw new InterlockError(
          'STORE_CONFLICT',
          `thread ${thread.threadId} was changed by someone else (stored version ${result.storedVersion}, yours ${thread.version}): reload it and retry`,
        );
      }
      return false;
    });
    if (!written) {
      // An edited message (or a stale hint, or a save that raced this one): the general
      // path rewrites the conversation from the first difference, or says why not.
      this.storedMessages.delete(thread.threadId);
      return super.saveThread(thread, consumed);
    }
    this.hint(thread.threadId, messages.length);
    return saved;
  }

  override async getThread(threadId: string): Promise<ThreadRecord | undefined> {
    if (!isStorableText(threadId)) return undefined;
    const [row] = await this.readStatement<ThreadRow & { messages: [number, string][] }>(
      sql.selectThread(this.tables, threadId),
    );
    if (row === undefined) return undefined;
    const { messages, ...threadRow } = row;
    const conversations = new Map<string, Message[]>([[threadId, []]]);
    for (const [position, message] of messages) appendStoredMessage(conversations, { threadId, position, message });
    this.hint(threadId, messages.length);
    return toThreadRecord(threadRow, conversations.get(threadId) ?? []);
  }

  override claimThread(
    threadId: string,
    owner: string,
    until: string,
    now: string,
    expectedVersion: number,
  ): Promise<ClaimResult> {
    return this.writeStatements(async (run): Promise<ClaimResult> => {
      const [claimed] = await run<{ version: number; epoch: number }>(
        sql.claimThread(this.tables, threadId, owner, until, now, expectedVersion),
      );
      if (claimed !== undefined) return { status: 'claimed', epoch: claimed.epoch, version: claimed.version };
      // Not claimed: read the row again, after the UPDATE (which waited for any claim under way).
      const [stored] = await run<ThreadRow>(sql.selectThread(this.tables, threadId));
      if (stored === undefined) throw new InterlockError('THREAD_NOT_FOUND', `thread ${threadId} does not exist`);
      if (stored.leaseOwner !== null && stored.leaseUntil !== null && stored.leaseUntil > now) {
        return { status: 'busy', lease: { owner: stored.leaseOwner, until: stored.leaseUntil } };
      }
      return { status: 'changed' };
    });
  }

  override async renewClaim(fence: ClaimFence, owner: string, until: string): Promise<boolean> {
    const [result] = await this.writeStatements((run) =>
      run<{ affected: number }>(sql.setClaim(this.tables, fence, owner, until)),
    );
    return result?.affected === 1;
  }

  override async releaseClaim(fence: ClaimFence, owner: string): Promise<void> {
    await this.writeStatements((run) => run(sql.setClaim(this.tables, fence, owner, null)));
  }

  /** Stores an interaction; one with the same id is replaced, as in the in-memory store. */
  override async createInteraction(
    interaction: InteractionRecord,
    fence?: ClaimFence,
    jobs: readonly ThreadJob[] = [],
  ): Promise<void> {
    const row = toInteractionRow(interaction);
    await this.fenced(fence, sql.upsertInteraction(this.tables, row, fence, jobs));
  }

  override async getInteraction(interactionId: string): Promise<InteractionRecord | undefined> {
    if (!isStorableText(interactionId)) return undefined;
    const [row] = await this.readStatement<InteractionRow>(sql.selectInteractions(this.tables, { interactionId }));
    return row === undefined ? undefined : toInteractionRecord(row);
  }

  override async listInteractions(
    filter: { status?: InteractionStatus; threadId?: string } = {},
  ): Promise<InteractionRecord[]> {
    if (filter.threadId !== undefined && !isStorableText(filter.threadId)) return [];
    const rows = await this.readStatement<InteractionRow>(sql.selectInteractions(this.tables, filter));
    return rows.map(toInteractionRecord);
  }

  override async recordResponse(
    interactionId: string,
    response: InteractionResponseRecord,
    jobs: readonly ThreadJob[] = [],
  ): Promise<RecordResponseResult> {
    if (!isStorableText(interactionId)) return { status: 'not_found' };
    const encoded = encodeJson(response, `the response to interaction ${interactionId}`);
    const respondedAt = storableText(response.respondedAt, 'respondedAt');
    return this.writeStatements(async (run): Promise<RecordResponseResult> => {
      const [updated] = await run<InteractionRow & { jobs: number }>(
        sql.respondToInteraction(this.tables, interactionId, encoded, respondedAt, jobs),
      );
      if (updated !== undefined) {
        const { jobs: _jobs, ...row } = updated;
        return { status: 'recorded', interaction: toInteractionRecord(row) };
      }
      // Not pending (or absent): read it again, after the UPDATE (which waited for any answer under way).
      const [row] = await run<InteractionRow>(sql.selectInteractions(this.tables, { interactionId }));
      return row === undefined
        ? { status: 'not_found' }
        : { status: 'not_pending', interaction: toInteractionRecord(row) };
    });
  }

  /** @throws InterlockError STORE_CONFLICT when the call was approved with another arguments hash (or the claim is stale). */
  override async recordToolApproval(approval: ToolApproval, fence?: ClaimFence): Promise<void> {
    const row = toToolExecutionRow(approval);
    await this.writeStatements(async (run) => {
      const [result] = await run<{ fenced: boolean; storedHash: string | null }>(
        sql.insertToolApproval(this.tables, row, fence),
      );
      if (fence !== undefined && result?.fenced !== true) throw staleClaim(fence);
      let storedHash = result?.storedHash ?? null;
      if (storedHash === null) {
        // A concurrent approval inserted first, after this statement's snapshot: read its row now.
        const [stored] = await run<ToolExecutionRow>(
          sql.selectToolExecution(this.tables, row.threadId, row.toolCallId),
        );
        storedHash = stored?.argumentsHash ?? null;
      }
      if (storedHash !== null && storedHash !== row.argumentsHash) throw approvedWithOtherArguments(approval);
    });
  }

  override async markToolStarted(
    threadId: string,
    toolCallId: string,
    argumentsHash: string,
    from: readonly ToolExecutionStatus[],
    at: string,
    fence?: ClaimFence,
  ): Promise<boolean> {
    if (from.length === 0 || ![threadId, toolCallId, argumentsHash].every(isStorableText)) return false;
    const set = { status: 'started', updatedAt: storableText(at, 'at') };
    return this.fenced(
      fence,
      sql.fencedUpdate(
        this.tables,
        this.tables.toolExecutions,
        set,
        { threadId, toolCallId, argumentsHash, status: [...from] },
        fence,
      ),
    );
  }

  override async markToolFinished(
    threadId: string,
    toolCallId: string,
    outcome: NonNullable<ToolExecutionRecord['outcome']>,
    at: string,
    fence?: ClaimFence,
  ): Promise<boolean> {
    if (!isStorableText(threadId) || !isStorableText(toolCallId)) return false;
    const set = {
      status: 'finished',
      outcome: encodeJson(outcome, `the outcome of tool call ${toolCallId}`),
      updatedAt: storableText(at, 'at'),
    };
    return this.fenced(
      fence,
      sql.fencedUpdate(this.tables, this.tables.toolExecutions, set, { threadId, toolCallId }, fence, {
        status: 'finished',
      }),
    );
  }

  override async setToolExecutionStatus(
    threadId: string,
    toolCallId: string,
    from: readonly ToolExecutionStatus[],
    to: ToolExecutionStatus,
    at: string,
    fence?: ClaimFence,
  ): Promise<boolean> {
    if (from.length === 0 || !isStorableText(threadId) || !isStorableText(toolCallId)) return false;
    const set = { status: to, updatedAt: storableText(at, 'at') };
    return this.fenced(
      fence,
      sql.fencedUpdate(
        this.tables,
        this.tables.toolExecutions,
        set,
        { threadId, toolCallId, status: [...from] },
        fence,
      ),
    );
  }

  override async getToolExecution(threadId: string, toolCallId: string): Promise<ToolExecutionRecord | undefined> {
    if (!isStorableText(threadId) || !isStorableText(toolCallId)) return undefined;
    const [row] = await this.readStatement<ToolExecutionRow>(
      sql.selectToolExecution(this.tables, threadId, toolCallId),
    );
    return row === undefined ? undefined : toToolExecutionRecord(row);
  }

  override async scheduleJobs(jobs: readonly ThreadJob[]): Promise<void> {
    if (jobs.length > 0) await this.writeStatements((run) => run(sql.insertJobs(this.tables, jobs)));
  }

  /** Appends to the audit log: the head locked (fenced) in one statement, the entry and the new head in a second, then COMMIT. */
  override appendAuditEntry(seal: AuditSeal, fence?: ClaimFence): Promise<AuditEntry> {
    return this.writeStatements(async (run) => {
      const [head] = await run<{ fenced: boolean; sequence: number | null; hash: string | null }>(
        sql.lockAuditHead(this.tables, fence),
      );
      if (fence !== undefined && head?.fenced !== true) throw staleClaim(fence);
      const previous =
        head === undefined || head.sequence === null || head.hash === null || head.sequence === 0
          ? undefined
          : { sequence: head.sequence, hash: head.hash };
      const row = toAuditEntryRow(seal(previous));
      await run(sql.appendAudit(this.tables, row));
      return toAuditEntry(row);
    });
  }

  /** One statement (one snapshot): the engine reads a thread's entries before it audits an answer. */
  override async listAuditEntries(filter: { threadId?: string } = {}): Promise<AuditEntry[]> {
    if (filter.threadId !== undefined && !isStorableText(filter.threadId)) return [];
    const rows = await this.readStatement<AuditEntryRow>(sql.selectAuditEntries(this.tables, filter.threadId));
    return rows.map(toAuditEntry);
  }

  override async rememberApproval(key: string, expiresAt: number): Promise<void> {
    const statement = sql.upsertRememberedApproval(
      this.tables,
      storableText(key, 'remembered approval key'),
      wholeMilliseconds(expiresAt, 'expiresAt'),
    );
    await this.writeStatements((run) => run(statement));
  }

  /** One statement on its own: if its answer is lost, all that may have happened is an expired entry removed. */
  override async isApprovalRemembered(key: string, now: number): Promise<boolean> {
    if (!isStorableText(key)) return false;
    const [row] = await this.readStatement<{ remembered: boolean }>(sql.checkRememberedApproval(this.tables, key, now));
    return row?.remembered === true;
  }

  /** Runs a fenced write statement (`fenced`, `affected`): refuses a stale claim; returns whether one row changed. */
  private fenced(fence: ClaimFence | undefined, statement: sql.Statement): Promise<boolean> {
    return this.writeStatements(async (run) => {
      const [result] = await run<{ fenced: boolean; affected?: number }>(statement);
      if (fence !== undefined && result?.fenced !== true) throw staleClaim(fence);
      return result?.affected === 1;
    });
  }

  private writeStatements<T>(work: (run: RunStatement) => Promise<T>): Promise<T> {
    return this.schedule(() => postgresWrite(this.dataSource, work));
  }

  private readStatement<Row>(statement: sql.Statement): Promise<Row[]> {
    return this.schedule(() => postgresRead<Row>(this.dataSource, statement));
  }

  private hint(threadId: string, storedMessages: number): void {
    if (this.storedMessages.size >= HINTS && !this.storedMessages.has(threadId)) this.storedMessages.clear();
    this.storedMessages.set(threadId, storedMessages);
  }
}
