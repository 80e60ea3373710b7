import type { InteractionFailureReason, InteractionStatus, WorkflowDefinition } from '@interlock/sdk-types';
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
  ThreadRecord,
  ThreadStatus,
  ToolExecutionRecord,
  ToolExecutionStatus,
} from '../checkpoint-store.js';
import type { ThreadJob } from '../../workers/thread-jobs.js';
import { staleClaim } from '../stale-claim.js';

/**
 * A store that lives in this process only: for tests and one-shot runs. Records are
 * deep-copied in and out so callers can never change stored state by accident.
 */
export class InMemoryCheckpointStore implements ICheckpointStore {
  private readonly threads = new Map<string, ThreadRecord>();
  private readonly interactions = new Map<string, InteractionRecord>();
  /** The ids of each thread's interactions, oldest first: one thread's are read without a scan of all. */
  private readonly interactionsOfThread = new Map<string, Set<string>>();
  private readonly globals = new Map<string, Record<string, unknown>>();
  private readonly executions = new Map<string, ToolExecutionRecord>();
  private readonly workflows = new Map<string, WorkflowDefinition>();
  private readonly audit: AuditEntry[] = [];
  private readonly auditSequences = new Set<number>();
  /** Each thread's audit entries in chain order: the engine reads them before it audits an answer. */
  private readonly auditOfThread = new Map<string, AuditEntry[]>();
  private readonly remembered = new Map<string, number>();
  private auditHead: AuditHead | undefined;
  private readonly jobs = new Map<string, ThreadJob & { lockedBy?: string; lockedUntil?: string }>();

  async createThread(thread: ThreadRecord, jobs: readonly ThreadJob[] = []): Promise<ThreadRecord> {
    if (this.threads.has(thread.threadId)) {
      throw new InterlockError('STORE_CONFLICT', `thread ${thread.threadId} already exists`);
    }
    const created = { ...thread, version: 1 };
    this.threads.set(thread.threadId, structuredClone(created));
    await this.scheduleJobs(jobs);
    return created;
  }

  async saveThread(thread: ThreadRecord, consumed: readonly string[] = []): Promise<ThreadRecord> {
    const stored = this.threads.get(thread.threadId);
    if (!stored) throw new InterlockError('THREAD_NOT_FOUND', `thread ${thread.threadId} does not exist`);
    if (stored.version !== thread.version) {
      throw new InterlockError(
        'STORE_CONFLICT',
        `thread ${thread.threadId} was changed by someone else (stored version ${stored.version}, yours ${thread.version}): reload it and retry`,
      );
    }
    const saved = { ...thread, version: thread.version + 1, updatedAt: new Date().toISOString() };
    const { lease: _lease, ...rest } = structuredClone(saved);
    // The claim is not the saver's to write: it stays as stored.
    this.threads.set(thread.threadId, {
      ...rest,
      epoch: stored.epoch,
      ...(stored.lease === undefined ? {} : { lease: stored.lease }),
    });
    for (const interactionId of consumed) this.consume(interactionId);
    return saved;
  }

  async getThread(threadId: string): Promise<ThreadRecord | undefined> {
    const thread = this.threads.get(threadId);
    return thread && structuredClone(thread);
  }

  async claimThread(
    threadId: string,
    owner: string,
    until: string,
    now: string,
    expectedVersion: number,
  ): Promise<ClaimResult> {
    const stored = this.threads.get(threadId);
    if (!stored) throw new InterlockError('THREAD_NOT_FOUND', `thread ${threadId} does not exist`);
    if (stored.lease && stored.lease.until > now) return { status: 'busy', lease: { ...stored.lease } };
    if (stored.version !== expectedVersion) return { status: 'changed' };
    stored.lease = { owner, until };
    stored.epoch += 1;
    stored.version += 1;
    return { status: 'claimed', epoch: stored.epoch, version: stored.version };
  }

  async renewClaim(fence: ClaimFence, owner: string, until: string): Promise<boolean> {
    const stored = this.threads.get(fence.threadId);
    if (stored?.epoch !== fence.epoch || stored.lease?.owner !== owner) return false;
    stored.lease = { owner, until };
    return true;
  }

  async releaseClaim(fence: ClaimFence, owner: string): Promise<void> {
    const stored = this.threads.get(fence.threadId);
    if (stored?.epoch === fence.epoch && stored.lease?.owner === owner) delete stored.lease;
  }

  /** Throws STORE_CONFLICT when the fence's claim was taken. */
  private check(fence: ClaimFence | undefined): void {
    if (fence !== undefined && this.threads.get(fence.threadId)?.epoch !== fence.epoch) throw staleClaim(fence);
  }

