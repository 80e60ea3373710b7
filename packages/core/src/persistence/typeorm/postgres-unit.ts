import { taskIdentifier, type ThreadJob } from '../../workers/thread-jobs.js';
import { auditEntryColumns, toAuditEntry, wholeMilliseconds, type AuditEntryRowWithChain } from '../sql/audit-rows.js';
import { encodeConversationFrom } from '../sql/conversation-rows.js';
import {
  toGivenApprovalRow,
  toInteractionRecord,
  toInteractionRow,
  toThreadRow,
  toToolExecutionRecord,
  toWorkflowDefinitionRow,
} from '../sql/record-mapping.js';
import type { InteractionRow, ToolExecutionRow } from '../sql/row-types.js';
import { encodeJson, encodeOptionalJson, storableText } from '../sql/stored-text.js';
import type {
  AuditDraft,
  CommitResult,
  Conflict,
  GlobalChange,
  InteractionChange,
  ThreadChange,
  ToolCallChange,
  UnitOfWork,
} from '../unit-of-work.js';

/*
 * A unit of work as the database function `interlock_commit` takes it (see the
 * AddCommitFunction migration), and its answer back as a CommitResult. Every value is
 * encoded here exactly as the SQLite store encodes its rows (../sql/record-mapping.ts):
 * ids and names checked storable, values as JSON text. The unit travels as one jsonb
 * parameter, which holds no NUL: JSON text escapes it.
 */

/** What `interlock_commit` answers. */
type Answer =
  | { status: 'committed'; thread: ThreadAnswer | null; audit: AuditEntryRowWithChain[]; failed: string[] }
  | { status: 'conflict'; conflict: WireConflict };

interface ThreadAnswer {
  version: number;
  epoch: number;
  updatedAt: string;
  leaseOwner: string | null;
  leaseUntil: string | null;
}

/** A conflict as the function reports it: stored records as rows. */
type WireConflict =
  | Exclude<Conflict, { kind: 'interaction-not-pending' | 'quorum-changed' } | { kind: 'tool-call' }>
  | { kind: 'interaction-not-pending' | 'quorum-changed'; interaction: InteractionRow }
  | { kind: 'tool-call'; threadId: string; toolCallId: string; stored: ToolExecutionRow | null };

/** The unit as the JSON text of `interlock_commit`'s parameter. `now` dates the definitions it keeps. */
export function encodeUnit(unit: UnitOfWork, now: string): string {
  return JSON.stringify({
    ...(unit.thread === undefined ? {} : { thread: encodeThread(unit.thread) }),
    ...(unit.interactions?.length ? { interactions: unit.interactions.map(encodeInteraction) } : {}),
    ...(unit.toolCalls?.length ? { toolCalls: unit.toolCalls.map(encodeToolCall) } : {}),
    ...(unit.audit?.length ? { audit: unit.audit.map(encodeAudit) } : {}),
    ...(unit.globals?.length ? { globals: unit.globals.map(encodeGlobal) } : {}),
    ...(unit.remember?.length
      ? {
          remember: unit.remember.map(({ key, expiresAt, scope }) => ({
            key: storableText(key, 'remembered approval key'),
            expiresAt: wholeMilliseconds(expiresAt, 'expiresAt'),
            ...(scope === undefined ? {} : { scope: storableText(scope, 'remembered approval scope') }),
          })),
        }
      : {}),
    ...(unit.definitions?.length
      ? { definitions: unit.definitions.map((definition) => toWorkflowDefinitionRow(definition, now)) }
      : {}),
    ...(unit.jobs?.length ? { jobs: encodeJobs(unit.jobs) } : {}),
    ...(unit.dropJobs?.length ? { dropJobs: unit.dropJobs.map((key) => storableText(key, 'job key')) } : {}),
    ...(unit.anchor === undefined ? {} : { anchor: unit.anchor }),
  });
}

function encodeThread(change: ThreadChange): object {
  switch (change.kind) {
    case 'create':
      return {
        kind: 'create',
        row: toThreadRow(change.thread, 1),
        messagesFrom: 0,
        messages: encodeConversationFrom(change.thread.threadId, change.thread.conversation, 0),
      };
    case 'save': {
      const { thread, claim } = change;
      return {
        kind: 'save',
        row: toThreadRow(thread, change.expectedVersion + 1),
        expectedVersion: change.expectedVersion,
        claim:
          claim.kind === 'take'
            ? {
                kind: 'take',
                owner: storableText(claim.owner, 'lease owner'),
                until: storableText(claim.until, 'lease until'),
                now: storableText(claim.now, 'now'),
                release: claim.release === true,
              }
            : { kind: claim.kind, ...(claim.now === undefined ? {} : { now: storableText(claim.now, 'now') }) },
        messagesFrom: change.messagesFrom,
        storedMessages: change.storedMessages,
        messages: encodeConversationFrom(thread.threadId, thread.conversation, change.messagesFrom),
      };
    }
    case 'renew':
      return {
        kind: 'renew',
        threadId: storableText(change.threadId, 'thread id'),
        epoch: change.epoch,
        owner: storableText(change.owner, 'lease owner'),
        until: storableText(change.until, 'lease until'),
        ...(change.now === undefined ? {} : { now: storableText(change.now, 'now') }),
      };
    case 'release':
      return {
        kind: 'release',
        threadId: storableText(change.threadId, 'thread id'),
        epoch: change.epoch,
        owner: storableText(change.owner, 'lease owner'),
      };
  }
}

