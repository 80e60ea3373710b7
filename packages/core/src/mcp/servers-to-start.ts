import type { LoadedProjectConfig } from '../config/project-config.js';
import { mcpServersOf } from '../config/project-options.js';
import { mcpToolName, type McpServerOptions } from './mcp-client.js';

/** Which MCP servers an Interlock starts, and which it only knows by name. */
export interface ServersToStart {
  /** The servers to connect (their commands run, their URLs are reached). */
  started: McpServerOptions[];
  /** Declared servers left alone: their tools' names are accepted where a name is checked, unchecked. */
  notStarted: string[];
}

/**
 * The servers of the project file and of the options that `connect` asks for (issue 24):
 * `true` (or undefined) all of them, `false` none, a list of names those. Only the servers
 * started have their options resolved (their environment variables read): a command that
 * reads the store or checks a file starts nothing and needs none of their secrets.
 */
export function serversToStart(
  loaded: LoadedProjectConfig | undefined,
  given: readonly McpServerOptions[],
  connect: boolean | readonly string[] | undefined,
): ServersToStart {
  const declared = [...Object.keys(loaded?.config.mcp?.servers ?? {}), ...given.map((server) => server.name)];
  const wanted = (name: string) =>
    typeof connect === 'boolean' || connect === undefined ? connect !== false : connect.includes(name);
  const fromFile = loaded === undefined ? [] : mcpServersOf(loaded, (name) => wanted(name));
  return {
    started: [...fromFile, ...given.filter((server) => wanted(server.name))],
    notStarted: declared.filter((name) => !wanted(name)),
  };
}

/** Whether `toolName` would be a tool of one of `servers` (`mcp__<server>__<tool>`). */
export function isToolOfServers(toolName: string, servers: readonly string[]): boolean {
  return servers.some(
    (server) => toolName.startsWith(mcpToolName(server, '')) && toolName.length > mcpToolName(server, '').length,
  );
}
