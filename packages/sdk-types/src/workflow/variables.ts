import { z } from 'zod';

/**
 * Where a variable lives.
 * - `global`: shared by every thread of a workflow, kept in the store.
 * - `thread`: one run of a workflow, shared with the subgraphs it runs.
 * - `subgraph`: the current workflow frame only (a SUBGRAPH's child does not see its parent's).
 * - `loop`: one iteration of the enclosing LOOP node; reset at every iteration.
 */
export const VariableScope = z.enum(['global', 'thread', 'subgraph', 'loop']);
export type VariableScope = z.infer<typeof VariableScope>;

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;
export const VariableName = z
  .string()
  .regex(IDENTIFIER, 'expected an identifier: a letter or _ followed by letters, digits or _');
export type VariableName = z.infer<typeof VariableName>;

/** A variable the workflow declares, with its scope and its initial value. */
export const VariableDeclaration = z.strictObject({
  name: VariableName,
  scope: VariableScope.default('thread'),
  default: z.unknown().optional(),
  description: z.string().optional(),
});
export type VariableDeclaration = z.infer<typeof VariableDeclaration>;

/** A write into a variable: `expression` is a template (`{{ input == 'yes' }}`). */
export const VariableAssignment = z.strictObject({
  variableName: VariableName,
  expression: z.string(),
  /** Must match the declared scope when given; defaults to it. */
  scope: VariableScope.optional(),
});
export type VariableAssignment = z.infer<typeof VariableAssignment>;
