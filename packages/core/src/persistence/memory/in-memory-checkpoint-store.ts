import type { InteractionStatus, WorkflowDefinition } from '@interlock/sdk-types';
import type { AuditAnchor, AuditThreadHead } from '../../audit/audit-chain.js';
import type { AuditEntry } from '../../audit/audit-log.js';
import type { ThreadJob } from '../../workers/thread-jobs.js';
import type {
  ICheckpointStore,
  InteractionRecord,
  StoredAuditEvidence,
  StoredThread,
  ThreadRecord,
  ThreadStatus,
  ToolExecutionRecord,
  ToolExecutionStatus,
} from '../checkpoint-store.js';
import type { CommitResult, UnitOfWork } from '../unit-of-work.js';
import { deepFreeze } from './deep-freeze.js';
import { MemoryTransaction, type MemoryTables } from './memory-transaction.js';

/**
 * A store that lives in this process only: for tests and one-shot runs. It keeps the values
 * it is given, frozen, and hands the same values out: the engine's values are immutable, so
 * nothing is copied, and a caller that tries to change one gets a TypeError instead of
 * changing stored state by accident.
 */
export class InMemoryCheckpointStore implements ICheckpointStore {
  private readonly tables: MemoryTables = {
    threads: new Map(),
    interactions: new Map(),
    interactionsOfThread: new Map(),
    globals: new Map(),
    executions: new Map(),
    executionsOfThread: new Map(),
    workflows: new Map(),
    audit: [],
    auditOfThread: new Map(),
    heads: new Map(),
    anchors: [],
    remembered: new Map(),
    jobs: new Map(),
    lastSequence: { value: 0 },
  };

  async commit(unit: UnitOfWork): Promise<CommitResult> {
    return new MemoryTransaction(this.tables).run(unit);
  }

  async getThread(threadId: string): Promise<ThreadRecord | undefined> {
    return this.tables.threads.get(threadId);
  }

  async loadThread(threadId: string): Promise<StoredThread | undefined> {
    const thread = this.tables.threads.get(threadId);
    if (thread === undefined) return undefined;
    return {
      thread,
      interactions: await this.listInteractions({ threadId }),
      toolCalls: await this.listToolExecutions({ threadId }),
    };
  }

  async loadThreadOf(interactionId: string): Promise<StoredThread | undefined> {
    const interaction = this.tables.interactions.get(interactionId);
    return interaction === undefined ? undefined : this.loadThread(interaction.threadId);
  }

  async listThreads(filter: { status?: ThreadStatus } = {}): Promise<ThreadRecord[]> {
    return [...this.tables.threads.values()].filter(
      (thread) => filter.status === undefined || thread.status === filter.status,
    );
  }

  async getInteraction(interactionId: string): Promise<InteractionRecord | undefined> {
    return this.tables.interactions.get(interactionId);
  }

  async listInteractions(filter: { status?: InteractionStatus; threadId?: string } = {}): Promise<InteractionRecord[]> {
    const { interactions, interactionsOfThread } = this.tables;
    const candidates =
      filter.threadId === undefined
        ? [...interactions.values()]
        : [...(interactionsOfThread.get(filter.threadId) ?? [])].flatMap((id) => interactions.get(id) ?? []);
    return (
      candidates
        .filter((interaction) => filter.status === undefined || interaction.status === filter.status)
        // Oldest first; those stored together (a batch) in the order they were stored.
        .sort((a, b) => a.createdAt.localeCompare(b.createdAt))
    );
  }

  async listToolExecutions(
    filter: { threadId?: string; status?: ToolExecutionStatus } = {},
  ): Promise<ToolExecutionRecord[]> {
    const { executions, executionsOfThread } = this.tables;
    const candidates =
      filter.threadId === undefined
        ? [...executions.values()]
        : [...(executionsOfThread.get(filter.threadId) ?? [])].flatMap((key) => executions.get(key) ?? []);
    return candidates.filter((execution) => filter.status === undefined || execution.status === filter.status);
  }

  async listAuditEntries(filter: { threadId?: string; after?: number } = {}): Promise<AuditEntry[]> {
    const entries =
      filter.threadId === undefined ? this.tables.audit : (this.tables.auditOfThread.get(filter.threadId) ?? []);
    const after = filter.after;
    return after === undefined ? [...entries] : entries.filter((entry) => entry.sequence > after);
  }

  async readAuditEvidence(): Promise<StoredAuditEvidence> {
    const heads: AuditThreadHead[] = [...this.tables.heads.values()];
    const anchors: AuditAnchor[] = [...this.tables.anchors];
    return { heads, anchors, legacyHead: null };
  }

  async getGlobalVariables(scope: string): Promise<Record<string, unknown>> {
    return Object.fromEntries(this.tables.globals.get(scope) ?? []);
  }

  async isApprovalRemembered(key: string, now: number): Promise<boolean> {
    const expiresAt = this.tables.remembered.get(key);
    return expiresAt !== undefined && expiresAt > now;
  }

  async getWorkflowDefinition(workflowId: string, version: string): Promise<WorkflowDefinition | undefined> {
    return this.tables.workflows.get(`${workflowId}@${version}`);
  }

  async takeJobs(
    workflowIds: readonly string[],
    owner: string,
    now: string,
    lockedUntil: string,
    limit: number,
  ): Promise<ThreadJob[]> {
    const due = [...this.tables.jobs.values()]
      .filter(
        (job) =>
          workflowIds.includes(job.workflowId) &&
          job.runAt <= now &&
          (job.lockedUntil === undefined || job.lockedUntil <= now),
      )
      .sort((a, b) => a.runAt.localeCompare(b.runAt))
      .slice(0, limit);
    return due.map((job) => {
      const { lockedBy: _by, lockedUntil: _until, ...taken } = job;
      this.tables.jobs.set(job.key, { ...taken, lockedBy: owner, lockedUntil });
      return deepFreeze(taken);
    });
  }

  async finishJob(key: string, owner: string): Promise<void> {
    if (this.tables.jobs.get(key)?.lockedBy === owner) this.tables.jobs.delete(key);
  }

  async close(): Promise<void> {}
}
