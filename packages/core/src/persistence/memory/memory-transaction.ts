import type { WorkflowDefinition } from '@interlock/sdk-types';
import { GENESIS, auditLink, type AuditAnchor, type AuditThreadHead } from '../../audit/audit-chain.js';
import type { AuditEntry } from '../../audit/audit-log.js';
import { canonicalJson } from '../../policy/canonical-arguments.js';
import type { ThreadJob } from '../../workers/thread-jobs.js';
import { applyQuorumChange } from '../quorum-change.js';
import type { InteractionRecord, ThreadRecord, ToolExecutionRecord } from '../records.js';
import type {
  CommitResult,
  Conflict,
  GlobalChange,
  InteractionChange,
  ThreadChange,
  ToolCallChange,
  UnitOfWork,
} from '../unit-of-work.js';
import { deepFreeze } from './deep-freeze.js';

/** The in-memory store's data. */
export interface MemoryTables {
  threads: Map<string, ThreadRecord>;
  interactions: Map<string, InteractionRecord>;
  interactionsOfThread: Map<string, Set<string>>;
  globals: Map<string, Map<string, unknown>>;
  executions: Map<string, ToolExecutionRecord>;
  executionsOfThread: Map<string, Set<string>>;
  workflows: Map<string, WorkflowDefinition>;
  audit: AuditEntry[];
  auditOfThread: Map<string, AuditEntry[]>;
  heads: Map<string, AuditThreadHead>;
  anchors: AuditAnchor[];
  remembered: Map<string, number>;
  jobs: Map<string, ThreadJob & { lockedBy?: string; lockedUntil?: string }>;
  lastSequence: { value: number };
}

/* eslint-disable @typescript-eslint/only-throw-error -- Refused is a signal caught within the commit (no stack to capture), never an error a caller sees */

/** Thrown inside a transaction to refuse the unit; caught by `run`. */
class Refused {
  constructor(readonly conflict: Conflict) {}
}

/**
 * One unit of work on the in-memory store: every change is checked and staged against the
 * store as changed by the unit so far, then all are applied at once, or none (the
 * reference for what `commit` means; the SQL stores do the same in a transaction).
 */
export class MemoryTransaction {
  private readonly threads = new Map<string, ThreadRecord>();
  private readonly interactions = new Map<string, InteractionRecord>();
  private readonly executions = new Map<string, ToolExecutionRecord>();
  private readonly globals = new Map<string, Map<string, unknown>>();
  private readonly heads = new Map<string, AuditThreadHead>();
  private readonly entries: AuditEntry[] = [];
  private readonly failed: string[] = [];

  constructor(private readonly tables: MemoryTables) {}

  run(unit: UnitOfWork): CommitResult {
    try {
      const thread = unit.thread === undefined ? undefined : this.thread(unit.thread);
      for (const change of unit.interactions ?? []) this.interaction(change);
      for (const change of unit.toolCalls ?? []) this.toolCall(change);
      for (const draft of unit.audit ?? []) this.auditEntry(draft);
      for (const change of unit.globals ?? []) this.global(change);
      if (unit.anchor !== undefined && unit.anchor.sequence !== this.tables.anchors.length + 1)
        throw new Refused({ kind: 'anchor-exists', sequence: unit.anchor.sequence });
      this.apply(unit);
      return {
        status: 'committed',
        ...(thread === undefined
          ? {}
          : {
              thread: {
                version: thread.version,
                epoch: thread.epoch,
                updatedAt: thread.updatedAt,
                ...(thread.lease === undefined ? {} : { lease: thread.lease }),
              },
            }),
        audit: this.entries,
        failed: this.failed,
      };
    } catch (error) {
      if (error instanceof Refused) return { status: 'conflict', conflict: error.conflict };
      throw error;
    }
  }

