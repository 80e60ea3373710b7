import { canonicalJson, receiptInScope, runWithReceipts, type GateDecision } from '@interlock/core';
import type { Tool } from '@openai/agents';

/** One approved call, as the tool may run it once: the call as proposed, and what the approver changed. */
export interface ApprovedRun {
  toolName: string;
  /** The arguments as the model proposed them (canonical JSON): the call the decision is bound to. */
  proposed: string;
  /** The arguments to run instead (an approver's edit). */
  arguments?: Record<string, unknown>;
  instruction?: string;
  /** The decision that approved it: its receipt is signed from it right before the call runs (F63). */
  decision: Extract<GateDecision, { status: 'approved' }>;
}

/** Signs the receipt of an approved call about to run (the gate's `receipt`), or none. */
export type ReceiptSigner = (
  decision: GateDecision,
  call: { toolName: string; arguments: Record<string, unknown> },
) => Promise<string | undefined>;

/**
 * The calls Interlock approved, waiting to run, by the model's call id (F62). Each approval
 * lets exactly one call run — the same tool with the same arguments as decided — once; a
 * call the SDK would run without one (an id reused after an approval, another call under an
 * approved id) finds none and is refused.
 */
export class ApprovedRuns {
  private readonly byCallId = new Map<string, ApprovedRun[]>();

  /** Keeps an approved call for its run. */
  add(callId: string, decision: Extract<GateDecision, { status: 'approved' }>): void {
    const run: ApprovedRun = {
      toolName: decision.toolName,
      proposed: canonicalJson(decision.proposed),
      ...(decision.edited ? { arguments: decision.arguments } : {}),
      ...(decision.instruction === undefined ? {} : { instruction: decision.instruction }),
      decision,
    };
    this.byCallId.set(callId, [...(this.byCallId.get(callId) ?? []), run]);
  }

  /** Takes the approval of exactly this call (tool and arguments as proposed), if one waits. */
  take(callId: string, toolName: string, input: string): ApprovedRun | undefined {
    const runs = this.byCallId.get(callId) ?? [];
    const proposed = canonicalOf(input);
    const index = runs.findIndex((run) => run.toolName === toolName && run.proposed === proposed);
    if (index === -1) return undefined;
    const [run] = runs.splice(index, 1);
    if (runs.length === 0) this.byCallId.delete(callId);
    return run;
  }
}

/** What the model reads for a call Interlock did not approve as it stands. */
export const NOT_DECIDED =
  'Interlock: this call was not run: it is not the call Interlock decided (its id was reused, or its arguments changed). Call the tool again.';

/**
 * The agent's tools with every function call under approval (`needsApproval`), each run
 * only on an approval of exactly that call (F62), with an approver's edited arguments when
 * there are some, and its approval receipt at hand (F63). The SDK approves a call only as the model proposed it, so the edit is
 * applied where the tool is invoked and the model is told, in the tool's output, which
 * arguments ran and what the approver said.
 */
export function interlockedTools(tools: readonly Tool[], approved: ApprovedRuns, sign: ReceiptSigner): Tool[] {
  return tools.map((tool) => {
    if (tool.type !== 'function') return tool;
    return {
      ...tool,
      needsApproval: () => Promise.resolve(true),
      invoke: async (runContext, input, details): Promise<unknown> => {
        const callId = details?.toolCall?.callId;
        const run = callId === undefined ? undefined : approved.take(callId, tool.name, input);
        if (run === undefined) return NOT_DECIDED;
        const runWith = run.arguments === undefined ? input : JSON.stringify(run.arguments);
        // The call's approval receipt (F63), for the tool to forward: `currentReceipt()` inside its execute.
        const args = run.arguments ?? argumentsOf(input);
        const receipt = await sign(run.decision, { toolName: tool.name, arguments: args });
        const scoped = receipt === undefined ? [] : [receiptInScope(receipt, tool.name, args)];
        const output = (await runWithReceipts(scoped, () => tool.invoke(runContext, runWith, details))) as unknown;
        const notes = [
          ...(run.arguments === undefined ? [] : [`The approver edited the arguments; the call ran with ${runWith}.`]),
          ...(run.instruction === undefined ? [] : [`The approver added: ${run.instruction}`]),
        ];
        return typeof output === 'string' && notes.length > 0 ? `${output}\n\n${notes.join('\n')}` : output;
      },
    };
  });
}

function canonicalOf(input: string): string {
  return canonicalJson(argumentsOf(input));
}

/** A call's arguments (the model's JSON text) as the gate decides them. */
export function argumentsOf(text: string | undefined): Record<string, unknown> {
  if (text === undefined || text === '') return {};
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : { value };
  } catch {
    return { arguments: text };
  }
}
