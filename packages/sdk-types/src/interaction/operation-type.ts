import { z } from 'zod';

/** What the engine does with a person's answer. */
export const UserInteractionOperationType = z.enum(['UPDATE_VARIABLES', 'ADD_MESSAGE', 'TOOL_APPROVAL']);
export type UserInteractionOperationType = z.infer<typeof UserInteractionOperationType>;

/** Why an interaction failed (F8). */
export const InteractionFailureReason = z.enum([
  'timeout',
  'cancelled',
  'handler_error',
  'invalid_response',
  'no_handler',
]);
export type InteractionFailureReason = z.infer<typeof InteractionFailureReason>;

export const InteractionStatus = z.enum(['pending', 'responded', 'processed', 'failed']);
export type InteractionStatus = z.infer<typeof InteractionStatus>;
