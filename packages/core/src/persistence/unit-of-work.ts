/**
 * The write side of the store (F54): every durability point of a thread is one unit of
 * work, committed atomically — one transaction, one network round trip on PostgreSQL —
 * with its fence checked inside it. A unit is plain data; the engine builds it from the
 * effects of the transitions since the last durability point (engine/run.ts), and answerers
 * build small ones (an answer and its job). See docs/persistence.md.
 */
import type { InteractionFailureReason, WorkflowDefinition } from '@interlock/sdk-types';
import type { AuditAnchor } from '../audit/audit-chain.js';
import type { AuditEntry, AuditEntryInput } from '../audit/audit-entry.js';
import type { ThreadJob } from '../workers/thread-jobs.js';
import type {
  GivenApproval,
  InteractionRecord,
  InteractionResponseRecord,
  ThreadLease,
  ThreadRecord,
  ToolExecutionRecord,
  ToolExecutionStatus,
} from './records.js';

/**
 * What a unit does to the claim of the thread it saves.
 *
 * `now` (on `keep` and `release`): when the writer built the unit, by its clock. The
 * claim's end is part of the fence (F53, F54): the unit is refused (`claim-ended`) unless
 * the stored claim of its epoch still runs at `now`, even if no other process took the
 * thread yet. A run whose claim ran out by its own clock has stopped: what it built after
 * that is not written. The engine always sends it; a unit without it is fenced by its
 * version and epoch only.
 */
export type ClaimChange =
  /** Leave the lease as stored (the run holds it already). */
  | { kind: 'keep'; now?: string }
  /**
   * Take it for `owner` until `until`: only if no other live claim holds the thread at
   * `now`. The epoch goes up by one: the fencing token of every later unit of the run.
   * `release`: and let it go in the same unit (a run whose first durability point is its last).
   */
  | { kind: 'take'; owner: string; until: string; now: string; release?: true }
  /** Free it: the run stops. */
  | { kind: 'release'; now?: string };

/** The thread a unit writes. */
export type ThreadChange =
  /** A new thread, stored at version 1 with the record's `epoch` and `lease` (its creator's claim, or none). */
  | { kind: 'create'; thread: ThreadRecord }
  /**
   * The thread as it is now, stored if its version is still `expectedVersion` and its epoch
   * `thread.epoch` (for `take`: the epoch read). Version + 1. `messagesFrom` is how many of
   * `thread.conversation`'s messages are stored already and unchanged (the rest are appended);
   * `storedMessages`, how many the writer knows are stored (those from `messagesFrom` on are replaced).
   */
  | {
      kind: 'save';
      thread: ThreadRecord;
      expectedVersion: number;
      claim: ClaimChange;
      messagesFrom: number;
      storedMessages: number;
    }
  /**
   * Only the claim's `until`, if the thread's epoch is still `epoch`, `owner` holds it and
   * (given `now`, as on {@link ClaimChange}) it has not ended at `now`: a claim that ran out
   * is lost, never renewed (`claim-ended`). The version stays.
   */
  | { kind: 'renew'; threadId: string; epoch: number; owner: string; until: string; now?: string }
  /** Only frees the claim, if the thread's epoch is still `epoch` and `owner` holds it. The version stays. */
  | { kind: 'release'; threadId: string; epoch: number; owner: string };

/** A change to an interaction. */
export type InteractionChange =
  /** A new question, pending (one with the same id is replaced). */
  | { kind: 'open'; interaction: InteractionRecord }
  /** The answer, if the interaction is still pending (conflict otherwise: the first answer wins). */
  | { kind: 'answer'; interactionId: string; response: InteractionResponseRecord }
  /** Marks an answer processed: applied by the thread in this same unit. Nothing if it is not `responded`. */
  | { kind: 'consume'; interactionId: string; at: string }
  /** Fails the interaction if it is still pending; nothing otherwise (`CommitResult.failed` says which were). */
  | { kind: 'fail'; interactionId: string; reason: InteractionFailureReason; message: string; at: string }
  /**
   * One approval of a call that needs several (F51), the interaction staying pending: stored
   * if the interaction is still pending (`interaction-not-pending` otherwise) and still holds
   * exactly `seen` approvals of the same arguments hash (`quorum-changed` otherwise: read
   * again). Approvals of other arguments are dropped (an edit resets the others); a
   * responder who approved these arguments already keeps their first approval.
   */
  | { kind: 'approve-partially'; interactionId: string; approval: GivenApproval; seen: number }
  /** Records that a pending call was offered to its escalation approvers (`quorum-changed` if it was already). */
  | { kind: 'escalate'; interactionId: string; at: string };

/** What a tool-call record (the write-ahead log, F40) is written with. */
export type ToolCallDraft = Omit<ToolExecutionRecord, 'status' | 'outcome' | 'updatedAt'>;

/** A change to the write-ahead record of a tool call. */
export type ToolCallChange =
  /**
   * The call starts: stored `started` if it is new, or if it is stored with the same
   * arguments hash and a status in `from` (conflict otherwise: the call must not run).
   */
  | { kind: 'start'; call: ToolCallDraft; from: readonly ToolExecutionStatus[]; at: string }
  /** Its outcome, unless it is `finished` already (a late outcome never overwrites one stored meanwhile). */
  | {
      kind: 'finish';
      threadId: string;
      toolCallId: string;
      outcome: NonNullable<ToolExecutionRecord['outcome']>;
      at: string;
    }
  /** Moves it from one of `from` to `to` (conflict otherwise). */
  | {
      kind: 'status';
      threadId: string;
      toolCallId: string;
      from: readonly ToolExecutionStatus[];
      to: ToolExecutionStatus;
      at: string;
    };

