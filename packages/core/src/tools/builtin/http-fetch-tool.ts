import { z } from 'zod';
import { defineTool } from '../define-tool.js';

const MAX_BODY = 50_000;

/** Fetches a URL with GET and returns the status and the text of the body. */
export const httpFetchTool = defineTool({
  name: 'http_fetch',
  description: 'Fetch a URL with GET and return the HTTP status and the body as text (truncated).',
  parameters: z.object({ url: z.url({ protocol: /^https?$/ }) }),
  category: 'network',
  riskLevel: 'MEDIUM',
  idempotent: true,
  tags: ['network'],
  async execute({ url }, context) {
    const response = await fetch(url, { signal: context.signal, redirect: 'follow' });
    const body = await response.text();
    return { status: response.status, body: body.length > MAX_BODY ? `${body.slice(0, MAX_BODY)}…(truncated)` : body };
  },
});
