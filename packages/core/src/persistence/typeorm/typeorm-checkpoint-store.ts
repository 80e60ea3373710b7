// @ts-nocheck -- the old PostgreSQL store, replaced by the unit-of-work one in the next change
import type { InteractionFailureReason, InteractionStatus, WorkflowDefinition } from '@interlock/sdk-types';
import type { DataSource, EntityManager } from 'typeorm';
import type { AuditEntry } from '../../audit/audit-log.js';
import { InterlockError } from '../../errors/interlock-error.js';
import type {
  AuditHead,
  ClaimFence,
  ClaimResult,
  ICheckpointStore,
  InteractionRecord,
  InteractionResponseRecord,
  RecordResponseResult,
  StoreChange,
  ThreadRecord,
  ThreadStatus,
  ToolExecutionRecord,
  ToolExecutionStatus,
} from '../checkpoint-store.js';
import { encodeConversation } from '../sql/conversation-rows.js';
import { isUniqueViolation, type AuditSeal } from '../sql/audit-rows.js';
import { postgresTransaction } from './postgres-connection.js';
import * as toolExecutions from './typeorm-tool-executions.js';
import * as interactions from './typeorm-interactions.js';
import { readConversations, writeConversation } from './conversation-log.js';
import { toThreadRecord, toThreadRow, type ToolApproval } from '../sql/record-mapping.js';
import { listenForChanges } from './change-listener.js';
import type { ThreadJob } from '../../workers/thread-jobs.js';
import * as audit from './typeorm-audit-and-memory.js';
import * as claims from './typeorm-claims.js';
import * as definitions from './typeorm-definitions.js';
import type { RunInTransaction } from './typeorm-audit-and-memory.js';
import { isStorableText } from '../sql/stored-text.js';
import { ThreadEntity } from './store-entities.js';

/**
 * The durable store (F21, F40) on PostgreSQL, through TypeORM's entities and pg. Every
 * method is one transaction; the atomic ones are single conditional statements (`UPDATE …
 * WHERE version = ?`, `WHERE status IN (…)`, `INSERT … ON CONFLICT DO NOTHING`), so they
 * hold across processes sharing the database, not only inside this one.
 * `PostgresCheckpointStore` replaces the round trip's methods with plain SQL (ADR 0004).
 * Create it with `createTypeormStore`.
 */
export class TypeormCheckpointStore implements ICheckpointStore {
  private readonly running = new Set<Promise<unknown>>();
  private closed = false;

  constructor(
    protected readonly dataSource: DataSource,
    /** The schema of the job queue (graphile-worker) that holds the workers' jobs. */
    readonly jobsSchema: string,
  ) {}

  /** @throws InterlockError STORE_CONFLICT when a thread with this id exists. */
  async createThread(thread: ThreadRecord, jobs: readonly ThreadJob[] = []): Promise<ThreadRecord> {
    const row = toThreadRow(thread, 1);
    const messages = encodeConversation(thread.threadId, thread.conversation);
    await this.write(async (manager) => {
      try {
        await manager.insert(ThreadEntity, row);
      } catch (error) {
        if (isUniqueViolation(error))
          throw new InterlockError('STORE_CONFLICT', `thread ${thread.threadId} already exists`, { cause: error });
        throw error;
      }
      await writeConversation(manager, thread.threadId, messages);
      await this.addJobs(manager, jobs);
    });
    return { ...thread, version: 1 };
  }

  /** @throws InterlockError STORE_CONFLICT when the stored version is not `thread.version`; THREAD_NOT_FOUND. */
  async saveThread(thread: ThreadRecord, consumed: readonly string[] = []): Promise<ThreadRecord> {
    const { saved, columns, messages } = threadSave(thread);
    await this.write(async (manager) => {
      // The conditional UPDATE comes first: it takes the row's write lock, so the check
      // and the write are one step, and a stale writer changes nothing.
      const updated = await manager.update(
        ThreadEntity,
        { threadId: thread.threadId, version: thread.version },
        columns,
      );
      if (updated.affected !== 1) {
        const stored = await manager.findOne(ThreadEntity, {
          select: { version: true },
          where: { threadId: thread.threadId },
        });
        if (stored === null) throw new InterlockError('THREAD_NOT_FOUND', `thread ${thread.threadId} does not exist`);
        throw new InterlockError(
          'STORE_CONFLICT',
          `thread ${thread.threadId} was changed by someone else (stored version ${stored.version}, yours ${thread.version}): reload it and retry`,
        );
      }
      await writeConversation(manager, thread.threadId, messages);
      await interactions.markConsumed(manager, consumed, saved.updatedAt);
    });
    return saved;
  }

