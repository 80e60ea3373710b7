import { EntitySchema } from 'typeorm';
import type {
  ThreadRow,
  MessageRow,
  InteractionRow,
  GlobalVariableRow,
  ToolExecutionRow,
  WorkflowDefinitionRow,
  AuditEntryRow,
  RememberedApprovalRow,
  AuditHeadRow,
  JobRow,
} from '../sql/row-types.js';

/*
 * The store's tables as TypeORM entity schemas. Every column names its type: esbuild and
 * vitest emit no decorator metadata, and the same types describe the tables on PostgreSQL
 * and on SQLite, where the tests use them to look inside the SQLite store's files (text for ids, JSON and ISO 8601 timestamps, integer for counters, boolean
 * for flags). The tables themselves are created by the migrations in ./migrations, never
 * synchronized; a test checks that these schemas and the migrations agree.
 */

// TypeORM's EntitySchemaOptions is a class that only describes options: TypeORM's docs pass
// plain objects to `new EntitySchema`, and nothing checks `instanceof` on them.
/* eslint-disable @typescript-eslint/no-unsafe-class-instance-assignment -- see above */

const text = (name: string, options: { nullable?: boolean } = {}) =>
  ({ name, type: 'text', nullable: options.nullable ?? false }) as const;

const primaryText = (name: string, constraint: string) =>
  ({ name, type: 'text', primary: true, primaryKeyConstraintName: constraint }) as const;

/** The `threads` table. */
export const ThreadEntity = new EntitySchema<ThreadRow>({
  name: 'InterlockThread',
  tableName: 'threads',
  columns: {
    threadId: primaryText('thread_id', 'pk_threads'),
    workflowId: text('workflow_id'),
    workflowVersion: text('workflow_version'),
    status: text('status'),
    channel: text('channel'),
    version: { name: 'version', type: 'integer' },
    epoch: { name: 'epoch', type: 'integer', default: 0 },
    leaseOwner: { name: 'lease_owner', type: 'text', nullable: true },
    leaseUntil: { name: 'lease_until', type: 'text', nullable: true },
    state: text('state'),
    createdAt: text('created_at'),
    updatedAt: text('updated_at'),
  },
  indices: [{ name: 'idx_threads_status', columns: ['status'] }],
});

/** The `messages` table. */
export const MessageEntity = new EntitySchema<MessageRow>({
  name: 'InterlockMessage',
  tableName: 'messages',
  columns: {
    threadId: primaryText('thread_id', 'pk_messages'),
    position: { name: 'position', type: 'integer', primary: true, primaryKeyConstraintName: 'pk_messages' },
    message: text('message'),
    digest: text('digest'),
  },
  foreignKeys: [
    {
      name: 'fk_messages_thread',
      target: ThreadEntity,
      columnNames: ['threadId'],
      referencedColumnNames: ['threadId'],
      onDelete: 'CASCADE',
    },
  ],
});

/** The `interactions` table. */
export const InteractionEntity = new EntitySchema<InteractionRow & { storedOrder: string | null }>({
  name: 'InterlockInteraction',
  tableName: 'interactions',
  columns: {
    interactionId: primaryText('interaction_id', 'pk_interactions'),
    threadId: text('thread_id'),
    nodeId: text('node_id'),
    status: text('status'),
    deadline: text('deadline', { nullable: true }),
    request: text('request'),
    response: text('response', { nullable: true }),
    /** The approvals of a call that needs several, and its escalation (F51). */
    quorum: text('quorum', { nullable: true }),
    failureReason: text('failure_reason', { nullable: true }),
    failureMessage: text('failure_message', { nullable: true }),
    createdAt: text('created_at'),
    updatedAt: text('updated_at'),
    /** PostgreSQL: the order interactions were stored in (SQLite keeps it in the rowid and leaves this NULL). */
    storedOrder: { name: 'stored_order', type: 'bigint', nullable: true },
  },
  indices: [
    { name: 'idx_interactions_thread_id', columns: ['threadId'] },
    { name: 'idx_interactions_status', columns: ['status'] },
  ],
});

/** The `global_variables` table. */
export const GlobalVariableEntity = new EntitySchema<GlobalVariableRow>({
  name: 'InterlockGlobalVariable',
  tableName: 'global_variables',
  columns: {
    workflowId: primaryText('workflow_id', 'pk_global_variables'),
    name: primaryText('name', 'pk_global_variables'),
    value: text('value', { nullable: true }),
  },
});

/** The `tool_executions` table. */
export const ToolExecutionEntity = new EntitySchema<ToolExecutionRow>({
  name: 'InterlockToolExecution',
  tableName: 'tool_executions',
  columns: {
    threadId: primaryText('thread_id', 'pk_tool_executions'),
    toolCallId: primaryText('tool_call_id', 'pk_tool_executions'),
    toolName: text('tool_name'),
    argumentsHash: text('arguments_hash'),
    arguments: text('arguments'),
    status: text('status'),
    approvedBy: text('approved_by'),
    idempotent: { name: 'idempotent', type: 'boolean' },
    outcome: text('outcome', { nullable: true }),
    createdAt: text('created_at'),
    updatedAt: text('updated_at'),
  },
  indices: [{ name: 'idx_tool_executions_status', columns: ['status'] }],
});

