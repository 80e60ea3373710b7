import { InterlockError } from '../errors/interlock-error.js';
import { createHash } from 'node:crypto';
import { z } from 'zod';
import { argumentsProblem, canonicalJson } from '../policy/canonical-arguments.js';
import { RiskLevel, type ToolCategory } from '@interlock/sdk-types';

/** What a tool's `execute` gets besides its arguments. */
export interface ToolContext {
  threadId: string;
  nodeId: string;
  toolCallId: string;
  /**
   * Aborted when the thread is cancelled, the process closes, or this process's claim on the
   * thread ends (it froze or was cut off past its lease, and another process may take the
   * thread over): check it right before the side effect, and when it is aborted, throw
   * (`signal.throwIfAborted()`) — never return as if the call ran. Whatever `execute`
   * returns once the signal is aborted is not taken as the call's result: the call counts
   * as not finished, and whoever takes the thread forward next asks a person what became
   * of it (F40).
   */
  signal: AbortSignal;
  /**
   * The claim this call runs under: the thread and its fencing epoch, which only goes up.
   * Hand it to a system that can refuse a stale writer (a conditional write on
   * `epoch >= stored`, an idempotency key `threadId:toolCallId`): a process that lost its
   * claim then cannot apply the effect after the one that took over.
   */
  fence: { threadId: string; epoch: number };
  /** The directory file and shell tools are confined to. */
  workspaceRoot: string;
  /** What the approver said, when a person approved the call. */
  approval?: { userInstruction?: string; responder?: string };
  /**
   * The call's approval receipt (F63): a compact JWS, signed right before the call runs,
   * naming the tool, its definition, the hash of exactly these arguments, the thread and
   * call, who approved and the audit entry that records it. Forward it to the service the
   * tool calls (the `Interlock-Receipt` header, MCP `_meta["interlock/receipt"]`): the
   * service checks it with `verifyReceipt` of `@interlock/receipts`. Absent when receipts
   * are off.
   */
  receipt?: string;
}

/** What `needsApproval` can look at. */
export interface NeedsApprovalContext<Arguments> {
  arguments: Arguments;
  mode: 'default' | 'autoEdit' | 'yolo';
  channel: string;
}

/** What a tool author writes. `riskLevel` is read in any case and also accepts PUBLIC / MODERATE / SENSITIVE (seed 001). */
export interface ToolDefinition<Parameters extends z.ZodType> {
  name: string;
  description: string;
  parameters: Parameters;
  category: ToolCategory;
  riskLevel:
    | RiskLevel
    | 'PUBLIC'
    | 'MODERATE'
    | 'SENSITIVE'
    | Lowercase<RiskLevel | 'PUBLIC' | 'MODERATE' | 'SENSITIVE'>
    | Capitalize<Lowercase<RiskLevel | 'PUBLIC' | 'MODERATE' | 'SENSITIVE'>>;
  /** Always ask a person before it runs, in every mode (like category `ask`). */
  requireExecutionApproval?: boolean;
  /** Show the result to a person before the model sees it (F13). */
  requireResultApproval?: boolean;
  /** Return false to let a call run without asking (pipeline step 9). */
  needsApproval?(context: NeedsApprovalContext<z.output<Parameters>>): boolean;
  /** Safe to run again after a crash left its outcome unknown. */
  idempotent?: boolean;
  tags?: string[];
  /** For shell tools: the command line a call would run, so the shell rules can classify it. */
  shellCommand?(args: z.output<Parameters>): string;
  /**
   * For file tools: the paths (relative to the workspace) a call would write, so the
   * pipeline can refuse one outside the workspace and protect Interlock's store, `.git`,
   * shell startup files and settings in every mode.
   */
  writesPaths?(args: z.output<Parameters>): string[];
  execute(args: z.output<Parameters>, context: ToolContext): Promise<unknown>;
}

/** A tool as the engine uses it. */
export interface Tool<Parameters extends z.ZodType = z.ZodType> extends Omit<ToolDefinition<Parameters>, 'riskLevel'> {
  riskLevel: RiskLevel;
  /** The parameters as JSON Schema, as the model sees them. */
  jsonSchema: Record<string, unknown>;
  /**
   * SHA-256 of what defines the tool for an approver: name, description, category, risk and
   * parameters. A remembered approval is bound to it: a tool redefined under the same name
   * is asked about again.
   */
  definitionHash: string;
  /**
   * Set for a tool defined elsewhere (an MCP server's): its first approval pins
   * `definitionHash`, and a call under a changed definition is asked about again, with the
   * change shown (`definition` is what the approver is shown and compared).
   */
  pinned?: { definition: Record<string, unknown> };
  /**
   * Set when the tool cannot be called in this process (its MCP server is down, issue 24):
   * why. Every call is refused with it before anyone is asked (`tool:unavailable`).
   */
  unavailable?: string;
}

/**
 * Defines a tool (F11).
 *
 * @example
 * const greet = defineTool({
 *   name: 'greet', description: 'Greets someone', category: 'read', riskLevel: 'LOW',
 *   parameters: z.object({ name: z.string() }),
 *   execute: async ({ name }) => `hello ${name}`,
 * });
 */
export function defineTool<Parameters extends z.ZodType>(definition: ToolDefinition<Parameters>): Tool<Parameters> {
  const { $schema: _ignored, ...jsonSchema } = z.toJSONSchema(definition.parameters, {
    io: 'input',
    unrepresentable: 'any',
  });
  const risk = RiskLevel.safeParse(definition.riskLevel);
  if (!risk.success) {
    throw new InterlockError(
      'INVALID_OPTIONS',
      `tool "${definition.name}": riskLevel: ${risk.error.issues[0]?.message ?? 'is not a risk level'}`,
      { details: { path: `tools.${definition.name}.riskLevel` } },
    );
  }
  const riskLevel = risk.data;
  const identity = {
    name: definition.name,
    description: definition.description,
    category: definition.category,
    riskLevel,
    parameters: jsonSchema,
  };
  const definitionHash = createHash('sha256').update(canonicalJson(identity)).digest('hex');
  return { ...definition, parameters: jsonOutputOnly(definition.parameters), riskLevel, jsonSchema, definitionHash };
}

/**
 * The tool's schema, refusing arguments it would turn into something that is not JSON (issue
 * 24): a transform to a `Date`, a `Map`, `NaN` or `undefined` would be decided, remembered and
 * hashed as if it were another value. The call is refused with the reason, like arguments
 * that do not fit, and the model is told.
 */
function jsonOutputOnly<Parameters extends z.ZodType>(parameters: Parameters): Parameters {
  const checked = parameters.transform((value, context) => {
    const problem = argumentsProblem(value);
    if (problem === undefined) return value;
    context.addIssue({
      code: 'custom',
      message: `the tool's schema turns these arguments into something that is not JSON: ${problem}`,
    });
    return z.NEVER;
  });
  // The same input and output types: only values that are not JSON are refused.
  return checked as unknown as Parameters;
}
