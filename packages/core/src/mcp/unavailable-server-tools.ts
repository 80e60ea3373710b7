import { z } from 'zod';
import { InterlockError } from '../errors/interlock-error.js';
import type { Tool } from '../tools/define-tool.js';
import type { McpServerDown } from './mcp-client.js';
import { isToolOfServers } from './servers-to-start.js';

/**
 * The tools of MCP servers that are down (issue 24): a name `mcp__<server>__<tool>` of one of
 * `down` is a tool that exists but cannot be called here. A workflow that names it loads;
 * a call to it is refused by the rules (`tool:unavailable`) before anyone is asked, and
 * running it anyway (approval switched off) fails with MCP_UNAVAILABLE naming the server.
 * Other names go to `fallback`.
 */
export function unavailableServerTools(
  down: readonly McpServerDown[],
  fallback?: (name: string) => Tool | undefined,
): ((name: string) => Tool | undefined) | undefined {
  if (down.length === 0) return fallback;
  return (name) => {
    const problem = down.find(({ server }) => isToolOfServers(name, [server]));
    return problem === undefined ? fallback?.(name) : unavailableTool(name, problem);
  };
}

function unavailableTool(name: string, { server, message }: McpServerDown): Tool {
  const reason = `MCP server "${server}" is down, so ${name} is unavailable (${message})`;
  return {
    name,
    description: `Unavailable: MCP server "${server}" is down`,
    parameters: z.record(z.string(), z.unknown()),
    jsonSchema: { type: 'object', additionalProperties: true },
    category: 'network',
    riskLevel: 'HIGH',
    definitionHash: '',
    tags: ['mcp', `mcp:${server}`],
    unavailable: `${reason} (MCP_UNAVAILABLE)`,
    execute: () => Promise.reject(new InterlockError('MCP_UNAVAILABLE', reason, { details: { server } })),
  };
}