function encodeInteraction(change: InteractionChange): object {
  switch (change.kind) {
    case 'open':
      return { kind: 'open', row: toInteractionRow(change.interaction) };
    case 'answer': {
      const { interactionId, response } = change;
      return {
        kind: 'answer',
        interactionId: storableText(interactionId, 'interaction id'),
        response: encodeJson(response, `the response to interaction ${interactionId}`),
        at: storableText(response.respondedAt, 'respondedAt'),
      };
    }
    case 'consume':
      return {
        kind: 'consume',
        interactionId: storableText(change.interactionId, 'interaction id'),
        at: storableText(change.at, 'at'),
      };
    case 'fail':
      return {
        kind: 'fail',
        interactionId: storableText(change.interactionId, 'interaction id'),
        reason: storableText(change.reason, 'failure reason'),
        message: encodeJson(change.message, `the failure message of interaction ${change.interactionId}`),
        at: storableText(change.at, 'at'),
      };
    case 'approve-partially':
      return {
        kind: 'approve-partially',
        interactionId: storableText(change.interactionId, 'interaction id'),
        approval: toGivenApprovalRow(change.approval, change.interactionId),
        seen: change.seen,
      };
    case 'escalate':
      return {
        kind: 'escalate',
        interactionId: storableText(change.interactionId, 'interaction id'),
        at: storableText(change.at, 'at'),
      };
  }
}

function encodeToolCall(change: ToolCallChange): object {
  const at = storableText(change.at, 'at');
  switch (change.kind) {
    case 'start': {
      const { call } = change;
      return {
        kind: 'start',
        call: {
          threadId: storableText(call.threadId, 'thread id'),
          toolCallId: storableText(call.toolCallId, 'tool call id'),
          toolName: storableText(call.toolName, 'tool name'),
          argumentsHash: storableText(call.argumentsHash, 'arguments hash'),
          arguments: encodeJson(call.arguments, `the arguments of tool call ${call.toolCallId}`),
          approvedBy: storableText(call.approvedBy, 'approvedBy'),
          idempotent: call.idempotent,
          createdAt: storableText(call.createdAt, 'createdAt'),
        },
        from: change.from,
        at,
      };
    }
    case 'finish':
      return {
        kind: 'finish',
        threadId: storableText(change.threadId, 'thread id'),
        toolCallId: storableText(change.toolCallId, 'tool call id'),
        outcome: encodeJson(change.outcome, `the outcome of tool call ${change.toolCallId}`),
        at,
      };
    case 'status':
      return {
        kind: 'status',
        threadId: storableText(change.threadId, 'thread id'),
        toolCallId: storableText(change.toolCallId, 'tool call id'),
        from: change.from,
        to: change.to,
        at,
      };
  }
}

function encodeAudit({ entry, digest }: AuditDraft): object {
  return { digest, entry: auditEntryColumns(entry) };
}

function encodeGlobal(change: GlobalChange): object {
  const scope = storableText(change.scope, 'global variable scope');
  const name = storableText(change.name, 'global variable name');
  const what = `global variable ${name} of ${scope}`;
  switch (change.kind) {
    case 'delete':
      return { kind: 'delete', scope, name };
    case 'compare-and-set':
      return {
        kind: 'compare-and-set',
        scope,
        name,
        value: encodeOptionalJson(change.value, what),
        // As the value read was stored, so the texts are equal when it did not change; the
        // function compares them as JSON values otherwise (interlock_same_json).
        expected: encodeOptionalJson(change.expected, what),
      };
    default:
      return { kind: change.kind, scope, name, value: encodeOptionalJson(change.value, what) };
  }
}

/**
 * Jobs as graphile-worker's `job_spec` rows (`add_jobs`), one per key: a later job of the
 * same key replaces an earlier one, as it would in the queue.
 */
function encodeJobs(jobs: readonly ThreadJob[]): object[] {
  const byKey = new Map<string, ThreadJob>();
  for (const job of jobs) {
    byKey.delete(job.key);
    byKey.set(job.key, job);
  }
  // The payload travels as JSON text (graphile-worker's `json`, which keeps what jsonb cannot: a
  // NUL); `interlock_commit` adds `remembered` to a job that names its scope (issue 38).
  return [...byKey.values()].map(({ remembered: _, ...job }) => ({
    identifier: taskIdentifier(job.workflowId),
    payload: JSON.stringify(job),
    runAt: storableText(job.runAt, 'runAt'),
    key: storableText(job.key, 'job key'),
    ...(job.rememberedScope === undefined
      ? {}
      : { rememberedScope: storableText(job.rememberedScope, 'remembered approval scope') }),
  }));
}

/** The CommitResult of `interlock_commit`'s answer. */
export function decodeAnswer(answer: Answer): CommitResult {
  if (answer.status === 'conflict') return { status: 'conflict', conflict: decodeConflict(answer.conflict) };
  const { thread } = answer;
  return {
    status: 'committed',
    ...(thread === null
      ? {}
      : {
          thread: {
            version: thread.version,
            epoch: thread.epoch,
            updatedAt: thread.updatedAt,
            ...(thread.leaseOwner === null || thread.leaseUntil === null
              ? {}
              : { lease: { owner: thread.leaseOwner, until: thread.leaseUntil } }),
          },
        }),
    audit: answer.audit.map(toAuditEntry),
    failed: answer.failed,
  };
}

function decodeConflict(conflict: WireConflict): Conflict {
  switch (conflict.kind) {
    case 'interaction-not-pending':
    case 'quorum-changed':
      return { kind: conflict.kind, interaction: toInteractionRecord(conflict.interaction) };
    case 'tool-call': {
      const { stored, ...rest } = conflict;
      return { ...rest, ...(stored === null ? {} : { stored: toToolExecutionRecord(stored) }) };
    }
    default:
      return conflict;
  }
}
