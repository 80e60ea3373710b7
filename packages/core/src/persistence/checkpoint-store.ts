import type {
  InteractionFailureReason,
  InteractionStatus,
  Message,
  ThreadError,
  ToolApprovalConfig,
  ToolCallStatus,
  UserInteractionRequest,
  WorkflowDefinition,
} from '@interlock/sdk-types';

export type ThreadStatus = 'running' | 'waiting' | 'completed' | 'failed' | 'cancelled';

/** One iteration state of a LOOP node. */
export interface LoopState {
  nodeId: string;
  items: unknown[];
  index: number;
  /** Loop-scope variables of the current iteration. */
  variables: Record<string, unknown>;
}

/** One workflow being run: the root, or a SUBGRAPH's child. */
export interface Frame {
  workflowId: string;
  workflowVersion: string;
  /** The node to run next; null once the frame has ended. */
  cursor: string | null;
  /** Subgraph-scope variables. */
  variables: Record<string, unknown>;
  loops: LoopState[];
  /** The SUBGRAPH node in the parent frame that started this one. */
  parentNodeId?: string;
  /** The hash of the exact definition this frame runs (see definitionHash); absent on threads stored before it was kept. */
  definitionHash?: string;
}

export interface ThreadSession {
  sessionId: string;
  chatId?: string;
  parentThreadId?: string;
}

/** A thread as stored: plain data, enough to resume it in any process. */
export interface ThreadRecord {
  threadId: string;
  workflowId: string;
  workflowVersion: string;
  status: ThreadStatus;
  channel: string;
  input: Record<string, unknown>;
  frames: Frame[];
  variables: Record<string, unknown>;
  conversation: Message[];
  /** The workflow's tool-approval config, fixed when the thread started (F17). */
  toolApproval: ToolApprovalConfig;
  /** Who the thread belongs to; approval requests carry it (F27). */
  session: ThreadSession;
  /** Interactions this thread waits on. */
  pendingInteractionIds: string[];
  /** The node that started and has not completed, with its resumable state. */
  activeNode: { workflowId: string; nodeId: string; state: unknown } | null;
  steps: number;
  output?: unknown;
  error?: ThreadError;
  /** The process taking this thread forward right now, if any (see {@link ThreadLease}). */
  lease?: ThreadLease;
  /**
   * The fencing token: incremented by every claim. A run's writes carry the epoch of its
   * claim, and the store refuses them once another claim took the thread (STORE_CONFLICT).
   */
  epoch: number;
  /** Optimistic concurrency: incremented by every save and every claim. */
  version: number;
  createdAt: string;
  updatedAt: string;
}

/**
 * The claim of the process that takes a thread forward (start, resume, continue after an
 * answer): held for the whole run, renewed while the process works (tool calls and
 * questions included), released when the run stops. Another process that gets an answer
 * for the thread only stores it: the holder applies it. A claim not renewed by `until`
 * (its holder died or froze) may be taken by another process, with a new epoch.
 */
export interface ThreadLease {
  /** The holding process's owner id. */
  owner: string;
  /** ISO 8601. */
  until: string;
}

export interface InteractionResponseRecord {
  input: unknown;
  responder?: string;
  respondedAt: string;
}

/** A change some process made to the store (see `watchChanges`). */
export type StoreChange =
  | { table: 'threads' | 'interactions'; id: string; threadId: string; status: string }
  /** Changes may have been missed: read again. */
  | { table: '*' };

export interface InteractionRecord {
  interactionId: string;
  threadId: string;
  nodeId: string;
  request: UserInteractionRequest;
  status: InteractionStatus;
  /** Absolute deadline (ISO 8601) or null. */
  deadline: string | null;
  response?: InteractionResponseRecord;
  failureReason?: InteractionFailureReason;
  failureMessage?: string;
  createdAt: string;
  updatedAt: string;
}

import type { AuditEntry } from '../audit/audit-log.js';
import type { ThreadJob } from '../workers/thread-jobs.js';

/**
 * The write-ahead record of one tool call (F40): approved → started → finished. A call that
 * started and never finished (the process died) is `unknown` unless its tool is idempotent.
 */
export type ToolExecutionStatus = 'approved' | 'started' | 'finished' | 'unknown';

export interface ToolExecutionRecord {
  threadId: string;
  toolCallId: string;
  toolName: string;
  /** SHA-256 of the canonical JSON of the arguments that may run. */
  argumentsHash: string;
  arguments: Record<string, unknown>;
  status: ToolExecutionStatus;
  /** The rule, callback or person that approved it. */
  approvedBy: string;
  idempotent: boolean;
  outcome?: { status: ToolCallStatus; output?: unknown; content: string };
  createdAt: string;
  updatedAt: string;
}

/**
 * The claim a run's writes are made under. A store refuses a fenced write atomically
 * (STORE_CONFLICT, nothing changed) when the thread's stored epoch is no longer `epoch`:
 * a process that lost its claim changes nothing.
 */
export interface ClaimFence {
  threadId: string;
  epoch: number;
}

