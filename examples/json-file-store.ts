import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import {
  AUDIT_GENESIS,
  auditLink,
  canonicalJson,
  type AuditAnchor,
  type AuditEntry,
  type AuditThreadHead,
  type CommitResult,
  type Conflict,
  type ICheckpointStore,
  type InteractionChange,
  type InteractionRecord,
  type StoredAuditEvidence,
  type StoredThread,
  type ThreadChange,
  type ThreadRecord,
  type ThreadStatus,
  type ToolCallChange,
  type ToolExecutionRecord,
  type ToolExecutionStatus,
  type UnitOfWork,
} from '@interlock/core';
import type { InteractionStatus, WorkflowDefinition } from '@interlock/sdk-types';

/**
 * A custom store (`createInterlock({ store: { type: 'custom', store } })`) written from
 * scratch: everything in one JSON file, read once when it opens and written again, whole,
 * by every commit (to a temporary file renamed over it, so a crash leaves the old file or
 * the new one). It is the worked answer to "implement a store": one write, `commit(unit)`,
 * all or nothing with every precondition checked inside it, and the reads. It keeps every
 * promise of the port — `json-file-store.test.ts` runs the whole conformance suite of
 * `@interlock/core/testing/conformance` on it — but it is made for a few threads in one
 * process: each commit rewrites the file, and two processes on one file would overwrite
 * each other. It has no job queue (`takeJobs`), so workers do not run on it.
 *
 * @example
 * const interlock = await createInterlock({ store: { type: 'custom', store: openJsonFileStore('interlock.json') } });
 */
export function openJsonFileStore(path: string): ICheckpointStore {
  return new JsonFileStore(path);
}

/** What the file holds. Maps keep the order things were stored in (a batch of questions lists in that order). */
interface Tables {
  threads: Map<string, ThreadRecord>;
  interactions: Map<string, InteractionRecord>;
  /** By `threadId` NUL `toolCallId`. */
  toolCalls: Map<string, ToolExecutionRecord>;
  /** Scope → name → `{ value }` (a box, so that `undefined` is a value too). */
  globals: Map<string, Map<string, { value?: unknown }>>;
  remembered: Map<string, number>;
  definitions: Map<string, WorkflowDefinition>;
  audit: AuditEntry[];
  heads: Map<string, AuditThreadHead>;
  anchors: AuditAnchor[];
}

/** Thrown inside a commit to refuse the unit: nothing of it is kept. */
class Refused {
  constructor(readonly conflict: Conflict) {}
}

class JsonFileStore implements ICheckpointStore {
  private tables: Tables;

  constructor(private readonly path: string) {
    this.tables = load(path);
  }

