import {
  InteractionFailureReason,
  InteractionStatus,
  ToolCallStatus,
  type Message,
  type UserInteractionRequest,
  type WorkflowDefinition,
} from '@interlock/sdk-types';
import { InterlockError } from '../../errors/interlock-error.js';
import type {
  GivenApproval,
  InteractionRecord,
  InteractionResponseRecord,
  QuorumProgress,
  ThreadRecord,
  ThreadStatus,
  ToolExecutionRecord,
  ToolExecutionStatus,
} from '../checkpoint-store.js';
import { decodeJson, decodeOptionalJson, encodeJson, encodeOptionalJson, storableText } from './stored-text.js';
import type { InteractionRow, ThreadRow, ToolExecutionRow, WorkflowDefinitionRow } from './row-types.js';

/** The fields of a ThreadRecord kept as JSON in `threads.state`. */
type ThreadState = Omit<
  ThreadRecord,
  | 'threadId'
  | 'workflowId'
  | 'workflowVersion'
  | 'status'
  | 'channel'
  | 'version'
  | 'epoch'
  | 'createdAt'
  | 'updatedAt'
  | 'conversation'
  | 'lease'
>;

const THREAD_STATUSES: readonly string[] = [
  'running',
  'waiting',
  'completed',
  'failed',
  'cancelled',
] satisfies ThreadStatus[];

const isThreadStatus = (status: string): status is ThreadStatus => THREAD_STATUSES.includes(status);

const TOOL_EXECUTION_STATUSES: readonly string[] = [
  'approved',
  'started',
  'finished',
  'unknown',
] satisfies ToolExecutionStatus[];

const isToolExecutionStatus = (status: string): status is ToolExecutionStatus =>
  TOOL_EXECUTION_STATUSES.includes(status);

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function damaged(what: string, value: unknown): InterlockError {
  return new InterlockError(
    'INTERNAL',
    `the stored ${what} is not valid (${JSON.stringify(value)}): the database row was changed outside Interlock`,
  );
}

/** The `threads` row of a thread, stored with `version`. */
export function toThreadRow(thread: ThreadRecord, version: number): ThreadRow {
  const {
    threadId,
    workflowId,
    workflowVersion,
    status,
    channel,
    version: _version,
    epoch,
    createdAt,
    updatedAt,
    conversation: _conversation,
    lease,
    ...state
  } = thread;
  return {
    threadId: storableText(threadId, 'thread id'),
    workflowId: storableText(workflowId, 'workflow id'),
    workflowVersion: storableText(workflowVersion, 'workflow version'),
    status: storableText(status, 'thread status'),
    channel: storableText(channel, 'channel'),
    version,
    epoch,
    leaseOwner: lease === undefined ? null : storableText(lease.owner, 'lease owner'),
    leaseUntil: lease === undefined ? null : storableText(lease.until, 'lease until'),
    state: encodeJson(state satisfies ThreadState, `the state of thread ${threadId}`),
    createdAt: storableText(createdAt, 'createdAt'),
    updatedAt: storableText(updatedAt, 'updatedAt'),
  };
}

/** The ThreadRecord of a `threads` row and its conversation. */
export function toThreadRecord(row: ThreadRow, conversation: Message[]): ThreadRecord {
  const state = decodeJson(row.state, `state of thread ${row.threadId}`);
  if (!isObject(state)) throw damaged(`state of thread ${row.threadId}`, state);
  if (!isThreadStatus(row.status)) throw damaged(`status of thread ${row.threadId}`, row.status);
  return {
    ...(state as unknown as ThreadState),
    threadId: row.threadId,
    workflowId: row.workflowId,
    workflowVersion: row.workflowVersion,
    status: row.status,
    channel: row.channel,
    conversation,
    ...(row.leaseOwner === null || row.leaseUntil === null
      ? {}
      : { lease: { owner: row.leaseOwner, until: row.leaseUntil } }),
    epoch: row.epoch,
    version: row.version,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  } as ThreadRecord;
}