  private thread(change: ThreadChange): ThreadRecord {
    const threadId = change.kind === 'create' || change.kind === 'save' ? change.thread.threadId : change.threadId;
    const stored = this.tables.threads.get(threadId);
    if (change.kind === 'create') {
      if (stored) throw new Refused({ kind: 'thread-exists', threadId });
      return this.stage({ ...change.thread, version: 1 });
    }
    if (!stored) throw new Refused({ kind: 'thread-not-found', threadId });
    const changed = () =>
      new Refused({ kind: 'thread-changed', threadId, storedVersion: stored.version, storedEpoch: stored.epoch });
    // The claim's end is part of the fence: a unit the writer built after it ran out is refused.
    const ended = (now: string | undefined) => {
      if (now === undefined || (stored.lease !== undefined && stored.lease.until > now)) return;
      throw new Refused({
        kind: 'claim-ended',
        threadId,
        ...(stored.lease === undefined ? {} : { until: stored.lease.until }),
      });
    };
    if (change.kind === 'renew' || change.kind === 'release') {
      if (stored.epoch !== change.epoch || stored.lease?.owner !== change.owner) throw changed();
      if (change.kind === 'renew') ended(change.now);
      const { lease: _lease, ...rest } = stored;
      return this.stage(
        change.kind === 'renew' ? { ...rest, lease: { owner: change.owner, until: change.until } } : rest,
      );
    }
    if (stored.version !== change.expectedVersion || stored.epoch !== change.thread.epoch) throw changed();
    const { claim } = change;
    if (claim.kind !== 'take') ended(claim.now);
    const { lease: _lease, ...record } = change.thread;
    switch (claim.kind) {
      case 'take': {
        const lease = stored.lease;
        if (lease !== undefined && lease.owner !== claim.owner && lease.until > claim.now)
          throw new Refused({ kind: 'thread-busy', threadId, lease });
        return this.stage({
          ...record,
          version: stored.version + 1,
          epoch: stored.epoch + 1,
          ...(claim.release === true ? {} : { lease: { owner: claim.owner, until: claim.until } }),
        });
      }
      case 'keep':
        return this.stage({
          ...record,
          version: stored.version + 1,
          ...(stored.lease === undefined ? {} : { lease: stored.lease }),
        });
      case 'release':
        return this.stage({ ...record, version: stored.version + 1 });
    }
  }

  private stage(thread: ThreadRecord): ThreadRecord {
    this.threads.set(thread.threadId, thread);
    return thread;
  }

  private interactionOf(interactionId: string): InteractionRecord | undefined {
    return this.interactions.get(interactionId) ?? this.tables.interactions.get(interactionId);
  }

  private interaction(change: InteractionChange): void {
    if (change.kind === 'open') {
      this.interactions.set(change.interaction.interactionId, change.interaction);
      return;
    }
    const { interactionId } = change;
    const stored = this.interactionOf(interactionId);
    switch (change.kind) {
      case 'answer':
        if (!stored) throw new Refused({ kind: 'interaction-not-found', interactionId });
        if (stored.status !== 'pending') throw new Refused({ kind: 'interaction-not-pending', interaction: stored });
        this.interactions.set(interactionId, {
          ...stored,
          status: 'responded',
          response: change.response,
          updatedAt: change.response.respondedAt,
        });
        return;
      case 'consume':
        if (stored?.status === 'responded')
          this.interactions.set(interactionId, { ...stored, status: 'processed', updatedAt: change.at });
        return;
      case 'fail':
        if (stored?.status !== 'pending') return;
        this.interactions.set(interactionId, {
          ...stored,
          status: 'failed',
          failureReason: change.reason,
          failureMessage: change.message,
          updatedAt: change.at,
        });
        this.failed.push(interactionId);
        return;
      case 'approve-partially':
      case 'escalate': {
        const applied = applyQuorumChange(stored, change);
        if (applied === 'unchanged') return;
        if ('conflict' in applied) throw new Refused(applied.conflict);
        this.interactions.set(interactionId, applied.next);
        return;
      }
    }
  }

