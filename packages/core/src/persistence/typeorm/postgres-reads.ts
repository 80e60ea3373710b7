/*
 * The PostgreSQL store's reads: each one statement (one snapshot, one network round trip),
 * columns under the property names of the row types (../sql/row-types.ts), so rows map to
 * records with the SQLite store's functions. A thread comes with its conversation, and
 * `loadThread` with its interactions and tool calls too, aggregated as JSON in the same
 * statement. Ids and timestamps sort byte-wise (COLLATE "C"), as on SQLite; interactions of
 * one moment in the order they were stored (SQLite: rowid; here `stored_order`).
 */

const THREAD_COLUMNS =
  't."thread_id" AS "threadId", t."workflow_id" AS "workflowId", t."workflow_version" AS "workflowVersion", t."status", t."channel", ' +
  't."version", t."epoch", t."lease_owner" AS "leaseOwner", t."lease_until" AS "leaseUntil", t."state", t."created_at" AS "createdAt", t."updated_at" AS "updatedAt"';

const INTERACTION_COLUMNS =
  '"interaction_id" AS "interactionId", "thread_id" AS "threadId", "node_id" AS "nodeId", "status", "deadline", "request", "response", "quorum", ' +
  '"failure_reason" AS "failureReason", "failure_message" AS "failureMessage", "created_at" AS "createdAt", "updated_at" AS "updatedAt"';

/** Oldest first; those of one moment (a batch) in the order they were stored. */
const INTERACTION_ORDER = '"created_at" COLLATE "C", "stored_order"';

const TOOL_EXECUTION_COLUMNS =
  '"thread_id" AS "threadId", "tool_call_id" AS "toolCallId", "tool_name" AS "toolName", "arguments_hash" AS "argumentsHash", "arguments", "status", ' +
  '"approved_by" AS "approvedBy", "idempotent", "outcome", "created_at" AS "createdAt", "updated_at" AS "updatedAt"';

const TOOL_EXECUTION_ORDER = '"created_at" COLLATE "C", "thread_id" COLLATE "C", "tool_call_id" COLLATE "C"';

const AUDIT_COLUMNS =
  '"sequence", "thread_sequence" AS "threadSequence", "thread_id" AS "threadId", "tool_call_id" AS "toolCallId", "tool_name" AS "toolName", "outcome", ' +
  '"decided_by" AS "decidedBy", "rule", "reason", "responder", "stage", "original_arguments" AS "originalArguments", ' +
  '"edited_arguments" AS "editedArguments", "tool_definition_hash" AS "toolDefinitionHash", "interaction_id" AS "interactionId", "at", ' +
  '"previous_hash" AS "previousHash", "hash"';

/** The read statements of a store whose tables `table(name)` names (schema-qualified or not). */
export function readStatements(table: (name: string) => string) {
  const messages = `(SELECT coalesce(json_agg(json_build_array(m."position", m."message") ORDER BY m."position"), '[]')
    FROM ${table('messages')} m WHERE m."thread_id" = t."thread_id") AS "messages"`;
  const threads = `SELECT ${THREAD_COLUMNS}, ${messages} FROM ${table('threads')} t`;
  const threadOrder = 'ORDER BY t."created_at" COLLATE "C", t."thread_id" COLLATE "C"';
  const loadThread = `SELECT ${THREAD_COLUMNS}, ${messages},
      (SELECT coalesce(json_agg(i ORDER BY i."createdAt" COLLATE "C", i."storedOrder"), '[]')
        FROM (SELECT ${INTERACTION_COLUMNS}, "stored_order" AS "storedOrder" FROM ${table('interactions')} WHERE "thread_id" = t."thread_id") i) AS "interactions",
      (SELECT coalesce(json_agg(x ORDER BY x."createdAt" COLLATE "C", x."toolCallId" COLLATE "C"), '[]')
        FROM (SELECT ${TOOL_EXECUTION_COLUMNS} FROM ${table('tool_executions')} WHERE "thread_id" = t."thread_id") x) AS "toolCalls"
      FROM ${table('threads')} t WHERE t."thread_id" = `;
  return {
    thread: `${threads} WHERE t."thread_id" = $1`,
    /** The thread, its conversation, its interactions (oldest first) and its tool calls, in one statement. */
    loadThread: `${loadThread}$1`,
    /** `loadThread` of the thread interaction `$1` belongs to. */
    loadThreadOf: `${loadThread}(SELECT "thread_id" FROM ${table('interactions')} WHERE "interaction_id" = $1)`,
    threads: `${threads} ${threadOrder}`,
    threadsByStatus: `${threads} WHERE t."status" = $1 ${threadOrder}`,
    interaction: `SELECT ${INTERACTION_COLUMNS} FROM ${table('interactions')} WHERE "interaction_id" = $1`,
    /** `$1` status, `$2` thread id: NULL for any. */
    interactions: `SELECT ${INTERACTION_COLUMNS} FROM ${table('interactions')}
      WHERE ($1::text IS NULL OR "status" = $1) AND ($2::text IS NULL OR "thread_id" = $2) ORDER BY ${INTERACTION_ORDER}`,
    /** `$1` thread id, `$2` status: NULL for any. */
    toolExecutions: `SELECT ${TOOL_EXECUTION_COLUMNS} FROM ${table('tool_executions')}
      WHERE ($1::text IS NULL OR "thread_id" = $1) AND ($2::text IS NULL OR "status" = $2) ORDER BY ${TOOL_EXECUTION_ORDER}`,
    /** `$1` after (a sequence), `$2` thread id or NULL. */
    auditEntries: `SELECT ${AUDIT_COLUMNS} FROM ${table('audit_entries')}
      WHERE "sequence" > $1 AND ($2::text IS NULL OR "thread_id" = $2) ORDER BY "sequence"`,
    auditEvidence: `SELECT
      (SELECT coalesce(json_agg(json_build_object('threadId', "thread_id", 'threadSequence', "thread_sequence", 'hash', "hash")), '[]')
        FROM ${table('audit_thread_heads')}) AS "heads",
      (SELECT coalesce(json_agg(json_build_object('sequence', "sequence", 'at', "at", 'through', "through", 'digest', "digest",
          'previousHash', "previous_hash", 'hash', "hash") ORDER BY "sequence"), '[]') FROM ${table('audit_anchors')}) AS "anchors",
      (SELECT json_build_object('sequence', "sequence", 'hash', "hash") FROM ${table('audit_head')} WHERE "id" = 1) AS "legacyHead"`,
    globals: `SELECT "name", "value" FROM ${table('global_variables')} WHERE "workflow_id" = $1`,
    remembered: `SELECT EXISTS (SELECT 1 FROM ${table('remembered_approvals')} WHERE "key" = $1 AND "expires_at" > $2::bigint) AS "remembered"`,
    definition: `SELECT "workflow_id" AS "workflowId", "version", "definition", "created_at" AS "createdAt"
      FROM ${table('workflow_definitions')} WHERE "workflow_id" = $1 AND "version" = $2`,
    commit: `SELECT ${table('interlock_commit')}($1::jsonb) AS "answer"`,
  };
}

export type ReadStatements = ReturnType<typeof readStatements>;
