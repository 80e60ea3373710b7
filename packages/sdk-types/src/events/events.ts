import { z } from 'zod';
import { ToolCallStatus } from '../tools/tool-types.js';
import { InteractionFailureReason, UserInteractionOperationType } from '../interaction/operation-type.js';
import { UserInteractionRequest } from '../interaction/user-interaction-request.js';
import { ErrorCode } from '../errors/error-codes.js';

const base = {
  threadId: z.string(),
  workflowId: z.string(),
  /** ISO 8601. */
  timestamp: z.string(),
};
const event = <T extends string, S extends z.ZodRawShape>(type: T, shape: S) =>
  z.strictObject({ type: z.literal(type), ...base, ...shape });

// Annotated so declarations name ErrorCode instead of spelling its members out at every use.
export const ThreadError: z.ZodObject<
  { code: typeof ErrorCode; message: z.ZodString; nodeId: z.ZodOptional<z.ZodString> },
  z.core.$strict
> = z.strictObject({
  code: ErrorCode,
  message: z.string(),
  nodeId: z.string().optional(),
});
export type ThreadError = z.infer<typeof ThreadError>;

const interaction = {
  interactionId: z.string(),
  nodeId: z.string(),
  operationType: UserInteractionOperationType,
};

const toolCall = {
  nodeId: z.string(),
  toolCallId: z.string(),
  toolName: z.string(),
  arguments: z.record(z.string(), z.unknown()),
};

/** Everything the engine reports, in order, per thread. */
export const InterlockEvent = z.discriminatedUnion('type', [
  event('THREAD_STARTED', { input: z.record(z.string(), z.unknown()), channel: z.string() }),
  event('THREAD_SUSPENDED', { interactionIds: z.array(z.string()) }),
  event('THREAD_RESUMED', { interactionId: z.string().optional() }),
  event('THREAD_COMPLETED', { output: z.unknown(), variables: z.record(z.string(), z.unknown()) }),
  event('THREAD_FAILED', { error: ThreadError }),
  event('THREAD_CANCELLED', { reason: z.string().optional() }),

  event('NODE_STARTED', { nodeId: z.string(), nodeType: z.string() }),
  event('NODE_COMPLETED', { nodeId: z.string(), nodeType: z.string(), next: z.string().nullable() }),
  event('NODE_FAILED', { nodeId: z.string(), nodeType: z.string(), error: ThreadError }),

  event('USER_INTERACTION_REQUESTED', { ...interaction, request: UserInteractionRequest }),
  event('USER_INTERACTION_RESPONDED', { ...interaction, input: z.unknown(), responder: z.string().optional() }),
  event('USER_INTERACTION_PROCESSED', {
    ...interaction,
    /** Variables written, or the message appended. */
    updatedVariables: z.record(z.string(), z.unknown()).optional(),
    appendedMessage: z.string().optional(),
  }),
  event('USER_INTERACTION_FAILED', { ...interaction, reason: InteractionFailureReason, message: z.string() }),
  /** An approval that waited past its escalation time is offered to the escalation approvers too (F51). */
  event('USER_INTERACTION_ESCALATED', { ...interaction, approvers: z.array(z.string()) }),

  event('LLM_CALL_STARTED', { nodeId: z.string(), model: z.string(), round: z.number().int() }),
  event('LLM_TEXT_DELTA', { nodeId: z.string(), delta: z.string() }),
  event('LLM_CALL_COMPLETED', {
    nodeId: z.string(),
    model: z.string(),
    round: z.number().int(),
    text: z.string(),
    toolCallCount: z.number().int(),
  }),
  event('LLM_CALL_FAILED', { nodeId: z.string(), model: z.string(), error: ThreadError }),

  event('TOOL_CALL_REQUESTED', { ...toolCall }),
  event('TOOL_CALL_DECIDED', { ...toolCall, decision: z.enum(['allow', 'ask', 'deny']), rule: z.string() }),
  event('TOOL_CALL_STARTED', { ...toolCall }),
  event('TOOL_CALL_COMPLETED', { ...toolCall, status: ToolCallStatus, result: z.unknown().optional() }),
  event('TOOL_CALL_FAILED', { ...toolCall, status: ToolCallStatus, message: z.string() }),
  /** A call started before a crash and never finished, and its tool is not idempotent: a person decides. */
  event('TOOL_CALL_OUTCOME_UNKNOWN', { ...toolCall }),
]);
export type InterlockEvent = z.infer<typeof InterlockEvent>;
export type InterlockEventType = InterlockEvent['type'];
export type EventOfType<T extends InterlockEventType> = Extract<InterlockEvent, { type: T }>;