  async listThreads(filter: { status?: ThreadStatus } = {}): Promise<ThreadRecord[]> {
    return [...this.threads.values()]
      .filter((thread) => filter.status === undefined || thread.status === filter.status)
      .map((thread) => structuredClone(thread));
  }

  async createInteraction(
    interaction: InteractionRecord,
    fence?: ClaimFence,
    jobs: readonly ThreadJob[] = [],
  ): Promise<void> {
    this.check(fence);
    await this.scheduleJobs(jobs);
    this.interactions.set(interaction.interactionId, structuredClone(interaction));
    const ofThread = this.interactionsOfThread.get(interaction.threadId) ?? new Set<string>();
    this.interactionsOfThread.set(interaction.threadId, ofThread.add(interaction.interactionId));
  }

  async getInteraction(interactionId: string): Promise<InteractionRecord | undefined> {
    const interaction = this.interactions.get(interactionId);
    return interaction && structuredClone(interaction);
  }

  async listInteractions(filter: { status?: InteractionStatus; threadId?: string } = {}): Promise<InteractionRecord[]> {
    const { status, threadId } = filter;
    const candidates =
      threadId === undefined
        ? [...this.interactions.values()]
        : [...(this.interactionsOfThread.get(threadId) ?? [])].flatMap((id) => this.interactions.get(id) ?? []);
    return candidates
      .filter((interaction) => status === undefined || interaction.status === status)
      .map((interaction) => structuredClone(interaction));
  }

  async recordResponse(
    interactionId: string,
    response: InteractionResponseRecord,
    jobs: readonly ThreadJob[] = [],
  ): Promise<RecordResponseResult> {
    const interaction = this.interactions.get(interactionId);
    if (!interaction) return { status: 'not_found' };
    if (interaction.status !== 'pending') return { status: 'not_pending', interaction: structuredClone(interaction) };
    interaction.status = 'responded';
    interaction.response = structuredClone(response);
    interaction.updatedAt = response.respondedAt;
    await this.scheduleJobs(jobs);
    return { status: 'recorded', interaction: structuredClone(interaction) };
  }

  async failInteraction(interactionId: string, reason: InteractionFailureReason, message: string): Promise<boolean> {
    const interaction = this.interactions.get(interactionId);
    if (!interaction || interaction.status !== 'pending') return false;
    interaction.status = 'failed';
    interaction.failureReason = reason;
    interaction.failureMessage = message;
    interaction.updatedAt = new Date().toISOString();
    return true;
  }

  /** Marks an answered interaction processed (the save that applied it does). */
  private consume(interactionId: string): void {
    const interaction = this.interactions.get(interactionId);
    if (interaction?.status === 'responded') {
      interaction.status = 'processed';
      interaction.updatedAt = new Date().toISOString();
    }
  }

  async getGlobalVariables(workflowId: string): Promise<Record<string, unknown>> {
    return structuredClone(this.globals.get(workflowId) ?? {});
  }

  async setGlobalVariables(
    workflowId: string,
    values: Record<string, unknown>,
    options: { onlyIfAbsent?: boolean } = {},
  ): Promise<void> {
    const current = this.globals.get(workflowId) ?? {};
    for (const [name, value] of Object.entries(values)) {
      if (!options.onlyIfAbsent || !(name in current)) current[name] = structuredClone(value);
    }
    this.globals.set(workflowId, current);
  }

  async recordToolApproval(
    record: Omit<ToolExecutionRecord, 'status' | 'outcome' | 'updatedAt'>,
    fence?: ClaimFence,
  ): Promise<void> {
    this.check(fence);
    const key = executionKey(record.threadId, record.toolCallId);
    const existing = this.executions.get(key);
    if (existing) {
      if (existing.argumentsHash !== record.argumentsHash) {
        throw new InterlockError('STORE_CONFLICT', `tool call ${record.toolCallId} was approved with other arguments`);
      }
      return;
    }
    this.executions.set(key, structuredClone({ ...record, status: 'approved', updatedAt: record.createdAt }));
  }

  async markToolStarted(
    threadId: string,
    toolCallId: string,
    argumentsHash: string,
    from: readonly ToolExecutionStatus[],
    at: string,
    fence?: ClaimFence,
  ): Promise<boolean> {
    this.check(fence);
    const execution = this.executions.get(executionKey(threadId, toolCallId));
    if (!execution || execution.argumentsHash !== argumentsHash || !from.includes(execution.status)) return false;
    execution.status = 'started';
    execution.updatedAt = at;
    return true;
  }

