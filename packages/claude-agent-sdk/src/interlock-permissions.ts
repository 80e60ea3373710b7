import {
  CLAUDE_CODE_TOOL_SCHEMAS,
  CLAUDE_CODE_TOOLS,
  createApprovalGate,
  mismatchOf,
  type ApprovalGate,
  type ApprovalGateOptions,
  type GateDecision,
  type GateToolPolicy,
} from '@interlock/core';
import type { CanUseTool, HookCallback, HookCallbackMatcher, PermissionResult } from '@anthropic-ai/claude-agent-sdk';

/** Where Claude Code names the tool use a `tools/call` request runs, in its `_meta`. */
const TOOL_USE_ID_META = 'claudecode/toolUseId';
const MAX_KEPT_RECEIPTS = 500;

export interface InterlockPermissionsOptions extends Omit<ApprovalGateOptions, 'continuation' | 'name'> {
  /** The gate's name (one per app in a store). Default `claude-agent-sdk`. */
  name?: string;
  /**
   * How Interlock sees each tool, by name, over Claude Code's own (`Read` is a LOW read,
   * `Write`/`Edit` MEDIUM writes of `file_path`, `Bash` a command decided by the shell rules…).
   * Any other tool (an MCP server's) is category `ask`: a person decides every call.
   */
  tools?: Record<string, GateToolPolicy>;
  /** The session the decisions belong to (session memory, the chat). Default: a new one per call. */
  sessionId?: string;
}

/**
 * Claude Code's built-in tools as Interlock sees them, each with the input schema the SDK
 * publishes for it: an approver's edit is checked against it (F19).
 */
export function claudeCodeToolPolicies(): Record<string, GateToolPolicy> {
  return Object.fromEntries(
    Object.entries(CLAUDE_CODE_TOOLS).map(([name, shape]) => {
      const jsonSchema = CLAUDE_CODE_TOOL_SCHEMAS[name];
      return [
        name,
        {
          category: shape.category,
          riskLevel: shape.riskLevel,
          description: shape.description,
          ...(shape.command === undefined ? {} : { commandArgument: shape.command }),
          ...(shape.writes === undefined ? {} : { pathArgument: shape.writes }),
          ...(jsonSchema === undefined ? {} : { jsonSchema }),
        },
      ];
    }),
  );
}

/**
 * Interlock as the permission layer of the Claude Agent SDK (F56): a `canUseTool` and a
 * `PreToolUse` hook backed by Interlock's pipeline. A call a rule decides is answered at
 * once; a call that needs a person waits in the web inbox, the chat or `interlock pending`,
 * answered from any process, while the SDK awaits the promise. An edit comes back as
 * `updatedInput`, a rejection's reason as the `message` the model reads, and the SDK's
 * `signal` cancels the question when the agent gives up.
 */
export class InterlockPermissions {
  /** Receipts of approved MCP calls about to run, by Claude Code's tool-use id, until their tool takes them (F63). */
  private readonly receipts = new Map<string, string>();

  /** @internal Use {@link interlockPermissions}. */
  constructor(
    /** The gate: its Interlock answers, lists what waits and reads the audit. */
    readonly gate: ApprovalGate,
    private readonly sessionId: string | undefined,
  ) {}

  /** `options.canUseTool` of `query()`. */
  readonly canUseTool: CanUseTool = async (toolName, input, { signal, toolUseID }) => {
    const decision = await this.decide(toolName, input, toolUseID, signal);
    return permissionOf(decision);
  };

  /** `options.hooks` of `query()`: a `PreToolUse` hook that decides every call (use it or `canUseTool`). */
  hooks(): { PreToolUse: HookCallbackMatcher[] } {
    const preToolUse: HookCallback = async (input, toolUseID, { signal }) => {
      if (input.hook_event_name !== 'PreToolUse') return {};
      const toolInput = isObject(input.tool_input) ? input.tool_input : {};
      const decision = await this.decide(input.tool_name, toolInput, toolUseID ?? input.tool_use_id, signal);
      return {
        hookSpecificOutput:
          decision.status === 'approved'
            ? {
                hookEventName: 'PreToolUse',
                permissionDecision: 'allow',
                permissionDecisionReason: `Interlock: ${decision.decidedBy}`,
                updatedInput: decision.arguments,
              }
            : {
                hookEventName: 'PreToolUse',
                permissionDecision: 'deny',
                permissionDecisionReason: `Interlock: ${decision.reason}`,
              },
      };
    };
    return { PreToolUse: [{ hooks: [preToolUse] }] };
  }

