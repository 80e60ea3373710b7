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

/**
 * The gate's tools as Interlock sees them (F56, F62), made once per name from the policies:
 * the decision workflow, the answer checks and the binding of decisions to their definition
 * all see the same tool. A framework whose tools the gate learns only when the agent runs
 * (the AI SDK's tool set) gives their JSON Schemas with {@link describe} before the first
 * call of each is decided.
 */
export class GateToolbox {
  private readonly made = new Map<string, Tool>();
  private readonly learned = new Map<string, Record<string, unknown>>();

  constructor(
    private readonly policies: Readonly<Record<string, GateToolPolicy>>,
    private readonly unknownTool: GateToolPolicy,
    private readonly workspaceRoot: string,
    private readonly check: JsonSchemaCheck,
  ) {}

  /** The tool Interlock decides about when the agent calls `name` (made on first use, then kept). */
  tool(name: string): Tool {
    const known = this.made.get(name);
    if (known !== undefined) return known;
    const policy = Object.hasOwn(this.policies, name) ? (this.policies[name] as GateToolPolicy) : this.unknownTool;
    const jsonSchema = policy.jsonSchema ?? this.learned.get(name);
    const made = gateTool(
      name,
      jsonSchema === undefined ? policy : { ...policy, jsonSchema },
      this.workspaceRoot,
      this.check,
    );
    this.made.set(name, made);
    return made;
  }

  /** SHA-256 of the definition of `name` a decision is bound to. */
  definitionHash(name: string): string {
    return this.tool(name).definitionHash;
  }

  /**
   * The framework's JSON Schemas of tools whose policy gives none: an approver's edit is
   * checked against them. A tool already decided about in this process keeps the definition
   * it was decided under (its decisions are bound to it).
   */
  describe(schemas: Readonly<Record<string, Record<string, unknown>>>): void {
    for (const [name, schema] of Object.entries(schemas)) {
      if (!this.made.has(name) && !this.learned.has(name)) this.learned.set(name, schema);
    }
  }
}