  async markToolFinished(
    threadId: string,
    toolCallId: string,
    outcome: NonNullable<ToolExecutionRecord['outcome']>,
    at: string,
    fence?: ClaimFence,
  ): Promise<boolean> {
    this.check(fence);
    const execution = this.executions.get(executionKey(threadId, toolCallId));
    if (!execution || execution.status === 'finished') return false;
    execution.status = 'finished';
    execution.outcome = structuredClone(outcome);
    execution.updatedAt = at;
    return true;
  }

  async setToolExecutionStatus(
    threadId: string,
    toolCallId: string,
    from: readonly ToolExecutionStatus[],
    to: ToolExecutionStatus,
    at: string,
    fence?: ClaimFence,
  ): Promise<boolean> {
    this.check(fence);
    const execution = this.executions.get(executionKey(threadId, toolCallId));
    if (!execution || !from.includes(execution.status)) return false;
    execution.status = to;
    execution.updatedAt = at;
    return true;
  }

  async getToolExecution(threadId: string, toolCallId: string): Promise<ToolExecutionRecord | undefined> {
    const execution = this.executions.get(executionKey(threadId, toolCallId));
    return execution && structuredClone(execution);
  }

  async listToolExecutions(
    filter: { threadId?: string; status?: ToolExecutionStatus } = {},
  ): Promise<ToolExecutionRecord[]> {
    return [...this.executions.values()]
      .filter((execution) => filter.threadId === undefined || execution.threadId === filter.threadId)
      .filter((execution) => filter.status === undefined || execution.status === filter.status)
      .map((execution) => structuredClone(execution));
  }

  async appendAuditEntry(
    seal: (previous: AuditHead | undefined) => AuditEntry,
    fence?: ClaimFence,
  ): Promise<AuditEntry> {
    this.check(fence);
    const entry = seal(this.auditHead && { ...this.auditHead });
    if (this.auditSequences.has(entry.sequence)) {
      throw new InterlockError('STORE_CONFLICT', `audit entry ${entry.sequence} exists already`);
    }
    const stored = structuredClone(entry);
    this.audit.push(stored);
    this.auditSequences.add(entry.sequence);
    const ofThread = this.auditOfThread.get(entry.threadId);
    if (ofThread === undefined) this.auditOfThread.set(entry.threadId, [stored]);
    else ofThread.push(stored);
    this.auditHead = { sequence: entry.sequence, hash: entry.hash };
    return structuredClone(entry);
  }

  async getAuditHead(): Promise<AuditHead | undefined> {
    return this.auditHead && { ...this.auditHead };
  }

  async listAuditEntries(filter: { threadId?: string } = {}): Promise<AuditEntry[]> {
    const entries = filter.threadId === undefined ? this.audit : (this.auditOfThread.get(filter.threadId) ?? []);
    return entries.map((entry) => structuredClone(entry));
  }

  async rememberApproval(key: string, expiresAt: number): Promise<void> {
    this.remembered.set(key, expiresAt);
  }

  async isApprovalRemembered(key: string, now: number): Promise<boolean> {
    const expiresAt = this.remembered.get(key);
    if (expiresAt === undefined) return false;
    if (expiresAt <= now) {
      this.remembered.delete(key);
      return false;
    }
    return true;
  }

  async scheduleJobs(jobs: readonly ThreadJob[]): Promise<void> {
    for (const job of jobs) this.jobs.set(job.key, structuredClone(job));
  }

  async takeJobs(
    workflowIds: readonly string[],
    owner: string,
    now: string,
    lockedUntil: string,
    limit: number,
  ): Promise<ThreadJob[]> {
    const due = [...this.jobs.values()]
      .filter(
        (job) =>
          workflowIds.includes(job.workflowId) &&
          job.runAt <= now &&
          (job.lockedUntil === undefined || job.lockedUntil <= now),
      )
      .sort((a, b) => a.runAt.localeCompare(b.runAt))
      .slice(0, limit);
    return due.map((job) => {
      job.lockedBy = owner;
      job.lockedUntil = lockedUntil;
      const { lockedBy: _by, lockedUntil: _until, ...taken } = job;
      return structuredClone(taken);
    });
  }

  async finishJob(key: string, owner: string): Promise<void> {
    if (this.jobs.get(key)?.lockedBy === owner) this.jobs.delete(key);
  }

  async saveWorkflowDefinition(definition: WorkflowDefinition): Promise<void> {
    const key = `${definition.id}@${definition.version}`;
    if (!this.workflows.has(key)) this.workflows.set(key, structuredClone(definition));
  }

  async getWorkflowDefinition(workflowId: string, version: string): Promise<WorkflowDefinition | undefined> {
    const definition = this.workflows.get(`${workflowId}@${version}`);
    return definition && structuredClone(definition);
  }

  async close(): Promise<void> {}
}

function executionKey(threadId: string, toolCallId: string): string {
  return `${threadId}\u0000${toolCallId}`;
}
