import { createHash } from 'node:crypto';
import { isAbsolute, relative } from 'node:path';
import type { RiskLevel, ToolCategory } from '@interlock/sdk-types';
import { z } from 'zod';
import { canonicalJson } from '../policy/canonical-arguments.js';
import type { Tool } from '../tools/define-tool.js';

/**
 * How Interlock sees one tool of an agent written on another framework (F56): the tool runs
 * in that framework, Interlock only decides about its calls, by the same rules as its own
 * tools — category and risk, the shell rules for a command, the protected paths for a
 * file write, and the tool's JSON Schema for an approver's edit.
 */
export interface GateToolPolicy {
  /** `read` runs without asking, `write`/`command`/`network` ask in default mode, `ask` always asks. */
  category: ToolCategory;
  /** LOW runs without asking; MEDIUM is remembered for the session once approved; HIGH asks every time. */
  riskLevel: RiskLevel | 'low' | 'medium' | 'high';
  /** What the approver is shown about the tool. */
  description?: string;
  /** The tool's parameters as JSON Schema: an approver's edit is checked against it. Default: any object. */
  jsonSchema?: Record<string, unknown>;
  /** The argument holding the shell command a call runs: the command is decided by the shell rules. */
  commandArgument?: string;
  /** The argument holding the path a call writes: protected paths and the workspace apply to it. */
  pathArgument?: string;
}

/** The policy of a tool the gate was not told about: a person decides, in every mode (fail closed). */
export const UNKNOWN_GATE_TOOL: GateToolPolicy = {
  category: 'ask',
  riskLevel: 'MEDIUM',
  description: "A tool of the agent's that Interlock was not told about",
};

/** Checks a value against a JSON Schema (the MCP SDK's Ajv). */
export type JsonSchemaCheck = (schema: Record<string, unknown>) => (value: unknown) => string | undefined;

let validatorLoaded: Promise<JsonSchemaCheck> | undefined;

/** The JSON Schema check the gate's tools use, loaded once. */
export function loadJsonSchemaCheck(): Promise<JsonSchemaCheck> {
  validatorLoaded ??= import('@modelcontextprotocol/sdk/validation/ajv').then(({ AjvJsonSchemaValidator }) => {
    const validator = new AjvJsonSchemaValidator();
    return (schema) => {
      let validate: (value: unknown) => { valid: boolean; errorMessage?: string | undefined };
      try {
        validate = validator.getValidator(schema);
      } catch (error) {
        const problem = `the tool's JSON Schema cannot be checked (${error instanceof Error ? error.message : String(error)}), so no edit is accepted`;
        return () => problem;
      }
      return (value) => {
        const result = validate(value);
        return result.valid ? undefined : (result.errorMessage ?? 'the arguments do not match the tool’s schema');
      };
    };
  });
  return validatorLoaded;
}

/**
 * The tool Interlock decides about when the agent calls `name`. It is only ever decided
 * about (a `decideOnly` TOOL node hands back the approved arguments): running it is refused.
 */
export function gateTool(name: string, policy: GateToolPolicy, workspaceRoot: string, check: JsonSchemaCheck): Tool {
  const jsonSchema = policy.jsonSchema ?? { type: 'object', additionalProperties: true };
  const validate = check(jsonSchema);
  const parameters = z.record(z.string(), z.unknown()).superRefine((value, context) => {
    const problem = validate(value);
    if (problem !== undefined) context.addIssue({ code: 'custom', message: problem });
  });
  const riskLevel = policy.riskLevel.toUpperCase() as RiskLevel;
  const description = policy.description ?? `The agent's tool ${name}`;
  const definitionHash = createHash('sha256')
    .update(canonicalJson({ gateTool: name, category: policy.category, riskLevel, description, jsonSchema }))
    .digest('hex');
  const { commandArgument, pathArgument } = policy;
  return {
    name,
    description,
    parameters,
    jsonSchema,
    category: policy.category,
    riskLevel,
    definitionHash,
    tags: ['agent'],
    ...(commandArgument === undefined
      ? {}
      : { shellCommand: (args: Record<string, unknown>) => argumentText(args[commandArgument]) }),
    ...(pathArgument === undefined
      ? {}
      : {
          writesPaths: (args: Record<string, unknown>) => [
            workspacePath(argumentText(args[pathArgument]), workspaceRoot),
          ],
        }),
    execute: () =>
      Promise.reject(
        new Error(`${name} is an agent's tool: Interlock decides about it and never runs it (a decideOnly TOOL node)`),
      ),
  };
}

function argumentText(value: unknown): string {
  if (typeof value === 'string') return value;
  return value === undefined || value === null ? '' : JSON.stringify(value);
}

/** An absolute path inside the workspace as a relative one (the rules' form); outside it stays absolute, and is refused. */
function workspacePath(path: string, workspaceRoot: string): string {
  if (!isAbsolute(path)) return path;
  const inside = relative(workspaceRoot, path);
  return inside === '' || inside.startsWith('..') || isAbsolute(inside) ? path : inside;
}