/** What {@link ICheckpointStore.claimThread} found. */
export type ClaimResult =
  /** The thread is this owner's, with the new epoch and version. */
  | { status: 'claimed'; epoch: number; version: number }
  /** Another owner's claim is live. */
  | { status: 'busy'; lease: ThreadLease }
  /** The thread was saved since `expectedVersion` was read: read it again. */
  | { status: 'changed' };

/** The end of the audit chain, kept apart from the entries so a removed tail is detected. */
export interface AuditHead {
  sequence: number;
  hash: string;
}

/** The result of trying to store an answer: the first valid answer wins. */
export type RecordResponseResult =
  | { status: 'recorded'; interaction: InteractionRecord }
  | { status: 'not_pending'; interaction: InteractionRecord }
  | { status: 'not_found' };

/**
 * The persistence port (F21, F40). The engine checkpoints a thread before every wait and
 * after every node; an implementation must make `recordResponse` and `failInteraction`
 * atomic (first writer wins) and `saveThread` reject a stale `expectedVersion`.
 */
export interface ICheckpointStore {
  /** Inserts a new thread (version 1) with the `epoch` and `lease` of the record: its creator's claim. */
  createThread(thread: ThreadRecord, jobs?: readonly ThreadJob[]): Promise<ThreadRecord>;
  /**
   * Saves a thread if its stored version is still `thread.version`; returns it with version + 1.
   * The claim (`lease`, `epoch`) is not written: claims change only through the claim methods.
   * Throws STORE_CONFLICT.
   */
  saveThread(thread: ThreadRecord): Promise<ThreadRecord>;
  getThread(threadId: string): Promise<ThreadRecord | undefined>;
  /**
   * Claims the thread for `owner` until `until`, in one conditional write: only if no live
   * claim holds it at `now` (none, or expired) and its version is still `expectedVersion`.
   * A claim increments the epoch and the version. Throws THREAD_NOT_FOUND.
   */
  claimThread(threadId: string, owner: string, until: string, now: string, expectedVersion: number): Promise<ClaimResult>;
  /** Extends `owner`'s claim to `until` if the thread's epoch is still the fence's; false when the claim was lost. */
  renewClaim(fence: ClaimFence, owner: string, until: string): Promise<boolean>;
  /** Frees `owner`'s claim if the thread's epoch is still the fence's. */
  releaseClaim(fence: ClaimFence, owner: string): Promise<void>;
  listThreads(filter?: { status?: ThreadStatus }): Promise<ThreadRecord[]>;

  /** Stores an interaction (fenced: refused when `fence` is stale), and schedules `jobs` (its deadline) with it, atomically. */
  createInteraction(interaction: InteractionRecord, fence?: ClaimFence, jobs?: readonly ThreadJob[]): Promise<void>;
  getInteraction(interactionId: string): Promise<InteractionRecord | undefined>;
  listInteractions(filter?: { status?: InteractionStatus; threadId?: string }): Promise<InteractionRecord[]>;
  /** Stores the answer if the interaction is still pending, and then schedules `jobs` (its continuation) in the same transaction. */
  recordResponse(interactionId: string, response: InteractionResponseRecord, jobs?: readonly ThreadJob[]): Promise<RecordResponseResult>;
  /** Marks a pending interaction failed; returns false if it was no longer pending. */
  failInteraction(interactionId: string, reason: InteractionFailureReason, message: string): Promise<boolean>;
  /** Marks a responded interaction processed (fenced). */
  markProcessed(interactionId: string, fence?: ClaimFence): Promise<void>;

  getGlobalVariables(workflowId: string): Promise<Record<string, unknown>>;
  /** Sets global variables, creating only the ones absent when `onlyIfAbsent`. */
  setGlobalVariables(workflowId: string, values: Record<string, unknown>, options?: { onlyIfAbsent?: boolean }): Promise<void>;

  /**
   * Stores the approval of a tool call before it may run. Approving the same call again with
   * the same arguments hash changes nothing; with another hash it throws STORE_CONFLICT.
   */
  recordToolApproval(record: Omit<ToolExecutionRecord, 'status' | 'outcome' | 'updatedAt'>, fence?: ClaimFence): Promise<void>;
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

  /** Remembers an approval ("for this session") under `key` until `expiresAt` (ms since the epoch). */
  rememberApproval(key: string, expiresAt: number): Promise<void>;
  /** Whether `key` is remembered at `now`; an expired entry is dropped. */
  isApprovalRemembered(key: string, now: number): Promise<boolean>;

  /** Keeps a workflow definition a thread runs, so any process can resume it without the file. */
  saveWorkflowDefinition(definition: WorkflowDefinition): Promise<void>;
  getWorkflowDefinition(workflowId: string, version: string): Promise<WorkflowDefinition | undefined>;

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
  takeJobs?(workflowIds: readonly string[], owner: string, now: string, lockedUntil: string, limit: number): Promise<ThreadJob[]>;
  /** Removes a job `owner` took, unless it was scheduled again meanwhile. */
  finishJob?(key: string, owner: string): Promise<void>;

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
