/** The records of the store (see ./checkpoint-store.ts for the port). */
import type {
  InteractionFailureReason,
  InteractionStatus,
  Message,
  ThreadError,
  ToolApprovalConfig,
  ToolCallStatus,
  UserInteractionRequest,
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
  /** Who asked for the thread, as the surface that started it names them (`web:alice`): separation of duties compares answers with it. */
  requestedBy?: string;
}

/**
 * The node that started and has not completed, with its resumable state. The state is the
 * engine's, kept as JSON and opaque to a store: the engine reads it by the kind of the node
 * (engine/node-states.ts: a question's interaction, a model turn's round and calls, a TOOL
 * node's call), `null` until the node keeps one.
 */
export interface ActiveNode {
  readonly workflowId: string;
  readonly nodeId: string;
  readonly state: unknown;
}

/** What every thread holds, whatever its status. Values are never changed in place: each change is a new record. */
interface ThreadFields {
  readonly threadId: string;
  readonly workflowId: string;
  readonly workflowVersion: string;
  readonly channel: string;
  readonly input: Readonly<Record<string, unknown>>;
  readonly frames: readonly Frame[];
  readonly variables: Readonly<Record<string, unknown>>;
  readonly conversation: readonly Message[];
  /** The workflow's tool-approval config, fixed when the thread started (F17). */
  readonly toolApproval: ToolApprovalConfig;
  /** Who the thread belongs to; approval requests carry it (F27). */
  readonly session: ThreadSession;
  /** The W3C trace context its spans join, in whichever process takes it forward (F59). */
  readonly traceparent?: string;
  /** Nodes run so far. */
  readonly steps: number;
  /** The process taking this thread forward right now, if any (see {@link ThreadLease}). */
  readonly lease?: ThreadLease;
  /**
   * The fencing token: incremented by every claim. A run's writes carry the epoch of its
   * claim, and the store refuses them once another claim took the thread (STORE_CONFLICT).
   */
  readonly epoch: number;
  /** Optimistic concurrency: incremented by every save and every claim. */
  readonly version: number;
  readonly createdAt: string;
  readonly updatedAt: string;
}

/** A thread that goes on: running (taken forward, or interrupted by a stop), or waiting for people. */
export interface LiveThread extends ThreadFields {
  readonly status: 'running' | 'waiting';
  /** Interactions this thread waits on (several at once when a model turn has several calls that need a person). */
  readonly pendingInteractionIds: readonly string[];
  /** The node that started and has not completed, with its resumable state. */
  readonly activeNode: ActiveNode | null;
  readonly output?: undefined;
  readonly error?: undefined;
}

/** A thread that ended: it waits on nothing and runs no node any more. */
interface EndedThread extends ThreadFields {
  readonly pendingInteractionIds: readonly string[];
  readonly activeNode: null;
}

/** A thread that completed, with its output (its END node's). */
export interface CompletedThread extends EndedThread {
  readonly status: 'completed';
  readonly output?: unknown;
  readonly error?: undefined;
}

/** A thread that failed, and why. */
export interface FailedThread extends EndedThread {
  readonly status: 'failed';
  readonly output?: undefined;
  readonly error?: ThreadError;
}

/** A thread that was cancelled. */
export interface CancelledThread extends EndedThread {
  readonly status: 'cancelled';
  readonly output?: undefined;
  readonly error?: undefined;
}

/**
 * A thread as stored: plain data, enough to resume it in any process, by status. Only a live
 * thread (`running`, `waiting`) has an active node; only a completed one an output, a failed
 * one an error. Readonly: the engine's values are never changed in place.
 */
export type ThreadRecord = LiveThread | CompletedThread | FailedThread | CancelledThread;

/** A thread that ended. */
export type FinishedThread = CompletedThread | FailedThread | CancelledThread;

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

/** One approval of a call that needs several (F51), stored while the call waits for the others. */
export interface GivenApproval {
  /** Who approved (`web:alice`): each approver counts once. */
  responder: string;
  /** SHA-256 of the canonical JSON of the arguments approved: only approvals of the same arguments add up. */
  argumentsHash: string;
  /** The arguments approved, when the approver edited them (otherwise the request's `toolParameters`). */
  editedParameters?: Record<string, unknown>;
  approvedAt: string;
}

/** Where a call that needs several approvals stands. */
export interface QuorumProgress {
  /** The approvals that stand, all for the same arguments (an approval of other arguments replaced the others). */
  approvals: GivenApproval[];
  /** When the call was offered to the escalation approvers. */
  escalatedAt?: string;
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
  /** The approvals given so far to a call that needs several (F51), and its escalation. */
  quorum?: QuorumProgress;
  failureReason?: InteractionFailureReason;
  failureMessage?: string;
  createdAt: string;
  updatedAt: string;
}

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

/** The end of the audit chain of a store of an older version (one global chain; see audit/audit-chain.ts). */
export type { AuditHead } from '../audit/audit-chain.js';
