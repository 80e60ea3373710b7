import { realpathSync } from 'node:fs';
import { isAbsolute, sep } from 'node:path';
import type { RiskLevel, ToolCategory } from '@interlock/sdk-types';
import { z } from 'zod';
import { createHash } from 'node:crypto';
import type { Tool } from '../tools/define-tool.js';

/**
 * The tools of an agent that asks Interlock's MCP server for permission (issue 17): Interlock
 * does not run them, it decides about them — by name, category and risk, with the shell
 * rules for a command and the protected paths for a file write, like its own tools. A tool
 * it does not know (another MCP server's, say) is category `ask`: a person decides, in
 * every mode.
 */
interface AgentToolShape {
  category: ToolCategory;
  riskLevel: RiskLevel;
  description: string;
  /** The command a call would run (shell rules). */
  command?: string;
  /** The argument holding the path a call writes (protected paths, the workspace). */
  writes?: string;
}

/** Claude Code's built-in tools, as Interlock sees them. */
export const CLAUDE_CODE_TOOLS: Readonly<Record<string, AgentToolShape>> = {
  Read: { category: 'read', riskLevel: 'LOW', description: 'Reads a file' },
  Glob: { category: 'read', riskLevel: 'LOW', description: 'Finds files by pattern' },
  Grep: { category: 'read', riskLevel: 'LOW', description: 'Searches file contents' },
  LS: { category: 'read', riskLevel: 'LOW', description: 'Lists a directory' },
  NotebookRead: { category: 'read', riskLevel: 'LOW', description: 'Reads a notebook' },
  TodoWrite: { category: 'read', riskLevel: 'LOW', description: "Updates the agent's own task list" },
  Write: { category: 'write', riskLevel: 'MEDIUM', description: 'Writes a file', writes: 'file_path' },
  Edit: { category: 'write', riskLevel: 'MEDIUM', description: 'Edits a file', writes: 'file_path' },
  MultiEdit: {
    category: 'write',
    riskLevel: 'MEDIUM',
    description: 'Edits a file in several places',
    writes: 'file_path',
  },
  NotebookEdit: { category: 'write', riskLevel: 'MEDIUM', description: 'Edits a notebook', writes: 'notebook_path' },
  Bash: { category: 'command', riskLevel: 'HIGH', description: 'Runs a shell command', command: 'command' },
  WebFetch: { category: 'network', riskLevel: 'MEDIUM', description: 'Fetches a URL' },
  WebSearch: { category: 'network', riskLevel: 'LOW', description: 'Searches the web' },
};

const UNKNOWN: AgentToolShape = {
  category: 'ask',
  riskLevel: 'MEDIUM',
  description: "A tool of the agent's that Interlock does not know",
};

/**
 * The tool Interlock decides about when an agent asks about `name`: arguments are any JSON
 * object (the agent checks its own schema). It is only ever decided about (a `decideOnly`
 * TOOL node hands back the arguments a person approved, maybe edited): running it is refused.
 */
export function agentTool(
  name: string,
  workspaceRoot: string,
  known: Readonly<Record<string, AgentToolShape>> = CLAUDE_CODE_TOOLS,
): Tool {
  const shape = Object.hasOwn(known, name) ? (known[name] as AgentToolShape) : UNKNOWN;
  const parameters = z.record(z.string(), z.unknown());
  const jsonSchema = { type: 'object', additionalProperties: true };
  const definitionHash = createHash('sha256')
    .update(JSON.stringify({ agentTool: name, ...shape }))
    .digest('hex');
  return {
    name,
    description: shape.description,
    parameters,
    jsonSchema,
    category: shape.category,
    riskLevel: shape.riskLevel,
    definitionHash,
    tags: ['agent'],
    ...(shape.command === undefined
      ? {}
      : { shellCommand: (args: Record<string, unknown>) => argumentText(args[shape.command as string]) }),
    ...(shape.writes === undefined
      ? {}
      : {
          writesPaths: (args: Record<string, unknown>) => [
            workspacePath(argumentText(args[shape.writes as string]), workspaceRoot),
          ],
        }),
    execute: () =>
      Promise.reject(
        new Error(`${name} is an agent's tool: Interlock decides about it and never runs it (a decideOnly TOOL node)`),
      ),
  };
}

/** An argument the agent sent as text; anything else (the agent's JSON is not checked) as its JSON. */
function argumentText(value: unknown): string {
  if (typeof value === 'string') return value;
  return value === undefined || value === null ? '' : JSON.stringify(value);
}

/**
 * An agent's absolute path inside the workspace as a relative one (the rules' form); outside
 * it stays absolute, and is refused. Only the prefix is taken off: `..` and symlinks are left
 * for the rules to resolve as the write would (issue 24), never normalised away here.
 */
function workspacePath(path: string, workspaceRoot: string): string {
  if (!isAbsolute(path)) return path;
  for (const root of [workspaceRoot, realOrSame(workspaceRoot)]) {
    const prefix = root.endsWith(sep) ? root : root + sep;
    if (path === root) return '.';
    if (path.startsWith(prefix)) return path.slice(prefix.length);
  }
  return path;
}

function realOrSame(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}