  async getThread(threadId: string): Promise<ThreadRecord | undefined> {
    if (!isStorableText(threadId)) return undefined;
    return this.read(async (manager) => {
      const row = await manager.findOne(ThreadEntity, { where: { threadId } });
      if (row === null) return undefined;
      const conversations = await readConversations(manager, [threadId]);
      return toThreadRecord(row, conversations.get(threadId) ?? []);
    });
  }

  claimThread(
    threadId: string,
    owner: string,
    until: string,
    now: string,
    expectedVersion: number,
  ): Promise<ClaimResult> {
    return this.write((manager) => claims.claimThread(manager, threadId, owner, until, now, expectedVersion));
  }

  renewClaim(fence: ClaimFence, owner: string, until: string): Promise<boolean> {
    return this.write((manager) => claims.setLease(manager, fence, owner, until));
  }

  async releaseClaim(fence: ClaimFence, owner: string): Promise<void> {
    await this.write((manager) => claims.setLease(manager, fence, owner, null));
  }

  private checkFence(manager: EntityManager, fence: ClaimFence | undefined): Promise<void> {
    return claims.checkFence(manager, fence);
  }

  async listThreads(filter: { status?: ThreadStatus } = {}): Promise<ThreadRecord[]> {
    return this.read(async (manager) => {
      const rows = await manager.find(ThreadEntity, {
        where: filter.status === undefined ? {} : { status: filter.status },
        order: { createdAt: 'ASC', threadId: 'ASC' },
      });
      const conversations = await readConversations(
        manager,
        rows.map((row) => row.threadId),
      );
      return rows.map((row) => toThreadRecord(row, conversations.get(row.threadId) ?? []));
    });
  }

  /** Stores an interaction; one with the same id is replaced, as in the in-memory store. */
  createInteraction(
    interaction: InteractionRecord,
    fence?: ClaimFence,
    jobs: readonly ThreadJob[] = [],
  ): Promise<void> {
    return interactions.createInteraction(
      this.fencedWrite(fence),
      (manager) => this.addJobs(manager, jobs),
      interaction,
    );
  }

  getInteraction(interactionId: string): Promise<InteractionRecord | undefined> {
    return interactions.getInteraction((work) => this.read(work), interactionId);
  }

  listInteractions(filter: { status?: InteractionStatus; threadId?: string } = {}): Promise<InteractionRecord[]> {
    return interactions.listInteractions((work) => this.read(work), filter);
  }

  recordResponse(
    interactionId: string,
    response: InteractionResponseRecord,
    jobs: readonly ThreadJob[] = [],
  ): Promise<RecordResponseResult> {
    return interactions.recordResponse(
      (work) => this.write(work),
      (manager) => this.addJobs(manager, jobs),
      interactionId,
      response,
    );
  }

  failInteraction(interactionId: string, reason: InteractionFailureReason, message: string): Promise<boolean> {
    return interactions.failInteraction((work) => this.write(work), interactionId, reason, message);
  }

  getGlobalVariables(workflowId: string): Promise<Record<string, unknown>> {
    return definitions.getGlobalVariables((work) => this.read(work), workflowId);
  }

  /** Sets global variables in one transaction; with `onlyIfAbsent`, an existing variable is left as it is. */
  setGlobalVariables(
    workflowId: string,
    values: Record<string, unknown>,
    options: { onlyIfAbsent?: boolean } = {},
  ): Promise<void> {
    return definitions.setGlobalVariables((work) => this.write(work), workflowId, values, options);
  }

  recordToolApproval(approval: ToolApproval, fence?: ClaimFence): Promise<void> {
    return toolExecutions.recordToolApproval(this.fencedWrite(fence), approval);
  }

  markToolStarted(
    threadId: string,
    toolCallId: string,
    argumentsHash: string,
    from: readonly ToolExecutionStatus[],
    at: string,
    fence?: ClaimFence,
  ): Promise<boolean> {
    return toolExecutions.markToolStarted(this.fencedWrite(fence), threadId, toolCallId, argumentsHash, from, at);
  }

  markToolFinished(
    threadId: string,
    toolCallId: string,
    outcome: NonNullable<ToolExecutionRecord['outcome']>,
    at: string,
    fence?: ClaimFence,
  ): Promise<boolean> {
    return toolExecutions.markToolFinished(this.fencedWrite(fence), threadId, toolCallId, outcome, at);
  }

