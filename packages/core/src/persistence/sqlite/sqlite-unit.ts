import type BetterSqlite3 from 'better-sqlite3';
import { GENESIS, auditLink, type AuditThreadHead } from '../../audit/audit-chain.js';
import type { AuditEntry } from '../../audit/audit-log.js';
import { canonicalJson } from '../../policy/canonical-arguments.js';
import { auditEntryColumns, toAuditEntry } from '../sql/audit-rows.js';
import { encodeConversationFrom } from '../sql/conversation-rows.js';
import { applyQuorumChange } from '../quorum-change.js';
import {
  encodeQuorum,
  toInteractionRecord,
  toInteractionRow,
  toThreadRow,
  toToolExecutionRecord,
  toWorkflowDefinitionRow,
} from '../sql/record-mapping.js';
import type { InteractionRow, ToolExecutionRow } from '../sql/row-types.js';
import { decodeOptionalJson, encodeJson, encodeOptionalJson, storableText } from '../sql/stored-text.js';
import type { ThreadLease } from '../records.js';
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
import { insertMessages, SQL } from './sqlite-statements.js';

/* eslint-disable @typescript-eslint/only-throw-error -- Refused is a signal caught within the commit (no stack to capture), never an error a caller sees */

/** Thrown inside a unit to refuse it; the transaction is rolled back. */
export class Refused {
  constructor(readonly conflict: Conflict) {}
}

type Statement = (sql: string) => BetterSqlite3.Statement;

/** SQLite stores a boolean as 0 or 1, whatever the row's type says. */
export function sqliteBoolean(value: unknown): boolean {
  return value === true || value === 1;
}
type Committed = Extract<CommitResult, { status: 'committed' }>;

/**
 * Applies a unit of work inside the connection's open transaction (the caller rolls it
 * back when this throws): every change as one or two statements, its preconditions
 * checked by the statement itself (the conditional write holds: this connection holds the
 * database's write lock).
 */
export function applyUnit(statement: Statement, unit: UnitOfWork, now: string): Committed {
  const thread = unit.thread === undefined ? undefined : applyThread(statement, unit.thread, now);
  const failed: string[] = [];
  const interactions = unit.interactions ?? [];
  // An answer consumed in the same unit is written processed at once: one statement.
  const consumed = new Map(
    interactions.flatMap((change) => (change.kind === 'consume' ? [[change.interactionId, change.at] as const] : [])),
  );
  const answered = new Set<string>();
  for (const change of interactions) {
    if (change.kind === 'consume' && answered.has(change.interactionId)) continue;
    if (applyInteraction(statement, change, consumed) && change.kind === 'fail') failed.push(change.interactionId);
    if (change.kind === 'answer') answered.add(change.interactionId);
  }
  for (const change of unit.toolCalls ?? []) applyToolCall(statement, change);
  const audit: AuditEntry[] = [];
  for (const { entry, digest } of unit.audit ?? []) audit.push(appendAudit(statement, entry, digest));
  for (const change of unit.globals ?? []) applyGlobal(statement, change);
  for (const { key, expiresAt } of unit.remember ?? [])
    statement(SQL.upsertRememberedApproval).run({ key: storableText(key, 'remembered approval key'), expiresAt });
  for (const definition of unit.definitions ?? [])
    statement(SQL.insertWorkflowDefinitionIfAbsent).run(toWorkflowDefinitionRow(definition, now));
  // The store's jobs table keeps no payload: a job's carried thread is read again when it runs.
  for (const { stored: _stored, ...job } of unit.jobs ?? [])
    statement(SQL.scheduleJob).run({ interactionId: null, ...job });
  for (const key of unit.dropJobs ?? []) statement(SQL.dropJob).run(key);
  if (unit.anchor !== undefined && statement(SQL.insertAnchor).run(unit.anchor).changes !== 1)
    throw new Refused({ kind: 'anchor-exists', sequence: unit.anchor.sequence });
  return { status: 'committed', ...(thread === undefined ? {} : { thread }), audit, failed };
}