  private toolCall(change: ToolCallChange): void {
    const threadId = change.kind === 'start' ? change.call.threadId : change.threadId;
    const toolCallId = change.kind === 'start' ? change.call.toolCallId : change.toolCallId;
    const key = executionKey(threadId, toolCallId);
    const stored = this.executions.get(key) ?? this.tables.executions.get(key);
    const refuse = () => new Refused({ kind: 'tool-call', threadId, toolCallId, ...(stored ? { stored } : {}) });
    switch (change.kind) {
      case 'start':
        if (stored && (stored.argumentsHash !== change.call.argumentsHash || !change.from.includes(stored.status)))
          throw refuse();
        this.executions.set(key, { ...(stored ?? change.call), status: 'started', updatedAt: change.at });
        return;
      case 'finish':
        if (!stored) throw refuse();
        if (stored.status === 'finished') return;
        this.executions.set(key, { ...stored, status: 'finished', outcome: change.outcome, updatedAt: change.at });
        return;
      case 'status':
        if (!stored || !change.from.includes(stored.status)) throw refuse();
        this.executions.set(key, { ...stored, status: change.to, updatedAt: change.at });
        return;
    }
  }

  private auditEntry(draft: NonNullable<UnitOfWork['audit']>[number]): void {
    const { threadId } = draft.entry;
    const head = this.heads.get(threadId) ??
      this.tables.heads.get(threadId) ?? { threadId, threadSequence: 0, hash: GENESIS };
    const threadSequence = head.threadSequence + 1;
    const hash = auditLink(head.hash, threadSequence, draft.digest);
    this.entries.push({
      ...draft.entry,
      sequence: this.tables.lastSequence.value + this.entries.length + 1,
      threadSequence,
      previousHash: head.hash,
      hash,
    });
    this.heads.set(threadId, { threadId, threadSequence, hash });
  }

  private global(change: GlobalChange): void {
    const values = this.globals.get(change.scope) ?? new Map(this.tables.globals.get(change.scope));
    this.globals.set(change.scope, values);
    switch (change.kind) {
      case 'set':
        values.set(change.name, change.value);
        return;
      case 'set-if-absent':
        if (!values.has(change.name)) values.set(change.name, change.value);
        return;
      case 'delete':
        values.delete(change.name);
        return;
      case 'compare-and-set': {
        const current = values.has(change.name) ? canonicalJson(values.get(change.name)) : undefined;
        const expected = change.expected === undefined ? undefined : canonicalJson(change.expected);
        if (current !== expected) throw new Refused({ kind: 'global-changed', scope: change.scope, name: change.name });
        values.set(change.name, change.value);
        return;
      }
    }
  }

  /** Writes everything staged (nothing above can fail any more). */
  private apply(unit: UnitOfWork): void {
    const { tables } = this;
    for (const [threadId, thread] of this.threads) tables.threads.set(threadId, deepFreeze(thread));
    for (const [interactionId, interaction] of this.interactions) {
      tables.interactions.set(interactionId, deepFreeze(interaction));
      addTo(tables.interactionsOfThread, interaction.threadId, interactionId);
    }
    for (const [key, execution] of this.executions) {
      tables.executions.set(key, deepFreeze(execution));
      addTo(tables.executionsOfThread, execution.threadId, key);
    }
    for (const [scope, values] of this.globals) tables.globals.set(scope, values);
    for (const entry of this.entries) {
      deepFreeze(entry);
      tables.audit.push(entry);
      const ofThread = tables.auditOfThread.get(entry.threadId) ?? [];
      ofThread.push(entry);
      tables.auditOfThread.set(entry.threadId, ofThread);
    }
    tables.lastSequence.value += this.entries.length;
    for (const [threadId, head] of this.heads) tables.heads.set(threadId, head);
    if (unit.anchor !== undefined) tables.anchors.push(deepFreeze(unit.anchor));
    for (const { key, expiresAt } of unit.remember ?? []) tables.remembered.set(key, expiresAt);
    for (const definition of unit.definitions ?? []) {
      const key = `${definition.id}@${definition.version}`;
      if (!tables.workflows.has(key)) tables.workflows.set(key, deepFreeze(definition));
    }
    for (const job of unit.jobs ?? []) tables.jobs.set(job.key, { ...job });
    // A job a worker holds is left to run (it finds nothing to do).
    for (const key of unit.dropJobs ?? []) if (tables.jobs.get(key)?.lockedBy === undefined) tables.jobs.delete(key);
  }
}

function executionKey(threadId: string, toolCallId: string): string {
  return `${threadId}\u0000${toolCallId}`;
}

function addTo(index: Map<string, Set<string>>, key: string, value: string): void {
  const set = index.get(key) ?? new Set<string>();
  set.add(value);
  index.set(key, set);
}
