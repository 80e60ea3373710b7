import { z } from 'zod';
import { RECEIPT_HEADER } from '@interlock/receipts';
import { defineTool } from '../define-tool.js';

const MAX_BODY = 50_000;
const MAX_REDIRECTS = 20;

/**
 * Fetches a URL with GET and returns the status and the text of the body. The call's
 * approval receipt goes with the request in the `Interlock-Receipt` header (F63), so the
 * service can check that exactly this URL was approved; a redirect to another origin is
 * followed without it (the receipt is for the URL approved, and names its approvers).
 */
export const httpFetchTool = defineTool({
  name: 'http_fetch',
  description: 'Fetch a URL with GET and return the HTTP status and the body as text (truncated).',
  parameters: z.object({ url: z.url({ protocol: /^https?$/ }) }),
  category: 'network',
  riskLevel: 'MEDIUM',
  idempotent: true,
  tags: ['network'],
  async execute({ url }, context) {
    const origin = new URL(url).origin;
    let at = url;
    let response: Response | undefined;
    for (let hop = 0; hop <= MAX_REDIRECTS; hop += 1) {
      const receipt = context.receipt !== undefined && new URL(at).origin === origin ? context.receipt : undefined;
      response = await fetch(at, {
        signal: context.signal,
        redirect: 'manual',
        ...(receipt === undefined ? {} : { headers: { [RECEIPT_HEADER]: receipt } }),
      });
      const location = response.headers.get('location');
      if (response.status < 300 || response.status > 399 || location === null) break;
      await response.body?.cancel();
      at = new URL(location, at).href;
      if (hop === MAX_REDIRECTS) throw new Error(`more than ${String(MAX_REDIRECTS)} redirects from ${url}`);
    }
    const final = response as Response;
    const body = await final.text();
    return { status: final.status, body: body.length > MAX_BODY ? `${body.slice(0, MAX_BODY)}…(truncated)` : body };
  },
});