/** The `interactions` row of an interaction. */
export function toInteractionRow(interaction: InteractionRecord): InteractionRow {
  const id = interaction.interactionId;
  return {
    interactionId: storableText(id, 'interaction id'),
    threadId: storableText(interaction.threadId, 'thread id'),
    nodeId: storableText(interaction.nodeId, 'node id'),
    status: storableText(interaction.status, 'interaction status'),
    deadline: interaction.deadline === null ? null : storableText(interaction.deadline, 'deadline'),
    request: encodeJson(interaction.request, `the request of interaction ${id}`),
    response: encodeOptionalJson(interaction.response, `the response to interaction ${id}`),
    quorum: interaction.quorum === undefined ? null : encodeQuorum(interaction.quorum, id),
    failureReason:
      interaction.failureReason === undefined ? null : storableText(interaction.failureReason, 'failure reason'),
    failureMessage: encodeOptionalJson(interaction.failureMessage, `the failure message of interaction ${id}`),
    createdAt: storableText(interaction.createdAt, 'createdAt'),
    updatedAt: storableText(interaction.updatedAt, 'updatedAt'),
  };
}

/** The InteractionRecord of an `interactions` row. */
export function toInteractionRecord(row: InteractionRow): InteractionRecord {
  const id = row.interactionId;
  const status = InteractionStatus.safeParse(row.status);
  if (!status.success) throw damaged(`status of interaction ${id}`, row.status);
  const request = decodeJson(row.request, `request of interaction ${id}`);
  if (!isObject(request)) throw damaged(`request of interaction ${id}`, request);
  const response = decodeOptionalJson(row.response, `response to interaction ${id}`);
  if (response !== undefined && !isObject(response)) throw damaged(`response to interaction ${id}`, response);
  const failureMessage = decodeOptionalJson(row.failureMessage, `failure message of interaction ${id}`);
  if (failureMessage !== undefined && typeof failureMessage !== 'string') {
    throw damaged(`failure message of interaction ${id}`, failureMessage);
  }
  const failureReason = row.failureReason === null ? undefined : InteractionFailureReason.safeParse(row.failureReason);
  if (failureReason?.success === false) throw damaged(`failure reason of interaction ${id}`, row.failureReason);
  // A row read before the column existed (a conflict reported by an older commit function) has none.
  const quorum = typeof row.quorum === 'string' ? decodeQuorum(row.quorum, id) : undefined;
  return {
    interactionId: id,
    threadId: row.threadId,
    nodeId: row.nodeId,
    request: request as unknown as UserInteractionRequest,
    status: status.data,
    deadline: row.deadline,
    ...(response === undefined ? {} : { response: response as unknown as InteractionResponseRecord }),
    ...(quorum === undefined ? {} : { quorum }),
    ...(failureReason === undefined ? {} : { failureReason: failureReason.data }),
    ...(failureMessage === undefined ? {} : { failureMessage }),
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}

/** One approval as the `quorum` column holds it: plain text fields only, edited arguments as JSON text. */
export interface GivenApprovalRow {
  responder: string;
  argumentsHash: string;
  approvedAt: string;
  editedParameters?: string;
}

/** An approval as stored in the `quorum` column (and sent to PostgreSQL's commit function). */
export function toGivenApprovalRow(approval: GivenApproval, interactionId: string): GivenApprovalRow {
  return {
    responder: storableText(approval.responder, 'responder'),
    argumentsHash: storableText(approval.argumentsHash, 'arguments hash'),
    approvedAt: storableText(approval.approvedAt, 'approvedAt'),
    ...(approval.editedParameters === undefined
      ? {}
      : {
          editedParameters: encodeJson(
            approval.editedParameters,
            `the arguments approved for interaction ${interactionId}`,
          ),
        }),
  };
}

/** The `quorum` column of an interaction's progress. */
export function encodeQuorum(progress: QuorumProgress, interactionId: string): string {
  return encodeJson(
    {
      approvals: progress.approvals.map((approval) => toGivenApprovalRow(approval, interactionId)),
      ...(progress.escalatedAt === undefined ? {} : { escalatedAt: storableText(progress.escalatedAt, 'escalatedAt') }),
    },
    `the approvals of interaction ${interactionId}`,
  );
}

/** The progress of an interaction's `quorum` column. */
export function decodeQuorum(text: string, interactionId: string): QuorumProgress {
  const what = `approvals of interaction ${interactionId}`;
  const value = decodeJson(text, what);
  if (!isObject(value) || !Array.isArray(value['approvals'])) throw damaged(what, value);
  const escalatedAt = value['escalatedAt'];
  if (escalatedAt !== undefined && escalatedAt !== null && typeof escalatedAt !== 'string') throw damaged(what, value);
  const approvals = value['approvals'].map((row: unknown): GivenApproval => {
    if (
      !isObject(row) ||
      typeof row['responder'] !== 'string' ||
      typeof row['argumentsHash'] !== 'string' ||
      typeof row['approvedAt'] !== 'string'
    )
      throw damaged(what, row);
    const edited = row['editedParameters'];
    if (edited !== undefined && edited !== null && typeof edited !== 'string') throw damaged(what, row);
    const editedParameters = typeof edited === 'string' ? decodeJson(edited, `arguments of ${what}`) : undefined;
    if (editedParameters !== undefined && !isObject(editedParameters)) throw damaged(what, row);
    return {
      responder: row['responder'],
      argumentsHash: row['argumentsHash'],
      ...(editedParameters === undefined ? {} : { editedParameters }),
      approvedAt: row['approvedAt'],
    };
  });
  return { approvals, ...(typeof escalatedAt === 'string' ? { escalatedAt } : {}) };
}

/** What `recordToolApproval` receives: a tool execution before it has a status. */
export type ToolApproval = Omit<ToolExecutionRecord, 'status' | 'outcome' | 'updatedAt'>;

/** The `tool_executions` row of a freshly approved tool call. */
export function toToolExecutionRow(approval: ToolApproval): ToolExecutionRow {
  const call = `tool call ${approval.toolCallId}`;
  return {
    threadId: storableText(approval.threadId, 'thread id'),
    toolCallId: storableText(approval.toolCallId, 'tool call id'),
    toolName: storableText(approval.toolName, 'tool name'),
    argumentsHash: storableText(approval.argumentsHash, 'arguments hash'),
    arguments: encodeJson(approval.arguments, `the arguments of ${call}`),
    status: 'approved',
    approvedBy: storableText(approval.approvedBy, 'approvedBy'),
    idempotent: approval.idempotent,
    outcome: null,
    createdAt: storableText(approval.createdAt, 'createdAt'),
    updatedAt: approval.createdAt,
  };
}

/** The ToolExecutionRecord of a `tool_executions` row. */
export function toToolExecutionRecord(row: ToolExecutionRow): ToolExecutionRecord {
  const call = `tool call ${row.toolCallId} of thread ${row.threadId}`;
  if (!isToolExecutionStatus(row.status)) throw damaged(`status of ${call}`, row.status);
  const toolArguments = decodeJson(row.arguments, `arguments of ${call}`);
  if (!isObject(toolArguments)) throw damaged(`arguments of ${call}`, toolArguments);
  const outcome = decodeOptionalJson(row.outcome, `outcome of ${call}`);
  if (outcome !== undefined && !isToolOutcome(outcome)) throw damaged(`outcome of ${call}`, outcome);
  return {
    threadId: row.threadId,
    toolCallId: row.toolCallId,
    toolName: row.toolName,
    argumentsHash: row.argumentsHash,
    arguments: toolArguments,
    status: row.status,
    approvedBy: row.approvedBy,
    idempotent: row.idempotent,
    ...(outcome === undefined ? {} : { outcome }),
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}

function isToolOutcome(value: unknown): value is NonNullable<ToolExecutionRecord['outcome']> {
  return isObject(value) && ToolCallStatus.safeParse(value['status']).success && typeof value['content'] === 'string';
}

/** The `workflow_definitions` row of a workflow definition, stored at `createdAt`. */
export function toWorkflowDefinitionRow(definition: WorkflowDefinition, createdAt: string): WorkflowDefinitionRow {
  return {
    workflowId: storableText(definition.id, 'workflow id'),
    version: storableText(definition.version, 'workflow version'),
    definition: encodeJson(definition, `the definition of workflow ${definition.id} version ${definition.version}`),
    createdAt,
  };
}

/**
 * The WorkflowDefinition of a `workflow_definitions` row. It was valid when stored, and
 * parsing it again could change it (defaults, aliases), so only its shape is checked.
 */
export function toWorkflowDefinition(row: WorkflowDefinitionRow): WorkflowDefinition {
  const what = `definition of workflow ${row.workflowId} version ${row.version}`;
  const definition = decodeJson(row.definition, what);
  if (!isObject(definition) || definition['id'] !== row.workflowId || definition['version'] !== row.version) {
    throw damaged(what, definition);
  }
  return definition as unknown as WorkflowDefinition;
}
