import { InterlockError } from '@interlock/core';
import { asSchema, type ToolSet } from 'ai';

/**
 * The JSON Schema of each tool's `inputSchema` (zod, `jsonSchema()`, a Standard Schema), as
 * the SDK itself reads it: an approver's edit is checked against it (F19, F56).
 *
 * @throws InterlockError INVALID_OPTIONS when a tool's input schema cannot be read as JSON Schema.
 */
export async function toolSchemas(tools: ToolSet): Promise<Record<string, Record<string, unknown>>> {
  const schemas: Record<string, Record<string, unknown>> = {};
  for (const [name, tool] of Object.entries(tools)) {
    const inputSchema = (tool as { inputSchema?: Parameters<typeof asSchema>[0] }).inputSchema;
    if (inputSchema === undefined) continue;
    try {
      const { $schema: _dialect, ...schema } = (await asSchema(inputSchema).jsonSchema) as Record<string, unknown>;
      schemas[name] = schema;
    } catch (error) {
      throw new InterlockError('INVALID_OPTIONS', `the input schema of tool ${name} cannot be read as JSON Schema`, {
        cause: error,
      });
    }
  }
  return schemas;
}
