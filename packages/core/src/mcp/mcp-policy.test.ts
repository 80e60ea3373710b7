import { describe, expect, it } from 'vitest';
import { parseProjectConfig } from '../config/project-config.js';
import { mcpServersOf } from '../index.js';
import { mapMcpTool } from './mcp-policy.js';

/** Issue 17: an MCP server's annotations are untrusted hints — they tighten, never loosen. */
describe('mapMcpTool', () => {
  it("reads the annotations with MCP's defaults when nothing is configured", () => {
    expect(mapMcpTool(undefined, {})).toEqual({
      category: 'network',
      riskLevel: 'HIGH',
      idempotent: false,
      requireResultApproval: false,
    });
    expect(mapMcpTool({ readOnlyHint: true, openWorldHint: false }, {})).toMatchObject({
      category: 'read',
      riskLevel: 'LOW',
    });
    expect(mapMcpTool({ readOnlyHint: true }, {})).toMatchObject({ category: 'read', riskLevel: 'LOW' });
    expect(mapMcpTool({ readOnlyHint: true, openWorldHint: true }, {})).toMatchObject({
      category: 'network',
      riskLevel: 'LOW',
    });
    expect(mapMcpTool({ readOnlyHint: false, destructiveHint: false, openWorldHint: false }, {})).toMatchObject({
      category: 'write',
      riskLevel: 'MEDIUM',
    });
    expect(
      mapMcpTool({ readOnlyHint: false, destructiveHint: true, openWorldHint: false, idempotentHint: true }, {}),
    ).toEqual({ category: 'write', riskLevel: 'HIGH', idempotent: true, requireResultApproval: false });
  });

  it('never lets a hint loosen what the configuration says', () => {
    // A server claiming read-only does not lower a configured write, MEDIUM or non-idempotent tool.
    expect(
      mapMcpTool(
        { readOnlyHint: true, idempotentHint: true },
        { category: 'write', riskLevel: 'MEDIUM', idempotent: false },
      ),
    ).toMatchObject({ category: 'write', riskLevel: 'MEDIUM', idempotent: false });
    expect(mapMcpTool({ destructiveHint: false }, { category: 'ask', riskLevel: 'HIGH' })).toMatchObject({
      category: 'ask',
      riskLevel: 'HIGH',
    });
  });

  it('lets an explicit hint tighten what the configuration says', () => {
    expect(
      mapMcpTool({ readOnlyHint: false, destructiveHint: true }, { category: 'read', riskLevel: 'LOW' }),
    ).toMatchObject({ category: 'write', riskLevel: 'HIGH' });
    expect(mapMcpTool({ openWorldHint: true }, { category: 'read' })).toMatchObject({ category: 'network' });
    expect(mapMcpTool({ idempotentHint: false }, { idempotent: true })).toMatchObject({ idempotent: false });
    // Hints the server leaves out change nothing that is configured.
    expect(mapMcpTool({}, { category: 'read', riskLevel: 'LOW', idempotent: true })).toMatchObject({
      category: 'read',
      riskLevel: 'LOW',
      idempotent: true,
    });
  });
});

describe('[mcp.servers] in the project file', () => {
  const loaded = (text: string) => ({
    path: '/app/interlock.toml',
    directory: '/app',
    config: parseProjectConfig(text, '/app/interlock.toml'),
  });

  it('reads stdio and Streamable HTTP servers, secrets from the variables it names', () => {
    process.env['MCP_TEST_TOKEN'] = 'Bearer t0k3n';
    process.env['MCP_TEST_HOME'] = '/home/x';
    const servers = mcpServersOf(
      loaded(`
[mcp.servers.fs]
command = "npx"
args = ["-y", "@modelcontextprotocol/server-filesystem", "."]
env = ["MCP_TEST_HOME"]
risk = "medium"
timeout = "30s"
tools = { write_file = { risk = "HIGH", resultApproval = true } }

[mcp.servers.github]
url = "https://mcp.example.com/mcp"
headersEnv = { Authorization = "MCP_TEST_TOKEN" }
category = "network"
`),
    );
    expect(servers).toEqual([
      {
        name: 'fs',
        transport: {
          type: 'stdio',
          command: 'npx',
          args: ['-y', '@modelcontextprotocol/server-filesystem', '.'],
          env: { MCP_TEST_HOME: '/home/x' },
          cwd: '/app',
        },
        riskLevel: 'MEDIUM',
        timeoutMs: 30_000,
        tools: { write_file: { riskLevel: 'HIGH', requireResultApproval: true } },
      },
      {
        name: 'github',
        transport: { type: 'http', url: 'https://mcp.example.com/mcp', headers: { Authorization: 'Bearer t0k3n' } },
        category: 'network',
      },
    ]);
  });

  it('refuses a server with neither or both transports, a bad name, a zero timeout, or an unset variable', () => {
    expect(() => loaded('[mcp.servers.x]\nargs = ["a"]')).toThrow(/either `command` \(stdio\) or `url`/);
    expect(() => loaded('[mcp.servers.x]\ncommand = "a"\nurl = "http://127.0.0.1/mcp"')).toThrow(
      /either `command` \(stdio\) or `url`/,
    );
    expect(() => loaded('[mcp.servers.a__b]\ncommand = "a"')).toThrow(/MCP server name "a__b"/);
    expect(() => loaded('[mcp.servers.x]\ncommand = "a"\ntimeout = 0')).toThrow(/timeout above 0/);
    expect(() =>
      loaded('[mcp.servers.x]\nurl = "http://127.0.0.1/mcp"\nheadersEnv = { Authorization = "lower" }'),
    ).toThrow(/environment variable name/);
    expect(() => mcpServersOf(loaded('[mcp.servers.x]\ncommand = "a"\nenv = ["MCP_TEST_UNSET_VARIABLE"]'))).toThrow(
      /mcp.servers.x.env: the environment variable MCP_TEST_UNSET_VARIABLE is not set/,
    );
  });
});

describe('lineDiff', () => {
  it('marks removed lines before added ones, with two lines of context and … for the rest', async () => {
    const { lineDiff } = await import('../tools/tool-pins.js');
    const before = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'];
    const after = ['a', 'b', 'c', 'd', 'E', 'f', 'g', 'h'];
    expect(lineDiff(before, after)).toBe(['  …', '  c', '  d', '- e', '+ E', '  f', '  g', '  …'].join('\n'));
    expect(lineDiff(['x'], ['x', 'y'])).toBe('  x\n+ y');
    expect(lineDiff(['x', 'y'], ['y'])).toBe('- x\n  y');
  });
});