  async commit(unit: UnitOfWork): Promise<CommitResult> {
    // Every change is applied to a copy, checked as it goes; the copy replaces the tables only
    // once all of them held and the file is written.
    const next = structuredClone(this.tables);
    const failed: string[] = [];
    const audit: AuditEntry[] = [];
    try {
      const thread = unit.thread === undefined ? undefined : applyThread(next, unit.thread);
      for (const change of unit.interactions ?? []) {
        const failedNow = applyInteraction(next, change);
        if (failedNow && change.kind === 'fail') failed.push(change.interactionId);
      }
      for (const change of unit.toolCalls ?? []) applyToolCall(next, change);
      for (const { entry, digest } of unit.audit ?? []) {
        const head = next.heads.get(entry.threadId) ?? {
          threadId: entry.threadId,
          threadSequence: 0,
          hash: AUDIT_GENESIS,
        };
        const threadSequence = head.threadSequence + 1;
        const hash = auditLink(head.hash, threadSequence, digest);
        const stored = { ...entry, sequence: next.audit.length + 1, threadSequence, previousHash: head.hash, hash };
        next.audit.push(stored);
        audit.push(stored);
        next.heads.set(entry.threadId, { threadId: entry.threadId, threadSequence, hash });
      }
      for (const change of unit.globals ?? []) {
        const values = next.globals.get(change.scope) ?? new Map<string, { value?: unknown }>();
        next.globals.set(change.scope, values);
        const current = values.get(change.name);
        if (change.kind === 'delete') values.delete(change.name);
        else if (change.kind === 'set') values.set(change.name, { value: change.value });
        else if (change.kind === 'set-if-absent') {
          if (current === undefined) values.set(change.name, { value: change.value });
        } else {
          const expected = change.expected === undefined ? undefined : canonicalJson(change.expected);
          if ((current === undefined ? undefined : canonicalJson(current.value)) !== expected)
            throw new Refused({ kind: 'global-changed', scope: change.scope, name: change.name });
          values.set(change.name, { value: change.value });
        }
      }
      for (const { key, expiresAt } of unit.remember ?? []) next.remembered.set(key, expiresAt);
      for (const definition of unit.definitions ?? []) {
        const key = `${definition.id}@${definition.version}`;
        if (!next.definitions.has(key)) next.definitions.set(key, definition);
      }
      if (unit.anchor !== undefined) {
        if (unit.anchor.sequence !== next.anchors.length + 1)
          throw new Refused({ kind: 'anchor-exists', sequence: unit.anchor.sequence });
        next.anchors.push(unit.anchor);
      }
      if (unit.jobs?.length)
        throw new Error('this store has no job queue: run threads in this process (continueIn: "this-process")');
      save(this.path, next);
      this.tables = next;
      return {
        status: 'committed',
        ...(thread === undefined ? {} : { thread: claimOf(thread) }),
        audit: structuredClone(audit),
        failed,
      };
    } catch (error) {
      if (error instanceof Refused) return { status: 'conflict', conflict: structuredClone(error.conflict) };
      throw error;
    }
  }

  async getThread(threadId: string): Promise<ThreadRecord | undefined> {
    return copy(this.tables.threads.get(threadId));
  }

  async loadThread(threadId: string): Promise<StoredThread | undefined> {
    const thread = this.tables.threads.get(threadId);
    if (thread === undefined) return undefined;
    return {
      thread: structuredClone(thread),
      interactions: await this.listInteractions({ threadId }),
      toolCalls: await this.listToolExecutions({ threadId }),
    };
  }

  async listThreads(filter: { status?: ThreadStatus } = {}): Promise<ThreadRecord[]> {
    return structuredClone([...this.tables.threads.values()].filter((thread) => matches(thread, filter)));
  }

  async getInteraction(interactionId: string): Promise<InteractionRecord | undefined> {
    return copy(this.tables.interactions.get(interactionId));
  }

  async listInteractions(filter: { status?: InteractionStatus; threadId?: string } = {}): Promise<InteractionRecord[]> {
    const found = [...this.tables.interactions.values()].filter((interaction) => matches(interaction, filter));
    // Oldest first; those of one moment (a batch) in the order they were stored (a stable sort).
    return structuredClone(found.sort((a, b) => a.createdAt.localeCompare(b.createdAt)));
  }

  async listToolExecutions(
    filter: { threadId?: string; status?: ToolExecutionStatus } = {},
  ): Promise<ToolExecutionRecord[]> {
    return structuredClone([...this.tables.toolCalls.values()].filter((call) => matches(call, filter)));
  }

  async listAuditEntries(filter: { threadId?: string; after?: number } = {}): Promise<AuditEntry[]> {
    const { threadId, after = 0 } = filter;
    return structuredClone(
      this.tables.audit.filter(
        (entry) => entry.sequence > after && (threadId === undefined || entry.threadId === threadId),
      ),
    );
  }

  async readAuditEvidence(): Promise<StoredAuditEvidence> {
    return structuredClone({
      heads: [...this.tables.heads.values()],
      anchors: this.tables.anchors,
      legacyHead: null,
    });
  }

  async getGlobalVariables(scope: string): Promise<Record<string, unknown>> {
    const values = this.tables.globals.get(scope) ?? new Map<string, { value?: unknown }>();
    return structuredClone(Object.fromEntries([...values].map(([name, box]) => [name, box.value])));
  }

  async isApprovalRemembered(key: string, now: number): Promise<boolean> {
    return (this.tables.remembered.get(key) ?? 0) > now;
  }

