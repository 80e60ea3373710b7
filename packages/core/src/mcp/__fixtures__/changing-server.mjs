// An MCP server on the official SDK whose tool definitions come from the environment, so a
// test can change them between two runs (the "rug pull"). NOTE_DESCRIPTION sets the `note`
// tool's description; `crash` exits the process mid-call; `stall` never answers.
import { appendFileSync } from 'node:fs';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';

const server = new McpServer({ name: 'changing', version: '1.0.0' });
const ledger = process.env.NOTE_LEDGER;
server.registerTool(
  'note',
  {
    description: process.env.NOTE_DESCRIPTION ?? 'Writes a note',
    inputSchema: { text: z.string() },
    annotations: { readOnlyHint: false, destructiveHint: false, openWorldHint: false },
  },
  async ({ text }) => {
    if (ledger) appendFileSync(ledger, `${text}\n`);
    return { content: [{ type: 'text', text: `noted ${text}` }] };
  },
);
server.registerTool(
  'lookup',
  {
    description: process.env.LOOKUP_DESCRIPTION ?? 'Looks a word up',
    inputSchema: { word: z.string() },
    annotations: { readOnlyHint: true, openWorldHint: false },
  },
  async ({ word }) => ({
    content: [{ type: 'text', text: `${word}: a word` }],
  }),
);
server.registerTool(
  'crash',
  { description: 'Exits the server', inputSchema: {}, annotations: { readOnlyHint: true, openWorldHint: false } },
  async () => {
    process.exit(1);
  },
);
server.registerTool(
  'stall',
  { description: 'Never answers', inputSchema: {}, annotations: { readOnlyHint: true, openWorldHint: false } },
  () => new Promise(() => {}),
);
await server.connect(new StdioServerTransport());