interface ClaimRow {
  version: number;
  epoch: number;
  leaseOwner: string | null;
  leaseUntil: string | null;
}

function leaseOf(row: ClaimRow): ThreadLease | undefined {
  return row.leaseOwner === null || row.leaseUntil === null
    ? undefined
    : { owner: row.leaseOwner, until: row.leaseUntil };
}

function applyThread(statement: Statement, change: ThreadChange, now: string): NonNullable<Committed['thread']> {
  if (change.kind === 'create') {
    const { thread } = change;
    const row = toThreadRow(thread, 1);
    if (statement(SQL.insertThread).run(row).changes !== 1)
      throw new Refused({ kind: 'thread-exists', threadId: thread.threadId });
    writeMessages(statement, thread.threadId, thread.conversation, 0, 0);
    const lease = thread.lease;
    return { version: 1, epoch: thread.epoch, updatedAt: thread.updatedAt, ...(lease === undefined ? {} : { lease }) };
  }
  if (change.kind === 'renew' || change.kind === 'release') {
    const sql = change.kind === 'renew' ? SQL.renewClaim : SQL.releaseClaim;
    const now = change.kind === 'renew' ? (change.now ?? null) : null;
    const row = statement(sql).get({ ...change, until: change.kind === 'renew' ? change.until : null, now }) as
      { version: number; epoch: number; updatedAt: string } | undefined;
    if (row === undefined)
      throw refusedThread(statement, change.threadId, { epoch: change.epoch, owner: change.owner, now });
    return {
      version: row.version,
      epoch: row.epoch,
      updatedAt: row.updatedAt,
      ...(change.kind === 'renew' ? { lease: { owner: change.owner, until: change.until } } : {}),
    };
  }
  const { thread, claim } = change;
  const row = { ...toThreadRow(thread, change.expectedVersion + 1), expectedVersion: change.expectedVersion };
  let saved: ClaimRow | undefined;
  if (claim.kind === 'take') {
    // Taken and let go in one unit: a new epoch, and no lease.
    const held = claim.release !== true;
    saved = statement(SQL.saveThreadTake).get({
      ...row,
      owner: claim.owner,
      now: claim.now,
      leaseOwner: held ? claim.owner : null,
      leaseUntil: held ? claim.until : null,
    }) as ClaimRow | undefined;
  } else
    saved = statement(claim.kind === 'keep' ? SQL.saveThreadKeep : SQL.saveThreadRelease).get({
      ...row,
      now: claim.now ?? null,
    }) as ClaimRow | undefined;
  if (saved === undefined)
    throw refusedThread(
      statement,
      thread.threadId,
      claim.kind === 'take'
        ? { take: claim, version: change.expectedVersion, epoch: thread.epoch }
        : { version: change.expectedVersion, epoch: thread.epoch, now: claim.now ?? null },
    );
  writeMessages(statement, thread.threadId, thread.conversation, change.messagesFrom, change.storedMessages);
  const lease = leaseOf(saved);
  return {
    version: saved.version,
    epoch: saved.epoch,
    updatedAt: thread.updatedAt || now,
    ...(lease === undefined ? {} : { lease }),
  };
}

/**
 * Why a thread write matched no row: the thread is missing, another claim holds it, it moved
 * on, or — still at the version and epoch the write expected — its claim ended before `now`.
 */
