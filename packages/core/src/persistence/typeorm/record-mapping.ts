import {
  InteractionFailureReason,
  InteractionStatus,
  type Message,
  type UserInteractionRequest,
} from '@interlock/sdk-types';
import { InterlockError } from '../../errors/interlock-error.js';
import type { InteractionRecord, InteractionResponseRecord, ThreadRecord, ThreadStatus } from '../checkpoint-store.js';
import { decodeJson, decodeOptionalJson, encodeJson, encodeOptionalJson, storableText } from './stored-text.js';
import type { InteractionRow, ThreadRow } from './store-entities.js';

/** The fields of a ThreadRecord kept as JSON in `threads.state`. */
type ThreadState = Omit<
  ThreadRecord,
  'threadId' | 'workflowId' | 'workflowVersion' | 'status' | 'channel' | 'version' | 'createdAt' | 'updatedAt' | 'conversation'
>;

const THREAD_STATUSES: readonly string[] = [
  'running',
  'waiting',
  'completed',
  'failed',
  'cancelled',
] satisfies ThreadStatus[];

const isThreadStatus = (status: string): status is ThreadStatus => THREAD_STATUSES.includes(status);

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function damaged(what: string, value: unknown): InterlockError {
  return new InterlockError('INTERNAL', `the stored ${what} is not valid (${JSON.stringify(value)}): the database row was changed outside Interlock`);
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
    createdAt,
    updatedAt,
    conversation: _conversation,
    ...state
  } = thread;
  return {
    threadId: storableText(threadId, 'thread id'),
    workflowId: storableText(workflowId, 'workflow id'),
    workflowVersion: storableText(workflowVersion, 'workflow version'),
    status: storableText(status, 'thread status'),
    channel: storableText(channel, 'channel'),
    version,
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
    version: row.version,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
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
    failureReason: interaction.failureReason === undefined ? null : storableText(interaction.failureReason, 'failure reason'),
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
  return {
    interactionId: id,
    threadId: row.threadId,
    nodeId: row.nodeId,
    request: request as unknown as UserInteractionRequest,
    status: status.data,
    deadline: row.deadline,
    ...(response === undefined ? {} : { response: response as unknown as InteractionResponseRecord }),
    ...(failureReason === undefined ? {} : { failureReason: failureReason.data }),
    ...(failureMessage === undefined ? {} : { failureMessage }),
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}
