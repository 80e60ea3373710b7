import { connectMcpServers, mcpServersOf, openStore, pinState, ToolPins } from '@interlock/core';
import { codePointMarker } from '../approval/visible-text.js';
import { ExitCode } from '../exit-code.js';
import { projectConfig } from '../project-config-option.js';
import { parseStoreOption } from '../store-option.js';
import { colourWanted, createTerminalStyle } from '../terminal-style.js';
import { UsageError } from '../usage-error.js';

/**
 * `interlock mcp list [SERVER…]`: starts the project file's MCP servers (those named, or all),
 * says which on stderr, and shows each tool with its category, risk and pin state. Names
 * come from servers Interlock does not trust: escape sequences, direction changes, invisible
 * and non-ASCII characters are shown as markers, as the inbox does (issue 24). A server that
 * cannot be reached is reported and the others are listed; a per-tool floor of the file that
 * matches no tool is warned about.
 */
export async function listServers(
  names: readonly string[],
  storeSpec: string | undefined,
  json: boolean,
): Promise<ExitCode> {
  const project = projectConfig();
  const declared = Object.keys(project?.config.mcp?.servers ?? {});
  if (project === undefined || declared.length === 0) {
    throw new UsageError(
      'no MCP servers: declare them in interlock.toml under [mcp.servers.<name>] (see docs/mcp.md)',
      'mcp',
    );
  }
  const unknown = names.filter((name) => !declared.includes(name));
  if (unknown.length > 0)
    throw new UsageError(
      `no MCP server ${unknown.map((name) => JSON.stringify(name)).join(', ')} in ${project.path}: it declares ${declared.join(', ')}`,
      'mcp',
    );
  const wanted = names.length === 0 ? declared : names;
  const servers = mcpServersOf(project, (name) => wanted.includes(name));
  process.stderr.write(
    `interlock mcp list: starting MCP server${wanted.length === 1 ? '' : 's'} ${wanted.join(', ')} of ${project.path}\n`,
  );
  const store = await openStore(parseStoreOption(storeSpec, 'mcp').options);
  const mcp = await connectMcpServers(servers);
  try {
    const pins = await new ToolPins(store).all();
    const rows = mcp.listed.map(({ server, tool }) => {
      const { state } = pinState(tool, pins[tool.name]);
      return {
        server,
        tool: tool.name,
        category: tool.category,
        risk: tool.riskLevel,
        idempotent: tool.idempotent === true,
        pin: state === 'same' ? 'pinned' : state,
        definitionHash: tool.definitionHash,
      };
    });
    const style = createTerminalStyle(colourWanted(process.stdout));
    if (json) {
      const text = JSON.stringify({
        servers: servers.map((server) => server.name),
        tools: rows,
        problems: mcp.problems,
        warnings: mcp.warnings,
      });
      process.stdout.write(`${asciiJson(text)}\n`);
    } else {
      for (const server of servers) {
        const problem = mcp.problems.find((entry) => entry.server === server.name);
        process.stdout.write(
          `${style.bold(server.name)}${problem === undefined ? '' : style.red(`  unreachable: ${visibleName(problem.message)}`)}\n`,
        );
        for (const row of rows.filter((entry) => entry.server === server.name)) {
          const pin =
            row.pin === 'changed'
              ? style.red('changed since approved')
              : row.pin === 'pinned'
                ? 'pinned'
                : style.dim('not yet approved');
          process.stdout.write(
            `  ${visibleName(row.tool)}  ${row.category} · ${row.risk}${row.idempotent ? ' · idempotent' : ''} · ${pin}\n`,
          );
        }
      }
      const warn = createTerminalStyle(colourWanted(process.stderr));
      for (const warning of mcp.warnings) process.stderr.write(`${warn.yellow('warning')} ${warning.message}\n`);
    }
    return mcp.problems.length > 0 ? ExitCode.failed : ExitCode.completed;
  } finally {
    await mcp.close();
    await store.close();
  }
}

/**
 * A name or message from a server, as a person can read it (issue 24): every character
 * outside printable ASCII — escape sequences, direction changes, zero-width characters, and
 * look-alike letters (`delete_⟨U+0430⟩ll`: a tool name is an identifier, a Cyrillic letter
 * in it is a disguise) — as the inbox's `⟨U+XXXX⟩` marker.
 */
export function visibleName(text: string): string {
  let shown = '';
  for (const character of text) {
    const codePoint = character.codePointAt(0) ?? 0;
    shown += codePoint >= 0x20 && codePoint <= 0x7e ? character : codePointMarker(codePoint);
  }
  return shown;
}

/** JSON with every character outside printable ASCII written as `\uXXXX`: the same value, nothing hidden on a terminal. */
function asciiJson(text: string): string {
  return text.replace(/[^\x20-\x7e]/g, (character) => `\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