function refusedThread(
  statement: Statement,
  threadId: string,
  expected:
    | { take: { owner: string; now: string }; version: number; epoch: number }
    | { version?: number; epoch: number; owner?: string; now: string | null },
): Refused {
  const stored = statement(SQL.threadClaim).get(threadId) as ClaimRow | undefined;
  if (stored === undefined) return new Refused({ kind: 'thread-not-found', threadId });
  const lease = leaseOf(stored);
  if ('take' in expected) {
    const { take } = expected;
    // The version and epoch first: a take from a stale read is thread-changed, whoever holds the claim.
    if (
      stored.version === expected.version &&
      stored.epoch === expected.epoch &&
      lease !== undefined &&
      lease.owner !== take.owner &&
      lease.until > take.now
    )
      return new Refused({ kind: 'thread-busy', threadId, lease });
  } else if (
    expected.now !== null &&
    stored.epoch === expected.epoch &&
    (expected.version === undefined || stored.version === expected.version) &&
    (expected.owner === undefined || stored.leaseOwner === null || stored.leaseOwner === expected.owner) &&
    (stored.leaseUntil === null || stored.leaseUntil <= expected.now)
  )
    return new Refused({
      kind: 'claim-ended',
      threadId,
      ...(stored.leaseUntil === null ? {} : { until: stored.leaseUntil }),
    });
  return new Refused({ kind: 'thread-changed', threadId, storedVersion: stored.version, storedEpoch: stored.epoch });
}

/** Stores the messages from `from` on (those before are stored and unchanged), replacing any stored from there. */
function writeMessages(
  statement: Statement,
  threadId: string,
  conversation: readonly unknown[],
  from: number,
  stored: number,
): void {
  if (from < stored) statement(SQL.deleteMessagesFrom).run(threadId, from);
  const messages = encodeConversationFrom(threadId, conversation, from);
  if (messages.length === 0) return;
  statement(insertMessages(messages.length)).run(
    messages.flatMap((message, index) => [threadId, from + index, message, '']),
  );
}

/** Applies an interaction change; returns true when it failed a pending interaction. */
function applyInteraction(
  statement: Statement,
  change: InteractionChange,
  consumed: ReadonlyMap<string, string>,
): boolean {
  switch (change.kind) {
    case 'open':
      statement(SQL.upsertInteraction).run(toInteractionRow(change.interaction));
      return false;
    case 'answer': {
      const { interactionId, response } = change;
      const updated = statement(SQL.answerInteraction).run({
        interactionId,
        status: consumed.has(interactionId) ? 'processed' : 'responded',
        response: encodeJson(response, `the response to interaction ${interactionId}`),
        // Consumed in the same unit: stamped as the consume would have stamped it.
        at: storableText(consumed.get(interactionId) ?? response.respondedAt, 'respondedAt'),
      });
      if (updated.changes === 1) return false;
      const stored = statement(SQL.selectInteraction).get(interactionId) as InteractionRow | undefined;
      throw new Refused(
        stored === undefined
          ? { kind: 'interaction-not-found', interactionId }
          : { kind: 'interaction-not-pending', interaction: toInteractionRecord(stored) },
      );
    }
    case 'consume':
      statement(SQL.consumeInteraction).run({ interactionId: change.interactionId, at: change.at });
      return false;
    case 'fail':
      return (
        statement(SQL.failInteraction).run({
          interactionId: change.interactionId,
          reason: change.reason,
          message: encodeJson(change.message, `the failure message of interaction ${change.interactionId}`),
          at: change.at,
        }).changes === 1
      );
    case 'approve-partially':
    case 'escalate': {
      const row = statement(SQL.selectInteraction).get(change.interactionId) as InteractionRow | undefined;
      const applied = applyQuorumChange(row === undefined ? undefined : toInteractionRecord(row), change);
      if (applied === 'unchanged') return false;
      if ('conflict' in applied) throw new Refused(applied.conflict);
      const { next } = applied;
      statement(SQL.setInteractionQuorum).run({
        interactionId: change.interactionId,
        quorum: next.quorum === undefined ? null : encodeQuorum(next.quorum, change.interactionId),
        at: storableText(next.updatedAt, 'at'),
      });
      return false;
    }
  }
}

