import { isAbsolute } from 'node:path';
import type { ToolApprovalDetails, UserInteractionRequest } from '@interlock/sdk-types';
import { z } from 'zod';
import { CLAUDE_CODE_TOOL_SCHEMAS } from '../approval-gate/claude-code-schemas.js';
import { agentTool, CLAUDE_CODE_TOOLS } from '../mcp/agent-tools.js';
import { canonicalJson } from '../policy/canonical-arguments.js';
import { builtinTools } from '../tools/builtin/index.js';
import type { Tool } from '../tools/define-tool.js';

/** The JSON Schema Claude Code's tools are decided with (any object: the agent checks its own). */
const AGENT_SCHEMA = canonicalJson(agentTool('Write', '/').jsonSchema);

/**
 * The tool the rules decide an edit about in a process that does not hold it (a deployment's
 * web inbox, `interlock respond`): its name, category and risk as the request states them,
 * its parameters from the JSON Schema the request carries. When the request is about a tool
 * Interlock knows — a built-in with the same schema, or a tool of Claude Code's asked about
 * through `interlock mcp serve` — the rules also see what it runs and writes (the shell rules,
 * the workspace and the protected paths), as the worker that holds it will.
 *
 * @param workspaceRoot - the workspace an agent's absolute paths are read against: the one the
 *   question was asked in ({@link workspaceOfRequest}), never merely the answerer's own.
 * @returns the tool, or why an edit cannot be checked here.
 */
export function standInTool(details: ToolApprovalDetails, workspaceRoot: string): Tool | { problem: string } {
  const { toolName, parametersSchema } = details;
  if (parametersSchema === undefined)
    return {
      problem: `tool ${toolName} is not available here, and its request carries no schema to check the edit against`,
    };
  const known = knownTool(toolName, canonicalJson(parametersSchema), workspaceRoot);
  let parameters: z.ZodType;
  try {
    // A built-in's own parameters; an agent's tool (Claude Code's) by the schema the request carries.
    parameters =
      known !== undefined && known.tags?.includes('agent') !== true
        ? known.parameters
        : z.fromJSONSchema(parametersSchema);
  } catch {
    return { problem: `the schema of ${toolName} cannot be read here: approve or reject the call as proposed` };
  }
  return {
    name: toolName,
    description: details.toolDescription,
    parameters,
    jsonSchema: parametersSchema,
    category: details.category,
    riskLevel: details.riskLevel,
    definitionHash: '',
    ...(known?.shellCommand === undefined ? {} : { shellCommand: known.shellCommand }),
    ...(known?.writesPaths === undefined ? {} : { writesPaths: known.writesPaths }),
    execute: () => Promise.reject(new Error(`${toolName} is not held by this process: a worker runs it`)),
  };
}

/**
 * The workspace a stored approval request was asked in: `metadata.workspaceRoot`, which the
 * asking process records (an absolute path), or `fallback` (this process's own) for a
 * request stored before it was recorded. An agent's absolute paths are read against it, so
 * an answerer whose working directory differs judges the path as the asking process will.
 */
export function workspaceOfRequest(request: UserInteractionRequest, fallback: string): string {
  const recorded = request.metadata['workspaceRoot'];
  return typeof recorded === 'string' && isAbsolute(recorded) ? recorded : fallback;
}

function knownTool(name: string, schema: string, workspaceRoot: string): Tool | undefined {
  const builtin = builtinTools.find((tool) => tool.name === name) as Tool | undefined;
  if (builtin !== undefined && canonicalJson(builtin.jsonSchema) === schema) return builtin;
  const claudeSchema = CLAUDE_CODE_TOOL_SCHEMAS[name];
  const asClaudeCode =
    schema === AGENT_SCHEMA || (claudeSchema !== undefined && schema === canonicalJson(claudeSchema));
  if (Object.hasOwn(CLAUDE_CODE_TOOLS, name) && asClaudeCode) return agentTool(name, workspaceRoot);
  return undefined;
}
