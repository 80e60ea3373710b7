/*
 * The SQL of the SQLite store, on the tables the TypeORM migrations create. Columns are
 * selected under the property names of the row types in ../sql/row-types.ts, so
 * a row read here maps to a record with the same functions as the TypeORM store's.
 */

export const THREAD_COLUMNS =
  'thread_id AS threadId, workflow_id AS workflowId, workflow_version AS workflowVersion, status, channel, version, epoch, ' +
  'lease_owner AS leaseOwner, lease_until AS leaseUntil, state, created_at AS createdAt, updated_at AS updatedAt';

export const INTERACTION_COLUMNS =
  'interaction_id AS interactionId, thread_id AS threadId, node_id AS nodeId, status, deadline, request, response, ' +
  'failure_reason AS failureReason, failure_message AS failureMessage, created_at AS createdAt, updated_at AS updatedAt';

export const TOOL_EXECUTION_COLUMNS =
  'thread_id AS threadId, tool_call_id AS toolCallId, tool_name AS toolName, arguments_hash AS argumentsHash, arguments, status, ' +
  'approved_by AS approvedBy, idempotent, outcome, created_at AS createdAt, updated_at AS updatedAt';

export const AUDIT_COLUMNS =
  'sequence, thread_id AS threadId, tool_call_id AS toolCallId, tool_name AS toolName, outcome, decided_by AS decidedBy, rule, reason, ' +
  'responder, stage, original_arguments AS originalArguments, edited_arguments AS editedArguments, tool_definition_hash AS toolDefinitionHash, interaction_id AS interactionId, at, previous_hash AS previousHash, hash';

