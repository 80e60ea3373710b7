/**
 * The rows of the store's tables as both stores read and write them (SQLite through
 * better-sqlite3, PostgreSQL through TypeORM): every value a column holds, named as in
 * TypeScript. The tables themselves are created by ./migrations; TypeORM's entity schemas
 * (../typeorm/store-entities.ts) describe the same columns.
 */

/** A row of `threads`: the thread's columns, the rest of its record as JSON in `state`. */
export interface ThreadRow {
  threadId: string;
  workflowId: string;
  workflowVersion: string;
  status: string;
  channel: string;
  version: number;
  /** The claim's fencing token: incremented by every claim. */
  epoch: number;
  /** The claim holder's owner id (see ThreadLease), or null. */
  leaseOwner: string | null;
  /** Until when the lease holds, ISO 8601, or null. */
  leaseUntil: string | null;
  /** JSON of the ThreadRecord fields that have no column, conversation excluded. */
  state: string;
  createdAt: string;
  updatedAt: string;
}

/** A row of `messages`: one message of a thread's conversation. */
export interface MessageRow {
  threadId: string;
  /** 0-based position in the conversation. */
  position: number;
  /** The message as JSON. */
  message: string;
  /** SHA-256 chained over every message up to this one, to find edits without reading them. */
  digest: string;
}

/** A row of `interactions`. */
export interface InteractionRow {
  interactionId: string;
  threadId: string;
  nodeId: string;
  status: string;
  deadline: string | null;
  /** The UserInteractionRequest as JSON. */
  request: string;
  /** The InteractionResponseRecord as JSON. */
  response: string | null;
  /**
   * The QuorumProgress as JSON, each approval's edited arguments as JSON text inside it (see
   * encodeQuorum in record-mapping.ts), so PostgreSQL can read it as jsonb whatever they hold.
   */
  quorum: string | null;
  failureReason: string | null;
  /** The failure message as a JSON string (free text may hold NUL). */
  failureMessage: string | null;
  createdAt: string;
  updatedAt: string;
}

/** A row of `global_variables`: one global-scope variable of a workflow. */
export interface GlobalVariableRow {
  workflowId: string;
  name: string;
  /** The value as JSON; NULL for `undefined`. */
  value: string | null;
}

/** A row of `tool_executions`: the write-ahead record of one tool call. */
export interface ToolExecutionRow {
  threadId: string;
  toolCallId: string;
  toolName: string;
  argumentsHash: string;
  /** The arguments as JSON. */
  arguments: string;
  status: string;
  approvedBy: string;
  idempotent: boolean;
  /** The outcome as JSON; NULL until the call finished. */
  outcome: string | null;
  createdAt: string;
  updatedAt: string;
}

/** A row of `workflow_definitions`: one version of a workflow that a thread runs. */
export interface WorkflowDefinitionRow {
  workflowId: string;
  version: string;
  /** The WorkflowDefinition as JSON. */
  definition: string;
  createdAt: string;
}

/** A row of `audit_entries`: one entry of the hash-chained audit log (F33, F45). */
export interface AuditEntryRow {
  /** 1-based position in the chain; the primary key, so two appends cannot share one. */
  sequence: number;
  threadId: string;
  toolCallId: string;
  toolName: string;
  outcome: string;
  decidedBy: string;
  rule: string;
  /** The reason as a JSON string (free text may hold NUL). */
  reason: string;
  responder: string | null;
  stage: string;
  /** The original arguments as JSON. */
  originalArguments: string;
  /** The edited arguments as JSON; NULL when none. */
  editedArguments: string | null;
  /** The hash of the tool definition decided about (pinned MCP tools); NULL when none was kept. */
  toolDefinitionHash: string | null;
  /** The question whose answer (or failed wait) made the decision; NULL for a rule's or an approver's. */
  interactionId: string | null;
  at: string;
  previousHash: string;
  hash: string;
}

/** A row of `remembered_approvals`: an approval remembered "for this session". */
export interface RememberedApprovalRow {
  key: string;
  /** Milliseconds since the epoch; PostgreSQL's driver reads a bigint back as a string. */
  expiresAt: number | string;
  /** `SessionMemory.scopeKey` of the scope it was given in (PostgreSQL; null before issue 38 and on SQLite). */
  scope: string | null;
}

/** A row of `audit_head`: the end of the audit chain (one row, id 1). */
export interface AuditHeadRow {
  id: number;
  sequence: number;
  hash: string;
}

/** A row of `jobs`: a worker's job when the store is its own queue (see ThreadJob). */
export interface JobRow {
  key: string;
  kind: string;
  threadId: string;
  workflowId: string;
  interactionId: string | null;
  runAt: string;
  lockedBy: string | null;
  lockedUntil: string | null;
}