/** The `workflow_definitions` table. */
export const WorkflowDefinitionEntity = new EntitySchema<WorkflowDefinitionRow>({
  name: 'InterlockWorkflowDefinition',
  tableName: 'workflow_definitions',
  columns: {
    workflowId: primaryText('workflow_id', 'pk_workflow_definitions'),
    version: primaryText('version', 'pk_workflow_definitions'),
    definition: text('definition'),
    createdAt: text('created_at'),
  },
});

/** The `audit_entries` table: append-only. */
export const AuditEntryEntity = new EntitySchema<AuditEntryRow & { threadSequence: number | null }>({
  name: 'InterlockAuditEntry',
  tableName: 'audit_entries',
  columns: {
    sequence: { name: 'sequence', type: 'integer', primary: true, primaryKeyConstraintName: 'pk_audit_entries' },
    threadId: text('thread_id'),
    toolCallId: text('tool_call_id'),
    toolName: text('tool_name'),
    outcome: text('outcome'),
    decidedBy: text('decided_by'),
    rule: text('rule'),
    reason: text('reason'),
    responder: text('responder', { nullable: true }),
    stage: text('stage'),
    originalArguments: text('original_arguments'),
    editedArguments: text('edited_arguments', { nullable: true }),
    toolDefinitionHash: text('tool_definition_hash', { nullable: true }),
    interactionId: text('interaction_id', { nullable: true }),
    at: text('at'),
    previousHash: text('previous_hash'),
    hash: text('hash'),
    threadSequence: { name: 'thread_sequence', type: 'integer', nullable: true },
  },
  indices: [{ name: 'idx_audit_entries_thread_id', columns: ['threadId'] }],
});

/** The head of each thread's audit chain (moved by a trigger on insert; see the AddThreadAuditChains migration). */
export const AuditThreadHeadEntity = new EntitySchema<{ threadId: string; threadSequence: number; hash: string }>({
  name: 'InterlockAuditThreadHead',
  tableName: 'audit_thread_heads',
  columns: {
    threadId: { name: 'thread_id', type: 'text', primary: true, primaryKeyConstraintName: 'pk_audit_thread_heads' },
    threadSequence: { name: 'thread_sequence', type: 'integer' },
    hash: text('hash'),
  },
});

/** The anchors that seal the audit entries in order. */
export const AuditAnchorEntity = new EntitySchema<{
  sequence: number;
  at: string;
  through: number;
  digest: string;
  previousHash: string;
  hash: string;
}>({
  name: 'InterlockAuditAnchor',
  tableName: 'audit_anchors',
  columns: {
    sequence: { name: 'sequence', type: 'integer', primary: true, primaryKeyConstraintName: 'pk_audit_anchors' },
    at: text('at'),
    through: { name: 'through', type: 'integer' },
    digest: text('digest'),
    previousHash: text('previous_hash'),
    hash: text('hash'),
  },
});

/** The `remembered_approvals` table. */
export const RememberedApprovalEntity = new EntitySchema<RememberedApprovalRow>({
  name: 'InterlockRememberedApproval',
  tableName: 'remembered_approvals',
  columns: {
    key: primaryText('key', 'pk_remembered_approvals'),
    expiresAt: { name: 'expires_at', type: 'bigint' },
    scope: { name: 'scope', type: 'text', nullable: true },
  },
  indices: [{ name: 'idx_remembered_approvals_scope', columns: ['scope'] }],
});

/** The `audit_head` table. */
export const AuditHeadEntity = new EntitySchema<AuditHeadRow>({
  name: 'InterlockAuditHead',
  tableName: 'audit_head',
  columns: {
    id: { name: 'id', type: 'integer', primary: true, primaryKeyConstraintName: 'pk_audit_head' },
    sequence: { name: 'sequence', type: 'integer' },
    hash: text('hash'),
  },
});

/** The `jobs` table. */
export const JobEntity = new EntitySchema<JobRow>({
  name: 'InterlockJob',
  tableName: 'jobs',
  columns: {
    key: primaryText('key', 'pk_jobs'),
    kind: text('kind'),
    threadId: text('thread_id'),
    workflowId: text('workflow_id'),
    interactionId: text('interaction_id', { nullable: true }),
    runAt: text('run_at'),
    lockedBy: text('locked_by', { nullable: true }),
    lockedUntil: text('locked_until', { nullable: true }),
  },
  indices: [{ name: 'idx_jobs_workflow_run_at', columns: ['workflowId', 'runAt'] }],
});

/** Every entity of the store, for the DataSource. */
export const STORE_ENTITIES = [
  ThreadEntity,
  MessageEntity,
  InteractionEntity,
  GlobalVariableEntity,
  ToolExecutionEntity,
  WorkflowDefinitionEntity,
  AuditEntryEntity,
  AuditHeadEntity,
  AuditThreadHeadEntity,
  AuditAnchorEntity,
  RememberedApprovalEntity,
  JobEntity,
];