/** The store's fixed statements; named parameters (`@x`) bind the row objects of record-mapping.ts. */
export const SQL = {
  insertThread:
    'INSERT INTO threads (thread_id, workflow_id, workflow_version, status, channel, version, epoch, lease_owner, lease_until, state, created_at, updated_at) ' +
    'VALUES (@threadId, @workflowId, @workflowVersion, @status, @channel, @version, @epoch, @leaseOwner, @leaseUntil, @state, @createdAt, @updatedAt)',
  // The claim (epoch, lease) is not the saver's to write.
  updateThread:
    'UPDATE threads SET workflow_id = @workflowId, workflow_version = @workflowVersion, status = @status, channel = @channel, version = @version, ' +
    'state = @state, created_at = @createdAt, updated_at = @updatedAt ' +
    'WHERE thread_id = @threadId AND version = @expectedVersion',
  threadVersion: 'SELECT version FROM threads WHERE thread_id = ?',
  selectThread: `SELECT ${THREAD_COLUMNS} FROM threads WHERE thread_id = ?`,
  listThreads: `SELECT ${THREAD_COLUMNS} FROM threads ORDER BY created_at ASC, thread_id ASC`,
  listThreadsByStatus: `SELECT ${THREAD_COLUMNS} FROM threads WHERE status = ? ORDER BY created_at ASC, thread_id ASC`,
  claimThread:
    'UPDATE threads SET lease_owner = @owner, lease_until = @until, epoch = epoch + 1, version = version + 1 ' +
    'WHERE thread_id = @threadId AND (lease_owner IS NULL OR lease_until <= @now) AND version = @expectedVersion RETURNING epoch, version',
  threadClaim:
    'SELECT version, epoch, lease_owner AS leaseOwner, lease_until AS leaseUntil FROM threads WHERE thread_id = ?',
  renewClaim:
    'UPDATE threads SET lease_until = @until WHERE thread_id = @threadId AND epoch = @epoch AND lease_owner = @owner',
  releaseClaim:
    'UPDATE threads SET lease_owner = NULL, lease_until = NULL WHERE thread_id = @threadId AND epoch = @epoch AND lease_owner = @owner',
  threadEpoch: 'SELECT epoch FROM threads WHERE thread_id = ?',

  lastMessage: 'SELECT position, digest FROM messages WHERE thread_id = ? ORDER BY position DESC LIMIT 1',
  messageDigests: 'SELECT position, digest FROM messages WHERE thread_id = ? ORDER BY position ASC',
  deleteMessagesFrom: 'DELETE FROM messages WHERE thread_id = ? AND position >= ?',
  insertMessage: 'INSERT INTO messages (thread_id, position, message, digest) VALUES (?, ?, ?, ?)',
  selectConversation: 'SELECT position, message FROM messages WHERE thread_id = ? ORDER BY position ASC',

  upsertInteraction:
    'INSERT INTO interactions (interaction_id, thread_id, node_id, status, deadline, request, response, failure_reason, failure_message, created_at, updated_at) ' +
    'VALUES (@interactionId, @threadId, @nodeId, @status, @deadline, @request, @response, @failureReason, @failureMessage, @createdAt, @updatedAt) ' +
    'ON CONFLICT (interaction_id) DO UPDATE SET thread_id = excluded.thread_id, node_id = excluded.node_id, status = excluded.status, ' +
    'deadline = excluded.deadline, request = excluded.request, response = excluded.response, failure_reason = excluded.failure_reason, ' +
    'failure_message = excluded.failure_message, created_at = excluded.created_at, updated_at = excluded.updated_at',
  selectInteraction: `SELECT ${INTERACTION_COLUMNS} FROM interactions WHERE interaction_id = ?`,
  respondToInteraction:
    "UPDATE interactions SET status = 'responded', response = ?, updated_at = ? WHERE interaction_id = ? AND status = 'pending'",
  failInteraction:
    "UPDATE interactions SET status = 'failed', failure_reason = ?, failure_message = ?, updated_at = ? WHERE interaction_id = ? AND status = 'pending'",
  markProcessed:
    "UPDATE interactions SET status = 'processed', updated_at = ? WHERE interaction_id = ? AND status = 'responded'",

  selectGlobalVariables: 'SELECT name, value FROM global_variables WHERE workflow_id = ?',
  insertGlobalVariableIfAbsent:
    'INSERT INTO global_variables (workflow_id, name, value) VALUES (@workflowId, @name, @value) ON CONFLICT DO NOTHING',
  upsertGlobalVariable:
    'INSERT INTO global_variables (workflow_id, name, value) VALUES (@workflowId, @name, @value) ON CONFLICT (workflow_id, name) DO UPDATE SET value = excluded.value',

  insertToolExecutionIfAbsent:
    'INSERT INTO tool_executions (thread_id, tool_call_id, tool_name, arguments_hash, arguments, status, approved_by, idempotent, outcome, created_at, updated_at) ' +
    'VALUES (@threadId, @toolCallId, @toolName, @argumentsHash, @arguments, @status, @approvedBy, @idempotent, @outcome, @createdAt, @updatedAt) ON CONFLICT DO NOTHING',
  toolExecutionHash:
    'SELECT arguments_hash AS argumentsHash FROM tool_executions WHERE thread_id = ? AND tool_call_id = ?',
  finishToolExecution:
    "UPDATE tool_executions SET status = 'finished', outcome = ?, updated_at = ? WHERE thread_id = ? AND tool_call_id = ? AND status <> 'finished'",
  selectToolExecution: `SELECT ${TOOL_EXECUTION_COLUMNS} FROM tool_executions WHERE thread_id = ? AND tool_call_id = ?`,

  auditHead: 'SELECT sequence, hash FROM audit_head WHERE id = 1',
  moveAuditHead:
    'INSERT INTO audit_head (id, sequence, hash) VALUES (1, @sequence, @hash) ON CONFLICT (id) DO UPDATE SET sequence = excluded.sequence, hash = excluded.hash',
  insertAuditEntry:
    'INSERT INTO audit_entries (sequence, thread_id, tool_call_id, tool_name, outcome, decided_by, rule, reason, responder, stage, original_arguments, edited_arguments, tool_definition_hash, interaction_id, at, previous_hash, hash) ' +
    'VALUES (@sequence, @threadId, @toolCallId, @toolName, @outcome, @decidedBy, @rule, @reason, @responder, @stage, @originalArguments, @editedArguments, @toolDefinitionHash, @interactionId, @at, @previousHash, @hash)',

  scheduleJob:
    'INSERT INTO jobs (key, kind, thread_id, workflow_id, interaction_id, run_at, locked_by, locked_until) ' +
    'VALUES (@key, @kind, @threadId, @workflowId, @interactionId, @runAt, NULL, NULL) ' +
    'ON CONFLICT (key) DO UPDATE SET kind = excluded.kind, thread_id = excluded.thread_id, workflow_id = excluded.workflow_id, ' +
    'interaction_id = excluded.interaction_id, run_at = excluded.run_at, locked_by = NULL, locked_until = NULL',
  lockJob: 'UPDATE jobs SET locked_by = ?, locked_until = ? WHERE key = ?',
  finishJob: 'DELETE FROM jobs WHERE key = ? AND locked_by = ?',

  upsertRememberedApproval:
    'INSERT INTO remembered_approvals ("key", expires_at) VALUES (@key, @expiresAt) ON CONFLICT ("key") DO UPDATE SET expires_at = excluded.expires_at',
  selectRememberedApproval: 'SELECT expires_at AS expiresAt FROM remembered_approvals WHERE "key" = ?',
  deleteExpiredApproval: 'DELETE FROM remembered_approvals WHERE "key" = ? AND expires_at <= ?',

  insertWorkflowDefinitionIfAbsent:
    'INSERT INTO workflow_definitions (workflow_id, version, definition, created_at) VALUES (@workflowId, @version, @definition, @createdAt) ON CONFLICT DO NOTHING',
  selectWorkflowDefinition:
    'SELECT workflow_id AS workflowId, version, definition, created_at AS createdAt FROM workflow_definitions WHERE workflow_id = ? AND version = ?',
} as const;
