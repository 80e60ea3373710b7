// An MCP server (the official SDK, stdio) whose `refund` tool acts only on a call Interlock
// approved (F63): Interlock sends the call's receipt in the request's
// `_meta["interlock/receipt"]`, and the server checks it against Interlock's JWKS, the tool
// (as Interlock names it: mcp__<server>__refund) and the arguments, once. `cancel` does the same.
//
//   INTERLOCK_JWKS       Interlock's JWKS as JSON (`interlock receipts keys`), or
//   INTERLOCK_JWKS_URL   where interlock-web serves it (/.well-known/jwks.json)
//   INTERLOCK_SERVER     the server's name in Interlock's configuration (default billing)
//   RECEIPTS_SEEN_FILE   a file the instances of the server share to take each receipt once
import { appendFileSync, readFileSync } from 'node:fs';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import {
  memorySeenStore,
  RECEIPT_META_KEY,
  ReceiptError,
  remoteJwks,
  verifyReceipt,
  type ReceiptSeenStore,
} from '@interlock/receipts';
import { z } from 'zod';

const jwks =
  process.env['INTERLOCK_JWKS_URL'] === undefined
    ? JSON.parse(process.env['INTERLOCK_JWKS'] ?? '{"keys":[]}')
    : remoteJwks(process.env['INTERLOCK_JWKS_URL']);
const server = process.env['INTERLOCK_SERVER'] ?? 'billing';

/** A seen-store in a file the server's instances share (a database or Redis in production). */
function fileSeenStore(path: string): ReceiptSeenStore {
  return {
    firstUse(jti) {
      let seen = '';
      try {
        seen = readFileSync(path, 'utf8');
      } catch {
        // Nothing taken yet.
      }
      if (seen.split('\n').includes(jti)) return false;
      appendFileSync(path, `${jti}\n`);
      return true;
    },
  };
}

const seenFile = process.env['RECEIPTS_SEEN_FILE'];
const once = seenFile === undefined ? memorySeenStore() : fileSeenStore(seenFile);

/** Checks the call's receipt, then acts: a refused receipt is the call's error, with its code. */
async function approved(
  name: string,
  args: unknown,
  meta: Record<string, unknown> | undefined,
  act: (approvers: string[]) => string,
) {
  try {
    const claims = await verifyReceipt(meta?.[RECEIPT_META_KEY], {
      jwks,
      tool: `mcp__${server}__${name}`,
      arguments: args,
      once,
    });
    return { content: [{ type: 'text' as const, text: act(claims.approvers) }] };
  } catch (error) {
    if (!ReceiptError.is(error)) throw error;
    return { isError: true, content: [{ type: 'text' as const, text: `${error.code}: ${error.message}` }] };
  }
}

const mcp = new McpServer({ name: server, version: '1.0.0' });
mcp.registerTool(
  'refund',
  {
    description: 'Refunds an order',
    inputSchema: { orderId: z.string(), amount: z.number() },
    annotations: { destructiveHint: true, openWorldHint: true },
  },
  (args, extra) =>
    approved(
      'refund',
      args,
      extra._meta,
      (approvers) => `refunded ${args.orderId}, approved by ${approvers.join(', ')}`,
    ),
);
mcp.registerTool(
  'cancel',
  {
    description: 'Cancels an order',
    inputSchema: { orderId: z.string(), amount: z.number() },
    annotations: { destructiveHint: true, openWorldHint: true },
  },
  (args, extra) => approved('cancel', args, extra._meta, () => `cancelled ${args.orderId}`),
);
await mcp.connect(new StdioServerTransport());
