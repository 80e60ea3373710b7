/*
 * The SQL of the SQLite store, on the tables the store's migrations create. Columns are
 * selected under the property names of the row types in ../sql/row-types.ts, so a row read
 * here maps to a record with the same functions as the PostgreSQL store's.
 */

export const THREAD_COLUMNS =
  't.thread_id AS threadId, t.workflow_id AS workflowId, t.workflow_version AS workflowVersion, t.status, t.channel, t.version, t.epoch, ' +
  't.lease_owner AS leaseOwner, t.lease_until AS leaseUntil, t.state, t.created_at AS createdAt, t.updated_at AS updatedAt';

export const INTERACTION_COLUMNS =
  'interaction_id AS interactionId, thread_id AS threadId, node_id AS nodeId, status, deadline, request, response, quorum, ' +
  'failure_reason AS failureReason, failure_message AS failureMessage, created_at AS createdAt, updated_at AS updatedAt';

export const TOOL_EXECUTION_COLUMNS =
  'thread_id AS threadId, tool_call_id AS toolCallId, tool_name AS toolName, arguments_hash AS argumentsHash, arguments, status, ' +
  'approved_by AS approvedBy, idempotent, outcome, created_at AS createdAt, updated_at AS updatedAt';

export const AUDIT_COLUMNS =
  'sequence, thread_sequence AS threadSequence, thread_id AS threadId, tool_call_id AS toolCallId, tool_name AS toolName, outcome, decided_by AS decidedBy, rule, reason, ' +
  'responder, stage, original_arguments AS originalArguments, edited_arguments AS editedArguments, tool_definition_hash AS toolDefinitionHash, interaction_id AS interactionId, at, previous_hash AS previousHash, hash';

/** A thread with its conversation, one row per message (a thread without messages: one row, position NULL). */
const THREAD_WITH_MESSAGES = `SELECT ${THREAD_COLUMNS}, m.position, m.message FROM threads t LEFT JOIN messages m ON m.thread_id = t.thread_id`;

/**
 * The claim's end as part of the fence of a save that keeps or frees the claim, and of a
 * renewal: `@now` is when the writer built the unit (null: not checked). ISO times compare as text.
 */
const CLAIM_RUNS = '(@now IS NULL OR (lease_until IS NOT NULL AND lease_until > @now))';

