import type { InteractionFailureReason, InteractionStatus, WorkflowDefinition } from '@interlock/sdk-types';
import type { AuditEntry } from '../audit/audit-log.js';
import type { ThreadJob } from '../workers/thread-jobs.js';
import type {
  AuditHead,
  ClaimFence,
  ClaimResult,
  InteractionRecord,
  InteractionResponseRecord,
  RecordResponseResult,
  StoreChange,
  ThreadRecord,
  ThreadStatus,
  ToolExecutionRecord,
  ToolExecutionStatus,
} from './records.js';

export type * from './records.js';

/*
 * The persistence port (F21, F40), one interface per role. The engine checkpoints a thread
 * before every wait and after every node; an implementation must make `recordResponse`
 * and `failInteraction` atomic (first writer wins) and `saveThread` reject a stale
 * version. The conformance suite (`@interlock/core/testing`) checks every promise.
 */

/** Threads: created by their first claim, saved only at the version read (STORE_CONFLICT otherwise). */
export interface ThreadStore {
  /** Inserts a new thread (version 1) with the `epoch` and `lease` of the record: its creator's claim. */
  createThread(thread: ThreadRecord, jobs?: readonly ThreadJob[]): Promise<ThreadRecord>;
  /**
   * Saves a thread if its stored version is still `thread.version`; returns it with version + 1.
   * The claim (`lease`, `epoch`) is not written: claims change only through the claim methods.
   * `consumed` names the answers this save applied: those still `responded` are marked
   * `processed` in the same transaction, so an answer is never consumed apart from its effect.
   * Throws STORE_CONFLICT (and then marks nothing).
   */
  saveThread(thread: ThreadRecord, consumed?: readonly string[]): Promise<ThreadRecord>;
  getThread(threadId: string): Promise<ThreadRecord | undefined>;
  listThreads(filter?: { status?: ThreadStatus }): Promise<ThreadRecord[]>;
}

/** Claims: which process takes a thread forward, with the fencing epoch of its writes (docs/persistence.md). */
export interface ClaimStore {
  /**
   * Claims the thread for `owner` until `until`, in one conditional write: only if no live
   * claim holds it at `now` (none, or expired) and its version is still `expectedVersion`.
   * A claim increments the epoch and the version. Throws THREAD_NOT_FOUND.
   */
  claimThread(
    threadId: string,
    owner: string,
    until: string,
    now: string,
    expectedVersion: number,
  ): Promise<ClaimResult>;
  /** Extends `owner`'s claim to `until` if the thread's epoch is still the fence's; false when the claim was lost. */
  renewClaim(fence: ClaimFence, owner: string, until: string): Promise<boolean>;
  /** Frees `owner`'s claim if the thread's epoch is still the fence's. */
  releaseClaim(fence: ClaimFence, owner: string): Promise<void>;
}

/** Interactions: questions and approvals, answered once (first writer wins). */
export interface InteractionStore {
  /** Stores an interaction (fenced: refused when `fence` is stale), and schedules `jobs` (its deadline) with it, atomically. */
  createInteraction(interaction: InteractionRecord, fence?: ClaimFence, jobs?: readonly ThreadJob[]): Promise<void>;
  getInteraction(interactionId: string): Promise<InteractionRecord | undefined>;
  listInteractions(filter?: { status?: InteractionStatus; threadId?: string }): Promise<InteractionRecord[]>;
  /** Stores the answer if the interaction is still pending, and then schedules `jobs` (its continuation) in the same transaction. */
  recordResponse(
    interactionId: string,
    response: InteractionResponseRecord,
    jobs?: readonly ThreadJob[],
  ): Promise<RecordResponseResult>;
  /** Marks a pending interaction failed; returns false if it was no longer pending. */
  failInteraction(interactionId: string, reason: InteractionFailureReason, message: string): Promise<boolean>;
  // An answer is marked processed by the save that applies it: `ThreadStore.saveThread(thread, consumed)`.
}

/** Global variables, per workflow (or another scope no workflow id can take). */
export interface GlobalVariableStore {
  getGlobalVariables(workflowId: string): Promise<Record<string, unknown>>;
  /** Sets global variables, creating only the ones absent when `onlyIfAbsent`. */
  setGlobalVariables(
    workflowId: string,
    values: Record<string, unknown>,
    options?: { onlyIfAbsent?: boolean },
  ): Promise<void>;
}

