import type { InteractionStatus, WorkflowDefinition } from '@interlock/sdk-types';
import type { AuditAnchor, AuditHead, AuditThreadHead } from '../audit/audit-chain.js';
import type { AuditEntry } from '../audit/audit-entry.js';
import type { ThreadJob } from '../workers/thread-jobs.js';
import type {
  InteractionRecord,
  StoreChange,
  ThreadRecord,
  ThreadStatus,
  ToolExecutionRecord,
  ToolExecutionStatus,
} from './records.js';
import type { CommitResult, UnitOfWork } from './unit-of-work.js';

export type * from './records.js';
export type * from './unit-of-work.js';

/** A thread with what a run of it reads before it goes on: its interactions and its tool calls' records. */
export interface StoredThread {
  thread: ThreadRecord;
  /** Every interaction of the thread, oldest first. */
  interactions: InteractionRecord[];
  /** The write-ahead records of its tool calls. */
  toolCalls: ToolExecutionRecord[];
  /** Its scope's remembered approvals, when the copy came with them (a worker's job on PostgreSQL). */
  remembered?: RememberedApprovals;
}

/**
 * Every approval remembered for one scope (F30), as the commit that added a worker's job saw
 * it (issue 38): `entries` maps each key to when it expires (ms since the epoch). A worker
 * decides from it instead of reading the store: one remembered after that commit only makes
 * it ask a person again, and none is ever taken back before it expires.
 */
export interface RememberedApprovals {
  /** `SessionMemory.scopeKey` of the scope. */
  scope: string;
  entries: Readonly<Record<string, number>>;
}

/** What the audit's verification compares the entries with (see audit/audit-chain.ts). */
export interface StoredAuditEvidence {
  heads: AuditThreadHead[];
  anchors: AuditAnchor[];
  /** The head of the entries written before per-thread chains; null when the store records none. */
  legacyHead: AuditHead | null;
}

/**
 * The persistence port (F21, F40, F54; docs/persistence.md). One write: `commit(unit)`
 * applies a unit of work atomically — every change of one durability point, the fence
 * checked inside it — and says why when it refuses one (a conflict, nothing written).
 * Everything else reads. The conformance suite (`@interlock/core/testing/conformance`)
 * checks every promise.
 */
export interface ICheckpointStore {
  /**
   * Applies every change of `unit`, in one transaction, or none. Conflicts (a stale version
   * or epoch, a live claim, an answer already given, a tool call that may not start, a
   * global that changed) are results, not throws.
   *
   * @throws InterlockError STORE_UNAVAILABLE when nothing was written (the database is away);
   * STORE_OUTCOME_UNKNOWN when the commit may or may not have happened (read back, then go on).
   */
  commit(unit: UnitOfWork): Promise<CommitResult>;

  getThread(threadId: string): Promise<ThreadRecord | undefined>;
  /** The thread, its interactions and its tool calls' records, read as of one moment. */
  loadThread(threadId: string): Promise<StoredThread | undefined>;
  listThreads(filter?: { status?: ThreadStatus }): Promise<ThreadRecord[]>;

  getInteraction(interactionId: string): Promise<InteractionRecord | undefined>;
  /**
   * Optional: the thread an interaction belongs to, loaded as `loadThread` loads it (its
   * interactions include this one), in one read where the store can (PostgreSQL: one
   * network round trip for an answer's checks). Undefined when either is missing.
   */
  loadThreadOf?(interactionId: string): Promise<StoredThread | undefined>;
  /** Oldest first. */
  listInteractions(filter?: { status?: InteractionStatus; threadId?: string }): Promise<InteractionRecord[]>;

  listToolExecutions(filter?: { threadId?: string; status?: ToolExecutionStatus }): Promise<ToolExecutionRecord[]>;

  /** The audit log in sequence order, optionally of one thread, or only the entries after `after`. */
  listAuditEntries(filter?: { threadId?: string; after?: number }): Promise<AuditEntry[]>;
  readAuditEvidence(): Promise<StoredAuditEvidence>;

  /** The values of a scope of global variables (a workflow's id, or a scope of Interlock's own). */
  getGlobalVariables(scope: string): Promise<Record<string, unknown>>;
  /** Whether `key` is remembered at `now` (ms since the epoch). */
  isApprovalRemembered(key: string, now: number): Promise<boolean>;
  getWorkflowDefinition(workflowId: string, version: string): Promise<WorkflowDefinition | undefined>;

  /**
   * The store as its own job queue (SQLite, memory): locks and returns up to `limit` due
   * jobs of these workflows for `owner` until `lockedUntil`; a job whose lock ran out (its
   * worker died) is due again. Stores whose jobs a queue of its own runs (PostgreSQL) leave it out.
   */
  takeJobs?(
    workflowIds: readonly string[],
    owner: string,
    now: string,
    lockedUntil: string,
    limit: number,
  ): Promise<ThreadJob[]>;
  /** Removes a job `owner` took, unless it was scheduled again meanwhile. */
  finishJob?(key: string, owner: string): Promise<void>;

  /**
   * Calls `listener` for every thread or interaction added, or whose status changed, by any
   * process on this database, until the returned `stop()`. `{ table: '*' }` means changes
   * may have been missed (the connection was lost): read again. Stores that cannot (SQLite:
   * readers look at the store instead) leave it out.
   */
  watchChanges?(listener: (change: StoreChange) => void): Promise<{ stop(): Promise<void> }>;

  close(): Promise<void>;
}