/** The store's fixed statements; named parameters (`@x`) bind the row objects of record-mapping.ts. */
export const SQL = {
  insertThread:
    'INSERT INTO threads (thread_id, workflow_id, workflow_version, status, channel, version, epoch, lease_owner, lease_until, state, created_at, updated_at) ' +
    'VALUES (@threadId, @workflowId, @workflowVersion, @status, @channel, 1, @epoch, @leaseOwner, @leaseUntil, @state, @createdAt, @updatedAt) ON CONFLICT DO NOTHING',
  /** A save under the fence: the version and epoch read; the claim kept. */
  saveThreadKeep:
    'UPDATE threads SET workflow_id = @workflowId, workflow_version = @workflowVersion, status = @status, channel = @channel, version = version + 1, ' +
    'state = @state, created_at = @createdAt, updated_at = @updatedAt ' +
    `WHERE thread_id = @threadId AND version = @expectedVersion AND epoch = @epoch AND ${CLAIM_RUNS} RETURNING version, epoch, lease_owner AS leaseOwner, lease_until AS leaseUntil`,
  /** A save that frees the claim. */
  saveThreadRelease:
    'UPDATE threads SET workflow_id = @workflowId, workflow_version = @workflowVersion, status = @status, channel = @channel, version = version + 1, ' +
    'state = @state, created_at = @createdAt, updated_at = @updatedAt, lease_owner = NULL, lease_until = NULL ' +
    `WHERE thread_id = @threadId AND version = @expectedVersion AND epoch = @epoch AND ${CLAIM_RUNS} RETURNING version, epoch, lease_owner AS leaseOwner, lease_until AS leaseUntil`,
  /** A save that takes the claim (a new epoch) if no other live claim holds the thread. */
  saveThreadTake:
    'UPDATE threads SET workflow_id = @workflowId, workflow_version = @workflowVersion, status = @status, channel = @channel, version = version + 1, ' +
    'state = @state, created_at = @createdAt, updated_at = @updatedAt, epoch = epoch + 1, lease_owner = @leaseOwner, lease_until = @leaseUntil ' +
    'WHERE thread_id = @threadId AND version = @expectedVersion AND epoch = @epoch AND (lease_owner IS NULL OR lease_owner = @owner OR lease_until <= @now) ' +
    'RETURNING version, epoch, lease_owner AS leaseOwner, lease_until AS leaseUntil',
  threadClaim:
    'SELECT version, epoch, lease_owner AS leaseOwner, lease_until AS leaseUntil FROM threads WHERE thread_id = ?',
  renewClaim: `UPDATE threads SET lease_until = @until WHERE thread_id = @threadId AND epoch = @epoch AND lease_owner = @owner AND ${CLAIM_RUNS} RETURNING version, epoch, updated_at AS updatedAt`,
  releaseClaim:
    'UPDATE threads SET lease_owner = NULL, lease_until = NULL WHERE thread_id = @threadId AND epoch = @epoch AND lease_owner = @owner RETURNING version, epoch, updated_at AS updatedAt',

  /** One thread's row; its conversation is `messagesOfThread`, read on the same snapshot (SqliteConnection.readTogether). */
  selectThread: `SELECT ${THREAD_COLUMNS} FROM threads t WHERE t.thread_id = ?`,
  messagesOfThread: 'SELECT position, message FROM messages WHERE thread_id = ? ORDER BY position ASC',
  listThreads: `${THREAD_WITH_MESSAGES} ORDER BY t.created_at ASC, t.thread_id ASC, m.position ASC`,
  /** Completed threads: most of the table, read whole. */
  listThreadsByStatus: `${THREAD_WITH_MESSAGES} WHERE t.status = ? ORDER BY t.created_at ASC, t.thread_id ASC, m.position ASC`,
  /** Failed or cancelled threads, through `idx_threads_status` (it holds only those). */
  listEndedThreadsByStatus: `${THREAD_WITH_MESSAGES} WHERE t.status = ? AND t.status IN ('failed', 'cancelled') ORDER BY t.created_at ASC, t.thread_id ASC, m.position ASC`,
  /** Running or waiting threads, from `live_threads` (CROSS JOIN: SQLite reads it first). */
  listLiveThreadsByStatus:
    `SELECT ${THREAD_COLUMNS}, m.position, m.message FROM live_threads l CROSS JOIN threads t ON t.thread_id = l.thread_id ` +
    'LEFT JOIN messages m ON m.thread_id = t.thread_id WHERE t.status = ? ORDER BY t.created_at ASC, t.thread_id ASC, m.position ASC',
  deleteMessagesFrom: 'DELETE FROM messages WHERE thread_id = ? AND position >= ?',

  upsertInteraction:
    'INSERT INTO interactions (interaction_id, thread_id, node_id, status, deadline, request, response, quorum, failure_reason, failure_message, created_at, updated_at) ' +
    'VALUES (@interactionId, @threadId, @nodeId, @status, @deadline, @request, @response, @quorum, @failureReason, @failureMessage, @createdAt, @updatedAt) ' +
    'ON CONFLICT (interaction_id) DO UPDATE SET thread_id = excluded.thread_id, node_id = excluded.node_id, status = excluded.status, ' +
    'deadline = excluded.deadline, request = excluded.request, response = excluded.response, failure_reason = excluded.failure_reason, ' +
    'failure_message = excluded.failure_message, created_at = excluded.created_at, updated_at = excluded.updated_at, quorum = excluded.quorum',
  selectInteraction: `SELECT ${INTERACTION_COLUMNS} FROM interactions WHERE interaction_id = ?`,
  threadOfInteraction: 'SELECT thread_id FROM interactions WHERE interaction_id = ?',
  interactionsOfThread: `SELECT ${INTERACTION_COLUMNS} FROM interactions WHERE thread_id = ? ORDER BY created_at ASC, rowid ASC`,
  /** An answer, or an answer consumed in the same unit (`@status` processed). */
  answerInteraction:
    "UPDATE interactions SET status = @status, response = @response, updated_at = @at WHERE interaction_id = @interactionId AND status = 'pending'",
  failInteraction:
    "UPDATE interactions SET status = 'failed', failure_reason = @reason, failure_message = @message, updated_at = @at WHERE interaction_id = @interactionId AND status = 'pending'",
  /** The approvals of a pending call (F51), written as the unit computed them under the write lock. */
  setInteractionQuorum:
    "UPDATE interactions SET quorum = @quorum, updated_at = @at WHERE interaction_id = @interactionId AND status = 'pending'",
  consumeInteraction:
    "UPDATE interactions SET status = 'processed', updated_at = @at WHERE interaction_id = @interactionId AND status = 'responded'",

  selectGlobalVariables: 'SELECT name, value FROM global_variables WHERE workflow_id = ?',
  selectGlobalVariable: 'SELECT value FROM global_variables WHERE workflow_id = ? AND name = ?',
  insertGlobalVariableIfAbsent:
    'INSERT INTO global_variables (workflow_id, name, value) VALUES (@scope, @name, @value) ON CONFLICT DO NOTHING',
  upsertGlobalVariable:
    'INSERT INTO global_variables (workflow_id, name, value) VALUES (@scope, @name, @value) ON CONFLICT (workflow_id, name) DO UPDATE SET value = excluded.value',
  deleteGlobalVariable: 'DELETE FROM global_variables WHERE workflow_id = @scope AND name = @name',

  /** A call starts: new, or from an allowed status with the same arguments. */
  startToolCall:
    'INSERT INTO tool_executions (thread_id, tool_call_id, tool_name, arguments_hash, arguments, status, approved_by, idempotent, outcome, created_at, updated_at) ' +
    "VALUES (@threadId, @toolCallId, @toolName, @argumentsHash, @arguments, 'started', @approvedBy, @idempotent, NULL, @createdAt, @at) " +
    "ON CONFLICT (thread_id, tool_call_id) DO UPDATE SET status = 'started', updated_at = excluded.updated_at " +
    'WHERE tool_executions.arguments_hash = excluded.arguments_hash AND (tool_executions.status = @from1 OR tool_executions.status = @from2)',
  finishToolCall:
    "UPDATE tool_executions SET status = 'finished', outcome = @outcome, updated_at = @at WHERE thread_id = @threadId AND tool_call_id = @toolCallId AND status <> 'finished'",
  setToolCallStatus:
    'UPDATE tool_executions SET status = @to, updated_at = @at WHERE thread_id = @threadId AND tool_call_id = @toolCallId AND (status = @from1 OR status = @from2)',
  selectToolCall: `SELECT ${TOOL_EXECUTION_COLUMNS} FROM tool_executions WHERE thread_id = ? AND tool_call_id = ?`,
  toolCallsOfThread: `SELECT ${TOOL_EXECUTION_COLUMNS} FROM tool_executions WHERE thread_id = ?`,

  /** What the next audit entry is linked to, read under the write lock: its thread's head. */
  auditHeadOfThread: 'SELECT thread_sequence AS threadSequence, hash FROM audit_thread_heads WHERE thread_id = ?',
  /**
   * Appends an entry, linked by the caller; `sequence` is the rowid, so SQLite gives the next
   * one. A trigger moves its thread's head (see the AddThreadAuditChains migration).
   */
  insertAuditEntry:
    'INSERT INTO audit_entries (sequence, thread_sequence, thread_id, tool_call_id, tool_name, outcome, decided_by, rule, reason, responder, stage, original_arguments, edited_arguments, tool_definition_hash, interaction_id, at, previous_hash, hash) ' +
    'VALUES (NULL, @threadSequence, @threadId, @toolCallId, @toolName, @outcome, @decidedBy, @rule, @reason, @responder, @stage, @originalArguments, @editedArguments, @toolDefinitionHash, @interactionId, @at, @previousHash, @hash)',
  insertAnchor:
    // Only the next anchor: its place taken, or a gap before it, inserts nothing (anchor-exists).
    'INSERT INTO audit_anchors (sequence, at, through, digest, previous_hash, hash) SELECT @sequence, @at, @through, @digest, @previousHash, @hash WHERE @sequence = (SELECT COALESCE(MAX(sequence), 0) + 1 FROM audit_anchors) ON CONFLICT DO NOTHING',
  listAuditEntries: `SELECT ${AUDIT_COLUMNS} FROM audit_entries WHERE sequence > ? ORDER BY sequence ASC`,
  listAuditEntriesOfThread: `SELECT ${AUDIT_COLUMNS} FROM audit_entries WHERE thread_id = ? AND sequence > ? ORDER BY sequence ASC`,
  auditHeads: 'SELECT thread_id AS threadId, thread_sequence AS threadSequence, hash FROM audit_thread_heads',
  auditAnchors:
    'SELECT sequence, at, through, digest, previous_hash AS previousHash, hash FROM audit_anchors ORDER BY sequence ASC',
  legacyAuditHead: 'SELECT sequence, hash FROM audit_head WHERE id = 1',

  scheduleJob:
    'INSERT INTO jobs (key, kind, thread_id, workflow_id, interaction_id, run_at, locked_by, locked_until) ' +
    'VALUES (@key, @kind, @threadId, @workflowId, @interactionId, @runAt, NULL, NULL) ' +
    'ON CONFLICT (key) DO UPDATE SET kind = excluded.kind, thread_id = excluded.thread_id, workflow_id = excluded.workflow_id, ' +
    'interaction_id = excluded.interaction_id, run_at = excluded.run_at, locked_by = NULL, locked_until = NULL',
  lockJob: 'UPDATE jobs SET locked_by = ?, locked_until = ? WHERE key = ?',
  finishJob: 'DELETE FROM jobs WHERE key = ? AND locked_by = ?',
  /** A waiting job removed; one a worker holds is left to run. */
  dropJob: 'DELETE FROM jobs WHERE key = ? AND locked_by IS NULL',

  upsertRememberedApproval:
    'INSERT INTO remembered_approvals ("key", expires_at) VALUES (@key, @expiresAt) ON CONFLICT ("key") DO UPDATE SET expires_at = excluded.expires_at',
  isRemembered: 'SELECT 1 FROM remembered_approvals WHERE "key" = ? AND expires_at > ?',

  insertWorkflowDefinitionIfAbsent:
    'INSERT INTO workflow_definitions (workflow_id, version, definition, created_at) VALUES (@workflowId, @version, @definition, @createdAt) ON CONFLICT DO NOTHING',
  selectWorkflowDefinition:
    'SELECT workflow_id AS workflowId, version, definition, created_at AS createdAt FROM workflow_definitions WHERE workflow_id = ? AND version = ?',
} as const;

