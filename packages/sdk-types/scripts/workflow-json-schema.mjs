import { z } from 'zod';

/** Renders the workflow JSON Schema file's text from the zod schema. */
export function renderWorkflowJsonSchema(workflowDefinition) {
  const schema = z.toJSONSchema(workflowDefinition, { io: 'input', unrepresentable: 'any' });
  return `${JSON.stringify({ ...schema, title: 'Interlock workflow' }, null, 2)}\n`;
}