  setToolExecutionStatus(
    threadId: string,
    toolCallId: string,
    from: readonly ToolExecutionStatus[],
    to: ToolExecutionStatus,
    at: string,
    fence?: ClaimFence,
  ): Promise<boolean> {
    return toolExecutions.setToolExecutionStatus(this.fencedWrite(fence), threadId, toolCallId, from, to, at);
  }

  getToolExecution(threadId: string, toolCallId: string): Promise<ToolExecutionRecord | undefined> {
    return toolExecutions.getToolExecution((work) => this.read(work), threadId, toolCallId);
  }

  listToolExecutions(filter: { threadId?: string; status?: ToolExecutionStatus } = {}): Promise<ToolExecutionRecord[]> {
    return toolExecutions.listToolExecutions((work) => this.read(work), filter);
  }

  /** Runs a write transaction that first refuses a stale claim. */
  private fencedWrite(fence: ClaimFence | undefined): RunInTransaction {
    return (work) =>
      this.write(async (manager) => {
        await this.checkFence(manager, fence);
        return work(manager);
      });
  }

  async scheduleJobs(jobs: readonly ThreadJob[]): Promise<void> {
    if (jobs.length > 0) await this.write((manager) => this.addJobs(manager, jobs));
  }

  private addJobs(manager: EntityManager, jobs: readonly ThreadJob[]): Promise<void> {
    return definitions.addJobs(manager, this.jobsSchema, jobs);
  }

  /** Appends to the audit log, queued on the head's row lock behind other appenders. */
  appendAuditEntry(seal: AuditSeal, fence?: ClaimFence): Promise<AuditEntry> {
    return this.write(async (manager) => {
      await this.checkFence(manager, fence);
      return audit.appendAuditEntry(manager, seal);
    });
  }

  getAuditHead(): Promise<AuditHead | undefined> {
    return audit.getAuditHead((work) => this.read(work));
  }

  listAuditEntries(filter: { threadId?: string } = {}): Promise<AuditEntry[]> {
    return audit.listAuditEntries((work) => this.read(work), filter);
  }

  rememberApproval(key: string, expiresAt: number): Promise<void> {
    return audit.rememberApproval((work) => this.write(work), key, expiresAt);
  }

  isApprovalRemembered(key: string, now: number): Promise<boolean> {
    return audit.isApprovalRemembered((work) => this.write(work), key, now);
  }

  /** Stores a workflow definition unless this id and version are stored already (the first one is kept). */
  saveWorkflowDefinition(definition: WorkflowDefinition): Promise<void> {
    return definitions.saveWorkflowDefinition((work) => this.write(work), definition);
  }

  getWorkflowDefinition(workflowId: string, version: string): Promise<WorkflowDefinition | undefined> {
    return definitions.getWorkflowDefinition((work) => this.read(work), workflowId, version);
  }

  /** The changes every process makes, heard by LISTEN on a connection of its own. */
  async watchChanges(listener: (change: StoreChange) => void): Promise<{ stop(): Promise<void> }> {
    const options = this.dataSource.options as { url?: string; schema?: string };
    return listenForChanges(options.url ?? '', options.schema, listener);
  }

  /** Waits for the operations under way, then closes the database connection(s). Closing twice is harmless. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await Promise.allSettled(this.running);
    if (this.dataSource.isInitialized) await this.dataSource.destroy();
  }

  /** Runs a write transaction (READ COMMITTED; the conditional statements make it safe). */
  protected write<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    return this.schedule(() => postgresTransaction(this.dataSource, work));
  }

  /**
   * Reads in one REPEATABLE READ transaction, so a thread and its conversation come from
   * the same moment (READ COMMITTED takes a new snapshot per statement).
   */
  protected read<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    return this.schedule(() => postgresTransaction(this.dataSource, work, 'REPEATABLE READ'));
  }

  protected schedule<T>(operation: () => Promise<T>): Promise<T> {
    if (this.closed) {
      return Promise.reject(new InterlockError('INVALID_OPTIONS', 'the store is closed: create a new one to go on'));
    }
    const result = operation();
    this.running.add(result);
    void result.then(
      () => this.running.delete(result),
      () => this.running.delete(result),
    );
    return result;
  }
}

/**
 * What saving `thread` writes: the thread at its next version, its row without the claim
 * (epoch and lease are not the saver's to write), and its conversation encoded.
 */
export function threadSave(thread: ThreadRecord) {
  const saved = { ...thread, version: thread.version + 1, updatedAt: new Date().toISOString() };
  const {
    threadId: _threadId,
    epoch: _epoch,
    leaseOwner: _owner,
    leaseUntil: _until,
    ...columns
  } = toThreadRow(saved, saved.version);
  return { saved, columns, messages: encodeConversation(thread.threadId, thread.conversation) };
}
