import { z } from 'zod';
import { defineTool } from '../define-tool.js';

/**
 * Lets the model ask the person a question. Category `ask`: a person is always asked; the
 * approver's instruction is the answer the model receives.
 */
export const askUserTool = defineTool({
  name: 'ask_user',
  description: 'Ask the user a question and get their answer.',
  parameters: z.object({ question: z.string().min(1) }),
  category: 'ask',
  riskLevel: 'LOW',
  idempotent: true,
  async execute(_args, context) {
    return context.approval?.userInstruction ?? '(the user approved without answering)';
  },
});