/*
 * The status indexes hold only the rows someone looks up (SqliteFewerPagesPerCommit1796860800000),
 * so a commit that moves a row between two statuses a round trip goes through leaves them
 * alone. SQLite uses a partial index only for a query whose WHERE repeats the index's
 * condition: a lookup by a status the index holds adds that condition.
 */

/** The statement that lists threads of `status`: the live ones from `live_threads`, failed or cancelled ones through their index. */
export function threadsByStatus(status: string): string {
  if (status === 'running' || status === 'waiting') return SQL.listLiveThreadsByStatus;
  return status === 'failed' || status === 'cancelled' ? SQL.listEndedThreadsByStatus : SQL.listThreadsByStatus;
}

/** What a lookup of interactions by `status` adds so that `idx_interactions_status` serves it ('' for processed: read whole). */
export function interactionStatusCondition(status: string): string {
  return status === 'processed' ? '' : "status <> 'processed'";
}

/** What a lookup of tool executions by `status` adds so that `idx_tool_executions_status` serves it ('' for started and finished: read whole). */
export function toolExecutionStatusCondition(status: string): string {
  return status === 'approved' || status === 'unknown' ? "status IN ('approved', 'unknown')" : '';
}

/** The multi-row INSERT of `count` messages (`?` four per message: thread, position, message, digest). */
export function insertMessages(count: number): string {
  return `INSERT INTO messages (thread_id, position, message, digest) VALUES ${Array.from({ length: count }, () => '(?, ?, ?, ?)').join(', ')}`;
}
