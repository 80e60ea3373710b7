import {
  InterlockError,
  mismatchOf,
  type ApprovalGate,
  type GateCall,
  type GateDecision,
  type GatePending,
} from '@interlock/core';
import { toJsonSchema } from '@langchain/core/utils/json_schema';
import { interopSafeParseAsync, isInteropZodSchema } from '@langchain/core/utils/types';
import { Command } from '@langchain/langgraph';

/** LangChain 1's human-in-the-loop request: what `humanInTheLoopMiddleware` interrupts with. */
export interface HitlRequest {
  actionRequests: { name: string; args: Record<string, unknown>; description?: string }[];
  reviewConfigs?: { actionName: string; allowedDecisions: string[]; argsSchema?: Record<string, unknown> }[];
}

/** LangChain 1's decisions, one per action request, in order. */
export type HitlDecision =
  | { type: 'approve' }
  | { type: 'edit'; editedAction: { name: string; args: Record<string, unknown> } }
  | { type: 'reject'; message?: string };

/** An interrupt of the graph, as its state lists it. */
export interface GraphInterrupt {
  id?: string;
  value?: unknown;
}

/** A tool of the graph as LangChain defines it: its name and its schema (zod, or JSON Schema). */
export interface GraphTool {
  name: string;
  schema: unknown;
}

/**
 * The LangChain tools a compiled graph runs: those of its tool nodes (`ToolNode`, the one
 * `createAgent` builds). Their schemas are what an approver's edit is checked against when
 * the app gives no JSON Schema (F19, F56).
 */
export function toolsOfGraph(graph: unknown): GraphTool[] {
  const nodes = (graph as { nodes?: Record<string, { bound?: { tools?: unknown } }> } | undefined)?.nodes ?? {};
  const found: GraphTool[] = [];
  for (const node of Object.values(nodes)) {
    const tools = node.bound?.tools;
    if (!Array.isArray(tools)) continue;
    for (const tool of tools as unknown[]) {
      const { name, schema } = (tool ?? {}) as { name?: unknown; schema?: unknown };
      if (typeof name === 'string' && schema !== undefined && !found.some((known) => known.name === name))
        found.push({ name, schema });
    }
  }
  return found;
}

/** The JSON Schema of each tool's arguments, as LangChain converts its schema. */
export function schemasOf(tools: readonly GraphTool[]): Record<string, Record<string, unknown>> {
  const schemas: Record<string, Record<string, unknown>> = {};
  for (const { name, schema } of tools) {
    try {
      const { $schema: _dialect, ...jsonSchema } = toJsonSchema(schema as Parameters<typeof toJsonSchema>[0]) as Record<
        string,
        unknown
      >;
      schemas[name] = jsonSchema;
    } catch (error) {
      throw new InterlockError('INVALID_OPTIONS', `the schema of tool ${name} cannot be read as JSON Schema`, {
        cause: error,
      });
    }
  }
  return schemas;
}

/** The action requests of the interrupts as the gate's calls, in order; an interrupt that is not a human-in-the-loop request is refused. */
export function callsOf(interrupts: readonly GraphInterrupt[]): GateCall[] {
  return interrupts.flatMap((interrupt, position) => {
    const request = interrupt.value as Partial<HitlRequest> | undefined;
    if (!Array.isArray(request?.actionRequests)) {
      throw new InterlockError(
        'INVALID_OPTIONS',
        'the graph interrupted with a value that is not a human-in-the-loop request ({ actionRequests }): Interlock decides only tool calls',
      );
    }
    const id = interrupt.id ?? String(position);
    return request.actionRequests.map((action, index) => ({
      toolCallId: `${id}:${String(index)}`,
      toolName: action.name,
      arguments: action.args,
    }));
  });
}

/**
 * The resume value for the interrupts the graph stands at: each interrupt's decisions, in
 * the order of its action requests. `decisions[i]` is the i-th action request's, and is
 * used only if it decided exactly that call (F62); an edit that does not fit the tool's own
 * schema is turned into a rejection the model can act on (never LangChain's error with its
 * stack); a call without a decision is rejected.
 */
export async function resumeCommand(
  gate: ApprovalGate,
  interrupts: readonly GraphInterrupt[],
  decisions: readonly (GateDecision | GatePending)[],
  tools: readonly GraphTool[],
): Promise<Command> {
  const calls = callsOf(interrupts);
  const hitl = await Promise.all(
    calls.map(async (call, index) => {
      const given = decisions[index];
      const decision = given !== undefined && gate.decidedExactly(given, call) ? given : mismatchOf(call);
      return toHitlDecision(await fitting(decision, tools));
    }),
  );
  let next = 0;
  const responses = interrupts.map((interrupt) => {
    const count = (interrupt.value as HitlRequest).actionRequests.length;
    next += count;
    return { decisions: hitl.slice(next - count, next) };
  });
  const [only] = responses;
  if (only !== undefined && responses.length === 1) return new Command({ resume: only });
  return new Command({
    resume: Object.fromEntries(interrupts.map((interrupt, index) => [interrupt.id ?? String(index), responses[index]])),
  });
}

/** An approved edit checked against the tool's own schema (a zod refinement JSON Schema cannot say). */
export async function fitting(
  decision: GateDecision | GatePending,
  tools: readonly GraphTool[],
): Promise<GateDecision | GatePending> {
  if (decision.status !== 'approved' || !decision.edited) return decision;
  const schema = tools.find((tool) => tool.name === decision.toolName)?.schema;
  if (schema === undefined || !isInteropZodSchema(schema)) return decision;
  const parsed = await interopSafeParseAsync(schema, decision.arguments);
  if (parsed.success) return decision;
  const { toolCallId, toolName, proposed, toolDefinitionHash, threadId } = decision;
  return {
    toolCallId,
    toolName,
    proposed,
    toolDefinitionHash,
    threadId,
    status: 'rejected',
    reason: `the edited arguments do not fit the schema of ${toolName}, so the call was not run: call it again`,
    decidedBy: 'schema',
  };
}

function toHitlDecision(decision: GateDecision | GatePending): HitlDecision {
  if (decision.status === 'approved') {
    return decision.edited
      ? { type: 'edit', editedAction: { name: decision.toolName, args: decision.arguments } }
      : { type: 'approve' };
  }
  const reason = decision.status === 'rejected' ? decision.reason : 'no decision was found';
  const instruction =
    decision.status === 'rejected' && decision.instruction !== undefined ? ` ${decision.instruction}` : '';
  return { type: 'reject', message: `Interlock: ${reason}${instruction}` };
}