/** A change to a global variable (F3) or another scope of named values. */
export type GlobalChange =
  | { kind: 'set'; scope: string; name: string; value: unknown }
  | { kind: 'set-if-absent'; scope: string; name: string; value: unknown }
  /**
   * Sets the value if the stored one is still `expected` (`undefined`: absent), compared as
   * canonical JSON; conflict otherwise: the writer reads again and retries its update.
   */
  | { kind: 'compare-and-set'; scope: string; name: string; expected: unknown; value: unknown }
  | { kind: 'delete'; scope: string; name: string };

/**
 * Writes global variables of the engine's own scopes (`interlock:…`) that no thread's run
 * writes: the answer desk (`AnswerDesk.keepGlobals`; apps reach it as `Interlock.keepGlobals`).
 */
export interface GlobalsKeeper {
  /** Commits `changes` as one unit; false when the store refused it (a compare-and-set found another value). */
  keepGlobals(changes: readonly GlobalChange[]): Promise<boolean>;
}

/**
 * An audit entry to append to its thread's chain (F33, F45). The store links it: the next
 * `threadSequence` of the thread, the previous entry's hash, and
 * `hash = sha256(previousHash + "\n" + threadSequence + "\n" + digest)` (`auditLink` in
 * audit/audit-chain.ts); `digest` is the SHA-256 of the entry's canonical content.
 */
export interface AuditDraft {
  entry: AuditEntryInput & { at: string };
  digest: string;
}

/**
 * An approval remembered for a session (F30): `key` until `expiresAt` (ms since the epoch),
 * filed under its `scope` (`SessionMemory.scopeKey`) so a commit can hand a worker every
 * approval of one scope (`RememberedApprovals`).
 */
export interface RememberEntry {
  key: string;
  expiresAt: number;
  scope?: string;
}

/** Everything one durability point writes, atomically. */
export interface UnitOfWork {
  thread?: ThreadChange;
  interactions?: readonly InteractionChange[];
  toolCalls?: readonly ToolCallChange[];
  audit?: readonly AuditDraft[];
  globals?: readonly GlobalChange[];
  /** Approvals remembered for a session (F30). */
  remember?: readonly RememberEntry[];
  /** Workflow definitions threads run, kept unless one with the same id and version is (the first stays). */
  definitions?: readonly WorkflowDefinition[];
  /** Jobs for workers (issue 12); one with the key of a waiting job replaces it. */
  jobs?: readonly ThreadJob[];
  /**
   * The keys of waiting jobs to remove (issue 38: the recovery of a thread the unit ends). A
   * job a worker holds right now is left to run (it finds nothing to do); after `jobs`.
   */
  dropJobs?: readonly string[];
  /** The next audit anchor (conflict if one with its sequence exists: another process anchored first). */
  anchor?: AuditAnchor;
}

/** Why a unit was refused: nothing of it was written. */
export type Conflict =
  | { kind: 'thread-exists'; threadId: string }
  | { kind: 'thread-not-found'; threadId: string }
  /** Saved or claimed since it was read (its version moved), or its claim was taken (its epoch moved). */
  | { kind: 'thread-changed'; threadId: string; storedVersion: number; storedEpoch: number }
  /** `take`: another live claim holds it. */
  | { kind: 'thread-busy'; threadId: string; lease: ThreadLease }
  /**
   * `keep`, `release` or `renew` with `now`: the claim of the unit's epoch ended before
   * `now` (its `until`), or was freed (`until` absent). Nobody else may hold it yet.
   */
  | { kind: 'claim-ended'; threadId: string; until?: string }
  | { kind: 'interaction-not-found'; interactionId: string }
  /** `answer`, `approve-partially`, `escalate`: answered, failed or processed before. */
  | { kind: 'interaction-not-pending'; interaction: InteractionRecord }
  /** `approve-partially`: the approvals changed since they were read; `escalate`: escalated before. */
  | { kind: 'quorum-changed'; interaction: InteractionRecord }
  /** `start` or `status`: the call's stored record does not allow it. */
  | { kind: 'tool-call'; threadId: string; toolCallId: string; stored?: ToolExecutionRecord }
  /** `compare-and-set`: the value changed since it was read. */
  | { kind: 'global-changed'; scope: string; name: string }
  | { kind: 'anchor-exists'; sequence: number };

/** What committing a unit came to. */
export type CommitResult =
  | {
      status: 'committed';
      /** The thread's stored version, epoch and lease after the unit (when it changed a thread). */
      thread?: { version: number; epoch: number; updatedAt: string; lease?: ThreadLease };
      /** The audit entries as stored, linked into their threads' chains. */
      audit: AuditEntry[];
      /** The interactions a `fail` change failed (the others were no longer pending). */
      failed: string[];
    }
  | { status: 'conflict'; conflict: Conflict };

/** Whether a unit writes nothing. */
export function isEmptyUnit(unit: UnitOfWork): boolean {
  return (
    unit.thread === undefined &&
    !unit.interactions?.length &&
    !unit.toolCalls?.length &&
    !unit.audit?.length &&
    !unit.globals?.length &&
    !unit.remember?.length &&
    !unit.definitions?.length &&
    !unit.jobs?.length &&
    !unit.dropJobs?.length &&
    unit.anchor === undefined
  );
}