  async getWorkflowDefinition(workflowId: string, version: string): Promise<WorkflowDefinition | undefined> {
    return copy(this.tables.definitions.get(`${workflowId}@${version}`));
  }

  async close(): Promise<void> {}
}

/** The thread change of a unit: created, saved under its fence (version and epoch), claimed, renewed or freed. */
function applyThread(tables: Tables, change: ThreadChange): ThreadRecord {
  const threadId = change.kind === 'create' || change.kind === 'save' ? change.thread.threadId : change.threadId;
  const stored = tables.threads.get(threadId);
  const put = (thread: ThreadRecord) => (tables.threads.set(threadId, thread), thread);
  if (change.kind === 'create') {
    if (stored !== undefined) throw new Refused({ kind: 'thread-exists', threadId });
    return put({ ...change.thread, version: 1 });
  }
  if (stored === undefined) throw new Refused({ kind: 'thread-not-found', threadId });
  const changed = new Refused({
    kind: 'thread-changed',
    threadId,
    storedVersion: stored.version,
    storedEpoch: stored.epoch,
  });
  // The claim's end is part of the fence: a unit built after the claim ran out is refused.
  const assertClaimRuns = (now: string | undefined) => {
    if (now === undefined || (stored.lease !== undefined && stored.lease.until > now)) return;
    throw new Refused({ kind: 'claim-ended', threadId, ...(stored.lease ? { until: stored.lease.until } : {}) });
  };
  const { lease: storedLease, ...unleased } = stored;
  if (change.kind === 'renew' || change.kind === 'release') {
    if (stored.epoch !== change.epoch || storedLease?.owner !== change.owner) throw changed;
    if (change.kind === 'release') return put(unleased);
    assertClaimRuns(change.now);
    return put({ ...unleased, lease: { owner: change.owner, until: change.until } });
  }
  if (stored.version !== change.expectedVersion || stored.epoch !== change.thread.epoch) throw changed;
  const { claim } = change;
  const { lease: _given, ...record } = change.thread;
  const version = stored.version + 1;
  switch (claim.kind) {
    case 'take':
      if (storedLease !== undefined && storedLease.owner !== claim.owner && storedLease.until > claim.now)
        throw new Refused({ kind: 'thread-busy', threadId, lease: storedLease });
      return put({
        ...record,
        version,
        epoch: stored.epoch + 1,
        ...(claim.release === true ? {} : { lease: { owner: claim.owner, until: claim.until } }),
      });
    case 'keep':
      assertClaimRuns(claim.now);
      return put({ ...record, version, ...(storedLease === undefined ? {} : { lease: storedLease }) });
    case 'release':
      assertClaimRuns(claim.now);
      return put({ ...record, version });
  }
}

/** An interaction change; true when it failed a pending interaction. */
function applyInteraction(tables: Tables, change: InteractionChange): boolean {
  if (change.kind === 'open') {
    tables.interactions.set(change.interaction.interactionId, change.interaction);
    return false;
  }
  const { interactionId } = change;
  const stored = tables.interactions.get(interactionId);
  const put = (interaction: InteractionRecord) => tables.interactions.set(interactionId, interaction);
  switch (change.kind) {
    case 'consume':
      if (stored?.status === 'responded') put({ ...stored, status: 'processed', updatedAt: change.at });
      return false;
    case 'fail':
      if (stored?.status !== 'pending') return false;
      put({
        ...stored,
        status: 'failed',
        failureReason: change.reason,
        failureMessage: change.message,
        updatedAt: change.at,
      });
      return true;
    default:
      break;
  }
  // The first answer wins; approvals (F51) and escalations count on a pending interaction only.
  if (stored === undefined) throw new Refused({ kind: 'interaction-not-found', interactionId });
  if (stored.status !== 'pending') throw new Refused({ kind: 'interaction-not-pending', interaction: stored });
  const progress = stored.quorum ?? { approvals: [] };
  switch (change.kind) {
    case 'answer':
      put({ ...stored, status: 'responded', response: change.response, updatedAt: change.response.respondedAt });
      return false;
    case 'escalate':
      if (progress.escalatedAt !== undefined) throw new Refused({ kind: 'quorum-changed', interaction: stored });
      put({ ...stored, quorum: { ...progress, escalatedAt: change.at }, updatedAt: change.at });
      return false;
    case 'approve-partially': {
      // Approvals of other arguments go (an edit resets the others); the count read must still hold.
      const { approval } = change;
      const same = progress.approvals.filter((given) => given.argumentsHash === approval.argumentsHash);
      if (same.length !== change.seen) throw new Refused({ kind: 'quorum-changed', interaction: stored });
      if (same.some((given) => given.responder === approval.responder)) return false;
      put({ ...stored, quorum: { ...progress, approvals: [...same, approval] }, updatedAt: approval.approvedAt });
      return false;
    }
  }
}

