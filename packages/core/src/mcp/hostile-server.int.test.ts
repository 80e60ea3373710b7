import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { linearWorkflow } from '../__fixtures__/workflows.js';
import {
  approve,
  connectMcpServers,
  createInterlock,
  defineHandler,
  type McpServerOptions,
  type UserInteractionRequest,
} from '../index.js';
import { DIFF_LIMITS } from '../tools/tool-pins.js';
import { scriptedModel } from '../testing/index.js';
import { LISTING_LIMITS } from './mcp-client.js';

/*
 * Issue 24, items 6, 7 and 10, from the server's side: a real MCP server on the official SDK
 * that sends schemas with nested quantifiers, pages that never end, two schemas with one
 * `$id`, and names dressed as other names. Every step Interlock takes is bounded, and each
 * tool is checked against its own schema.
 */
const HOSTILE_SERVER = fileURLToPath(new URL('./__fixtures__/hostile-server.mjs', import.meta.url));

let directory: string;
beforeAll(async () => {
  directory = await mkdtemp(join(tmpdir(), 'interlock-hostile-'));
});
afterAll(() => rm(directory, { recursive: true, force: true }));

const hostile = (mode: string, extra: Partial<McpServerOptions> = {}): McpServerOptions => ({
  name: 'evil',
  transport: { type: 'stdio', command: process.execPath, args: [HOSTILE_SERVER], env: { HOSTILE_MODE: mode } },
  ...extra,
});

async function listed(mode: string, extra: Partial<McpServerOptions> = {}) {
  const mcp = await connectMcpServers([hostile(mode, extra)]);
  const tool = (name: string) => {
    const found = mcp.tools.find((entry) => entry.name === `mcp__evil__${name}`);
    if (found === undefined) throw new Error(`no tool ${name}: ${mcp.tools.map((entry) => entry.name).join(', ')}`);
    return found;
  };
  return { mcp, tool };
}