function applyToolCall(statement: Statement, change: ToolCallChange): void {
  const threadId = change.kind === 'start' ? change.call.threadId : change.threadId;
  const toolCallId = change.kind === 'start' ? change.call.toolCallId : change.toolCallId;
  const refused = () => {
    const stored = statement(SQL.selectToolCall).get(threadId, toolCallId) as ToolExecutionRow | undefined;
    return new Refused({
      kind: 'tool-call',
      threadId,
      toolCallId,
      ...(stored === undefined
        ? {}
        : { stored: toToolExecutionRecord({ ...stored, idempotent: sqliteBoolean(stored.idempotent) }) }),
    });
  };
  switch (change.kind) {
    case 'start': {
      const { call } = change;
      const [from1 = 'approved', from2 = from1] = change.from;
      const started = statement(SQL.startToolCall).run({
        threadId: storableText(call.threadId, 'thread id'),
        toolCallId: storableText(call.toolCallId, 'tool call id'),
        toolName: storableText(call.toolName, 'tool name'),
        argumentsHash: call.argumentsHash,
        arguments: encodeJson(call.arguments, `the arguments of tool call ${call.toolCallId}`),
        approvedBy: storableText(call.approvedBy, 'approvedBy'),
        idempotent: call.idempotent ? 1 : 0,
        createdAt: call.createdAt,
        at: change.at,
        from1,
        from2,
      });
      if (started.changes !== 1) throw refused();
      return;
    }
    case 'finish': {
      const finished = statement(SQL.finishToolCall).run({
        threadId,
        toolCallId,
        outcome: encodeJson(change.outcome, `the outcome of tool call ${toolCallId}`),
        at: change.at,
      });
      // Finished before: a late outcome never overwrites it. Missing: refused.
      if (finished.changes === 0 && statement(SQL.selectToolCall).get(threadId, toolCallId) === undefined)
        throw refused();
      return;
    }
    case 'status': {
      const [from1 = change.to, from2 = from1] = change.from;
      if (
        statement(SQL.setToolCallStatus).run({ threadId, toolCallId, to: change.to, at: change.at, from1, from2 })
          .changes !== 1
      )
        throw refused();
      return;
    }
  }
}

/** Appends an entry to its thread's chain: linked to the thread's head, which the table's trigger then moves. */
function appendAudit(statement: Statement, entry: AuditDraft['entry'], digest: string): AuditEntry {
  const columns = auditEntryColumns(entry);
  const head = statement(SQL.auditHeadOfThread).get(columns.threadId) as AuditThreadHead | undefined;
  const threadSequence = (head?.threadSequence ?? 0) + 1;
  const previousHash = head?.hash ?? GENESIS;
  const linked = { ...columns, threadSequence, previousHash, hash: auditLink(previousHash, threadSequence, digest) };
  // `sequence` is the table's rowid: SQLite gives the entry the next one (the last + 1).
  const { lastInsertRowid } = statement(SQL.insertAuditEntry).run(linked);
  return toAuditEntry({ ...linked, sequence: Number(lastInsertRowid) });
}

function applyGlobal(statement: Statement, change: GlobalChange): void {
  const scope = storableText(change.scope, 'global variable scope');
  const name = storableText(change.name, 'global variable name');
  const what = `global variable ${name} of ${scope}`;
  switch (change.kind) {
    case 'set':
      statement(SQL.upsertGlobalVariable).run({ scope, name, value: encodeOptionalJson(change.value, what) });
      return;
    case 'set-if-absent':
      statement(SQL.insertGlobalVariableIfAbsent).run({ scope, name, value: encodeOptionalJson(change.value, what) });
      return;
    case 'delete':
      statement(SQL.deleteGlobalVariable).run({ scope, name });
      return;
    case 'compare-and-set': {
      const stored = statement(SQL.selectGlobalVariable).get(scope, name) as { value: string | null } | undefined;
      const current = stored === undefined ? undefined : canonicalJson(decodeOptionalJson(stored.value, what) ?? null);
      const expected = change.expected === undefined ? undefined : canonicalJson(change.expected);
      if (current !== expected) throw new Refused({ kind: 'global-changed', scope, name });
      statement(SQL.upsertGlobalVariable).run({ scope, name, value: encodeOptionalJson(change.value, what) });
      return;
    }
  }
}