/** A change to a call's write-ahead record: a call starts only from a status its change allows, with the same arguments. */
function applyToolCall(tables: Tables, change: ToolCallChange): void {
  const threadId = change.kind === 'start' ? change.call.threadId : change.threadId;
  const toolCallId = change.kind === 'start' ? change.call.toolCallId : change.toolCallId;
  const key = `${threadId}\u0000${toolCallId}`;
  const stored = tables.toolCalls.get(key);
  const refused = new Refused({ kind: 'tool-call', threadId, toolCallId, ...(stored ? { stored } : {}) });
  switch (change.kind) {
    case 'start':
      if (stored && (stored.argumentsHash !== change.call.argumentsHash || !change.from.includes(stored.status)))
        throw refused;
      tables.toolCalls.set(key, { ...(stored ?? change.call), status: 'started', updatedAt: change.at });
      return;
    case 'finish':
      if (stored === undefined) throw refused;
      if (stored.status !== 'finished')
        tables.toolCalls.set(key, { ...stored, status: 'finished', outcome: change.outcome, updatedAt: change.at });
      return;
    case 'status':
      if (stored === undefined || !change.from.includes(stored.status)) throw refused;
      tables.toolCalls.set(key, { ...stored, status: change.to, updatedAt: change.at });
  }
}

function claimOf(thread: ThreadRecord): NonNullable<Extract<CommitResult, { status: 'committed' }>['thread']> {
  const { version, epoch, updatedAt, lease } = thread;
  return { version, epoch, updatedAt, ...(lease === undefined ? {} : { lease: { ...lease } }) };
}

function matches(record: object, filter: Record<string, unknown>): boolean {
  return Object.entries(filter).every(
    ([key, value]) => value === undefined || (record as Record<string, unknown>)[key] === value,
  );
}

function copy<T>(value: T | undefined): T | undefined {
  return value === undefined ? undefined : structuredClone(value);
}

/** The file as JSON: each Map as its entries, so that its order survives. */
function save(path: string, tables: Tables): void {
  const file = {
    ...tables,
    threads: [...tables.threads],
    interactions: [...tables.interactions],
    toolCalls: [...tables.toolCalls],
    globals: [...tables.globals].map(([scope, values]) => [scope, [...values]]),
    remembered: [...tables.remembered],
    definitions: [...tables.definitions],
    heads: [...tables.heads],
  };
  writeFileSync(`${path}.tmp`, JSON.stringify(file));
  renameSync(`${path}.tmp`, path);
}

function load(path: string): Tables {
  let text = '{}';
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  const file = JSON.parse(text) as Partial<Record<keyof Tables, unknown[]>>;
  const map = <V>(entries: unknown[] | undefined) => new Map((entries ?? []) as [string, V][]);
  return {
    threads: map(file.threads),
    interactions: map(file.interactions),
    toolCalls: map(file.toolCalls),
    globals: new Map(
      ((file.globals ?? []) as [string, [string, { value?: unknown }][]][]).map(([scope, values]) => [
        scope,
        new Map(values),
      ]),
    ),
    remembered: map(file.remembered),
    definitions: map(file.definitions),
    audit: (file.audit ?? []) as AuditEntry[],
    heads: map(file.heads),
    anchors: (file.anchors ?? []) as AuditAnchor[],
  };
}
