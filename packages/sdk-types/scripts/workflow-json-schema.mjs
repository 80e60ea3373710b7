import { z } from 'zod';

/** Renders a JSON Schema file's text from a zod schema. */
export function renderJsonSchema(schema, title) {
  const json = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' });
  return `${JSON.stringify({ ...json, title }, null, 2)}\n`;
}

/** Renders the workflow JSON Schema file's text from the zod schema. */
export function renderWorkflowJsonSchema(workflowDefinition) {
  return renderJsonSchema(workflowDefinition, 'Interlock workflow');
}
