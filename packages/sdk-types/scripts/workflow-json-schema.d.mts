import type { z } from 'zod';

/** Renders the workflow JSON Schema file's text from the zod schema. */
export function renderWorkflowJsonSchema(workflowDefinition: z.ZodType): string;
