import { z } from 'zod';
import { Duration } from '../workflow/duration.js';
import { VariableAssignment } from '../workflow/variables.js';
import { InputKind } from './input-kind.js';

/** The message an ADD_MESSAGE interaction appends to the conversation (F5). */
export const InteractionMessageTemplate = z.strictObject({
  role: z.literal('user').default('user'),
  /** Rendered with `{{ input }}` bound to the raw answer, and the variables in scope. */
  contentTemplate: z.string().min(1),
});
export type InteractionMessageTemplate = z.infer<typeof InteractionMessageTemplate>;

const common = {
  /** The question shown to the person; a template over the variables in scope. */
  prompt: z.string().min(1),
  /** Overrides the workflow's `config.timeout`; `0` waits until answered. */
  timeout: Duration.optional(),
  /** Opaque data for the app (never read by the engine). */
  metadata: z.record(z.string(), z.unknown()).default({}),
  input: InputKind.optional(),
};

/**
 * The business meaning of a USER_INTERACTION node: what to ask and what to do with the
 * answer. It has no UI fields: how to ask is the app's business (seed 004).
 */
export const UserInteractionNodeConfig = z.discriminatedUnion('operationType', [
  z.strictObject({
    operationType: z.literal('UPDATE_VARIABLES'),
    variables: z.array(VariableAssignment).min(1, 'UPDATE_VARIABLES needs at least one variable'),
    ...common,
  }),
  z.strictObject({
    operationType: z.literal('ADD_MESSAGE'),
    message: InteractionMessageTemplate,
    ...common,
  }),
]);
export type UserInteractionNodeConfig = z.infer<typeof UserInteractionNodeConfig>;