/** The write-ahead record of tool calls (F40): approved → started → finished, or unknown. */
export interface ToolExecutionStore {
  /**
   * Stores the approval of a tool call before it may run. Approving the same call again with
   * the same arguments hash changes nothing; with another hash it throws STORE_CONFLICT.
   */
  recordToolApproval(
    record: Omit<ToolExecutionRecord, 'status' | 'outcome' | 'updatedAt'>,
    fence?: ClaimFence,
  ): Promise<void>;
  /**
   * Moves a call to `started` if its stored status is one of `from` and its stored hash is
   * `argumentsHash`; returns false otherwise (and the call must not run).
   */
  markToolStarted(
    threadId: string,
    toolCallId: string,
    argumentsHash: string,
    from: readonly ToolExecutionStatus[],
    at: string,
    fence?: ClaimFence,
  ): Promise<boolean>;
  /**
   * Stores the outcome of a call and marks it `finished`, unless it is `finished` already:
   * a late outcome never overwrites one stored meanwhile. Returns whether it was stored.
   */
  markToolFinished(
    threadId: string,
    toolCallId: string,
    outcome: NonNullable<ToolExecutionRecord['outcome']>,
    at: string,
    fence?: ClaimFence,
  ): Promise<boolean>;
  /** Moves a call from one of `from` to `to`; returns false if its status was not one of `from`. */
  setToolExecutionStatus(
    threadId: string,
    toolCallId: string,
    from: readonly ToolExecutionStatus[],
    to: ToolExecutionStatus,
    at: string,
    fence?: ClaimFence,
  ): Promise<boolean>;
  getToolExecution(threadId: string, toolCallId: string): Promise<ToolExecutionRecord | undefined>;
  listToolExecutions(filter?: { threadId?: string; status?: ToolExecutionStatus }): Promise<ToolExecutionRecord[]>;
}

/** The hash-chained audit log (F33, F45). */
export interface AuditStore {
  /**
   * Appends to the hash-chained audit log (F33, F45), atomically: `seal` builds the entry
   * from the chain's head (undefined for the first), and no two entries get the same
   * sequence, even from many processes: appenders queue on the head (a row lock), they
   * never fail because others append. The head moves with the entry in one transaction.
   * Fenced when `fence` is given.
   */
  appendAuditEntry(seal: (previous: AuditHead | undefined) => AuditEntry, fence?: ClaimFence): Promise<AuditEntry>;
  /** The audit log in sequence order, optionally of one thread. */
  listAuditEntries(filter?: { threadId?: string }): Promise<AuditEntry[]>;
  /** The head of the audit chain as stored apart from the entries; undefined before the first append. */
  getAuditHead(): Promise<AuditHead | undefined>;
}

/** Approvals remembered for a session (F19). */
export interface ApprovalMemoryStore {
  /** Remembers an approval ("for this session") under `key` until `expiresAt` (ms since the epoch). */
  rememberApproval(key: string, expiresAt: number): Promise<void>;
  /** Whether `key` is remembered at `now`; an expired entry is dropped. */
  isApprovalRemembered(key: string, now: number): Promise<boolean>;
}

/** The workflow definitions threads run. */
export interface DefinitionStore {
  /** Keeps a workflow definition a thread runs, so any process can resume it without the file. */
  saveWorkflowDefinition(definition: WorkflowDefinition): Promise<void>;
  getWorkflowDefinition(workflowId: string, version: string): Promise<WorkflowDefinition | undefined>;
}

/** The jobs of workers (issue 12). Every method is optional: a store that leaves them out cannot back workers. */
export interface JobStore {
  /**
   * Schedules jobs for workers (issue 12) in the store's own database; a job with the key
   * of one that waits replaces it. Stores that cannot hold jobs leave it out.
   */
  scheduleJobs?(jobs: readonly ThreadJob[]): Promise<void>;
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
}

/** The store as a whole: every role, plus change notifications, durability and closing. */
export interface ICheckpointStore
  extends
    ThreadStore,
    ClaimStore,
    InteractionStore,
    GlobalVariableStore,
    ToolExecutionStore,
    AuditStore,
    ApprovalMemoryStore,
    DefinitionStore,
    JobStore {
  /**
   * Calls `listener` for every thread or interaction added, or whose status changed, by any
   * process on this database, until the returned `stop()`. `{ table: '*' }` means changes
   * may have been missed (the connection was lost): read again. Stores that cannot (SQLite:
   * readers look at the store instead) leave it out.
   */
  watchChanges?(listener: (change: StoreChange) => void): Promise<{ stop(): Promise<void> }>;

  /**
   * Makes every write made so far durable before it resolves. A store that commits each
   * write at once (the in-memory, TypeORM and PostgreSQL stores) need not have it.
   * `'now'` commits at once; `'soon'` waits for the commit at the end of this event-loop
   * turn, so writes of other work made meanwhile share it.
   */
  flush?(when?: 'now' | 'soon'): Promise<void>;

  close(): Promise<void>;
}
