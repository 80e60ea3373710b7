import type { ToolCallStatus } from '@interlock/sdk-types';
import type { ApprovalDecision } from '../policy/decide-approval.js';
import type { Tool } from './define-tool.js';
import { parseStrictly } from './strict-arguments.js';
import { argumentsOf, type NewCall } from './turn-state.js';

/** What a new call is before the rules see it: refused outright, or admitted with the arguments that run. */
export type Admission =
  | {
      kind: 'refused';
      status: Extract<ToolCallStatus, 'NOT_FOUND' | 'ERROR'>;
      message: string;
      audited?: { rule: string; reason: string };
    }
  | { kind: 'admitted'; finalArguments: Record<string, unknown> };

/**
 * Admission (pure): a call to a tool the node does not offer is NOT_FOUND (and audited as
 * denied); arguments that are not JSON, or do not match the tool's schema, are an ERROR the
 * model can fix; anything else goes to the rules with the schema's parse of its arguments.
 * A call to an offered tool that is not registered goes to the rules too: they say NOT_FOUND.
 */
export function admit(call: NewCall, tool: Tool | undefined, offered: readonly string[]): Admission {
  if (!offered.includes(call.name)) {
    const names = offered.join(', ') || 'none';
    return {
      kind: 'refused',
      status: 'NOT_FOUND',
      message: `No tool named "${call.name}" is available here. Available tools: ${names}.`,
      audited: { rule: 'tool:not-offered', reason: `not among this node's tools (${names})` },
    };
  }
  if (!tool) return { kind: 'admitted', finalArguments: argumentsOf(call) };
  if (call.argumentsError !== undefined) {
    return {
      kind: 'refused',
      status: 'ERROR',
      message: `The arguments were not a usable JSON object (${call.argumentsError}). Call ${call.name} again with arguments that match its schema.`,
    };
  }
  const parsed = tool.parameters.safeParse(call.arguments);
  if (!parsed.success) {
    const problems = parsed.error.issues
      .map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`)
      .join('; ');
    return {
      kind: 'refused',
      status: 'ERROR',
      message: `The arguments do not match the schema of ${tool.name}: ${problems}. Fix them and call again.`,
    };
  }
  return { kind: 'admitted', finalArguments: parsed.data as Record<string, unknown> };
}

/** What a rule's allow or deny does to a call (pure; `ask` is not a ruling): it runs, or it ends with this status and message. */
export function ruling(
  call: NewCall,
  decision: Pick<ApprovalDecision, 'outcome' | 'rule' | 'reason' | 'notFound'>,
  registered: readonly string[],
):
  | { runs: true }
  | { runs: false; status: Extract<ToolCallStatus, 'NOT_FOUND' | 'EXECUTION_REJECTED'>; message: string } {
  if (decision.outcome === 'allow') return { runs: true };
  if (decision.notFound)
    return {
      runs: false,
      status: 'NOT_FOUND',
      message: `No tool named "${call.name}". Available tools: ${registered.join(', ') || 'none'}.`,
    };
  return {
    runs: false,
    status: 'EXECUTION_REJECTED',
    message: `denied by policy (${decision.rule}): ${decision.reason}`,
  };
}

/**
 * Why arguments a person edited may not run (pure): the tool is not here, they do not fit
 * its schema, or a rule denies them (`decide`); undefined when they may.
 */
export function refuseEdit(
  toolName: string,
  tool: Tool | undefined,
  edited: Record<string, unknown>,
  decide: (call: {
    toolName: string;
    arguments: Record<string, unknown>;
  }) => Pick<ApprovalDecision, 'outcome' | 'rule' | 'reason'>,
): string | undefined {
  if (!tool) return `the edited arguments were refused: tool ${toolName} is not available here`;
  const parsed = parseStrictly(tool.parameters, edited);
  if (!parsed.ok) {
    return `the edited arguments were refused: they do not match the schema of ${tool.name} (${parsed.problem})`;
  }
  const decision = decide({ toolName: tool.name, arguments: parsed.value });
  return decision.outcome === 'deny'
    ? `the edited arguments were refused (${decision.rule}): ${decision.reason}`
    : undefined;
}