  /**
   * The approval receipt of an MCP tool's call Interlock approved (F63), for the tool to
   * forward to its service: give the tool's `extra` (Claude Code names the call in
   * `extra._meta["claudecode/toolUseId"]`) or the tool-use id. Each is handed out once.
   * Claude Code's built-in tools (Bash, Write, …) act themselves and get none.
   *
   * @example
   * tool('refund', 'Refunds an order', { orderId: z.string() }, async (args, extra) =>
   *   callRefundService(args, permissions.receiptFor(extra)));
   */
  receiptFor(of: unknown): string | undefined {
    const meta = isObject(of) && isObject(of['_meta']) ? of['_meta'] : {};
    const id = typeof of === 'string' ? of : meta[TOOL_USE_ID_META];
    if (typeof id !== 'string') return undefined;
    const receipt = this.receipts.get(id);
    this.receipts.delete(id);
    return receipt;
  }

  /** Stops the gate. */
  close(): Promise<void> {
    return this.gate.close();
  }

  /**
   * Decides this one call, afresh, whatever its id (F62): the SDK asks about each call it is
   * about to run, and runs the arguments given back (`updatedInput`) — the ones decided.
   */
  private async decide(
    toolName: string,
    input: Record<string, unknown>,
    toolUseID: string,
    signal: AbortSignal,
  ): Promise<GateDecision> {
    const call = { toolCallId: toolUseID, toolName, arguments: input };
    const outcome = await this.gate.decide([call], {
      signal,
      ...(this.sessionId === undefined ? {} : { session: { sessionId: this.sessionId } }),
    });
    const [decision] = outcome.decisions;
    // Fail closed: anything but the decision of exactly this call is a rejection.
    if (decision === undefined || decision.status === 'pending' || !this.gate.decidedExactly(decision, call))
      return mismatchOf(call);
    if (decision.status === 'approved' && toolName.startsWith('mcp__')) await this.keepReceipt(toolUseID, decision);
    return decision;
  }

  /** Signs the receipt of an approved MCP call, which Claude Code runs next, for its tool to take (F63). */
  private async keepReceipt(toolUseID: string, decision: GateDecision): Promise<void> {
    if (decision.status !== 'approved') return;
    const receipt = await this.gate.receipt(decision, { toolName: decision.toolName, arguments: decision.arguments });
    if (receipt === undefined) return;
    this.receipts.set(toolUseID, receipt);
    // A receipt nobody takes (a server outside this process) is let go after the latest few hundred.
    for (const id of this.receipts.keys()) {
      if (this.receipts.size <= MAX_KEPT_RECEIPTS) break;
      this.receipts.delete(id);
    }
  }
}

function permissionOf(decision: GateDecision): PermissionResult {
  if (decision.status === 'approved') return { behavior: 'allow', updatedInput: decision.arguments };
  const instruction = decision.instruction === undefined ? '' : ` ${decision.instruction}`;
  return { behavior: 'deny', message: `Interlock: ${decision.reason}${instruction}` };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Creates the permission layer of a Claude Agent SDK app (F56).
 *
 * @example
 * const permissions = await interlockPermissions({ store: { type: 'sqlite' }, workspaceRoot: process.cwd() });
 * for await (const message of query({ prompt: 'Tidy the README', options: { canUseTool: permissions.canUseTool } })) console.log(message);
 */
export async function interlockPermissions(options: InterlockPermissionsOptions = {}): Promise<InterlockPermissions> {
  const { name, tools = {}, sessionId, ...gateOptions } = options;
  const gate = await createApprovalGate({
    ...gateOptions,
    name: name ?? 'claude-agent-sdk',
    tools: { ...claudeCodeToolPolicies(), ...tools },
  });
  return new InterlockPermissions(gate, sessionId);
}