describe('a hostile MCP server (issue 24)', () => {
  it('checks a pattern with nested quantifiers in linear time, in names of properties too (F47)', async () => {
    const { mcp, tool } = await listed('redos');
    try {
      // 40 characters: a backtracking engine would take days on each.
      const text = `${'a'.repeat(40)}!`;
      expect(tool('nested').parameters.safeParse({ text }).success).toBe(false);
      expect(tool('nested').parameters.safeParse({ text: 'aaaa' }).success).toBe(true);
      expect(tool('keys').parameters.safeParse({ [`${'b'.repeat(40)}!`]: 'x' }).success).toBe(false);
      expect(tool('keys').parameters.safeParse({ bbb: 'x' }).success).toBe(true);
    } finally {
      await mcp.close();
    }
  });

  it('refuses every call of a tool whose pattern needs backtracking (look-ahead) rather than run it slowly (F47)', async () => {
    const { mcp, tool } = await listed('redos');
    try {
      const result = tool('lookahead').parameters.safeParse({ text: 'aaa' });
      expect(result.success).toBe(false);
      expect(result.error?.issues[0]?.message).toMatch(/cannot be checked/);
    } finally {
      await mcp.close();
    }
  });

  it("checks a result's structured output against a nested quantifier in linear time: the call is an ERROR, not a stall (F47)", async () => {
    const interlock = await createInterlock({
      models: {
        default: scriptedModel([
          { text: '', toolCalls: [{ id: 'c1', name: 'mcp__evil__output', arguments: {} }] },
          'Done.',
        ]),
      },
      mcpServers: [hostile('redos')],
      workspaceRoot: directory,
    });
    try {
      const workflow = interlock.registerWorkflow(
        linearWorkflow([{ id: 'agent', type: 'LLM', config: { prompt: 'Go', tools: ['mcp__evil__output'] } }], {
          id: 'hostile-output',
        }),
      );
      const handle = await interlock.start(workflow, { channel: 'cli' });
      expect(await handle.done()).toMatchObject({ status: 'completed' });
      const [call] = await interlock.audit({ threadId: handle.threadId });
      expect(call).toMatchObject({ toolName: 'mcp__evil__output', outcome: 'allow' });
      const thread = await interlock.thread(handle.threadId);
      const toolMessage = thread?.conversation.find((message) => message.role === 'tool');
      expect(toolMessage?.content).toMatch(/^\[ERROR\][\s\S]*output schema/);
    } finally {
      await interlock.close();
    }
  });

  it('stops listing a server that always offers another page, naming the limit (F47)', async () => {
    const mcp = await connectMcpServers([hostile('pages')]);
    try {
      expect(mcp.tools).toEqual([]);
      expect(mcp.problems).toEqual([
        { server: 'evil', message: expect.stringContaining(`stops listing after ${LISTING_LIMITS.maxPages} pages`) },
      ]);
    } finally {
      await mcp.close();
    }
  });

  it('checks each tool against its own schema when two schemas share an $id (F47)', async () => {
    const { mcp, tool } = await listed('shared-id');
    try {
      expect(tool('first').parameters.safeParse({ a: 'x' }).success).toBe(true);
      expect(tool('first').parameters.safeParse({ b: 1 }).success).toBe(false);
      expect(tool('second').parameters.safeParse({ b: 1 }).success).toBe(true);
      expect(tool('second').parameters.safeParse({ a: 'x' }).success).toBe(false);
    } finally {
      await mcp.close();
    }
  });

  it('warns about a per-tool floor that matches no tool, such as one written for a look-alike name (F47, F49)', async () => {
    const mcp = await connectMcpServers([hostile('lookalike', { tools: { delete_all: { riskLevel: 'HIGH' } } })]);
    try {
      // The server's tool is `delete_аll` with a Cyrillic а: the file's floor for `delete_all` applies to nothing.
      expect(mcp.tools.find((tool) => tool.name === 'mcp__evil__delete_\u0430ll')?.riskLevel).toBe('LOW');
      expect(mcp.warnings).toEqual([
        expect.objectContaining({
          server: 'evil',
          tool: 'delete_all',
          message: expect.stringContaining('"delete_all"'),
        }),
      ]);
    } finally {
      await mcp.close();
    }
  });

  it('asks again, with a bounded diff, when a 20,000-line definition changes, instead of failing the call (F47)', async () => {
    const store = join(directory, 'long.db');
    const run = async (salt: string) => {
      const asked: UserInteractionRequest[] = [];
      const interlock = await createInterlock({
        store: { type: 'sqlite', path: store },
        models: {
          default: scriptedModel([
            { text: '', toolCalls: [{ id: 'c1', name: 'mcp__evil__long', arguments: {} }] },
            'Done.',
          ]),
        },
        mcpServers: [
          {
            ...hostile('lines'),
            transport: {
              type: 'stdio',
              command: process.execPath,
              args: [HOSTILE_SERVER],
              env: { HOSTILE_MODE: 'lines', HOSTILE_LINES: '20000', HOSTILE_SALT: salt },
            },
            riskLevel: 'MEDIUM',
          },
        ],
        handlers: {
          cli: defineHandler({
            handle: async (request: UserInteractionRequest) => {
              asked.push(request);
              return approve();
            },
          }),
        },
      });
      try {
        const workflow = interlock.registerWorkflow(
          linearWorkflow([{ id: 'agent', type: 'LLM', config: { prompt: 'Go', tools: ['mcp__evil__long'] } }], {
            id: `long-${salt}`,
          }),
        );
        const outcome = await (await interlock.start(workflow, { channel: 'cli' })).done();
        return { outcome, asked };
      } finally {
        await interlock.close();
      }
    };
    // Read-only by its hints and pinned on its first run: it runs without asking.
    expect((await run('a')).outcome).toMatchObject({ status: 'completed' });
    const changed = await run('b');
    expect(changed.outcome).toMatchObject({ status: 'completed' });
    expect(changed.asked.map((request) => request.toolApproval?.rule)).toEqual(['pin:definition-changed']);
    const diff = changed.asked[0]?.toolApproval?.definitionChange?.diff ?? '';
    expect(diff.split('\n').length).toBeLessThanOrEqual(DIFF_LIMITS.maxShownLines + 1);
  }, 60_000);

  it('never starts a server it was not asked to start (F49)', async () => {
    const ledger = join(directory, 'not-started.txt');
    const interlock = await createInterlock({
      mcpServers: [
        {
          name: 'evil',
          transport: {
            type: 'stdio',
            command: process.execPath,
            args: [HOSTILE_SERVER],
            env: { HOSTILE_LEDGER: ledger },
          },
        },
      ],
      connectMcp: false,
      approval: { toolOverrides: { mcp__evil__steal: true } },
      handlers: { cli: defineHandler({ handle: async () => approve() }) },
    });
    await interlock.close();
    expect(existsSync(ledger)).toBe(false);
  });
});
