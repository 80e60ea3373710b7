import type { GateDecision } from '@interlock/core';
import type { Tool } from '@openai/agents';

/** What a person changed about an approved call: the arguments to run and an instruction for the model. */
export interface ApprovedEdit {
  arguments?: Record<string, unknown>;
  instruction?: string;
}

/** Edits by the call's id, filled when decisions are applied and read when the tool runs. */
export type ApprovedEdits = Map<string, ApprovedEdit>;

/** What of an approval the SDK cannot carry itself (it approves a call as proposed): an edit and an instruction. */
export function approvalFor(decision: Extract<GateDecision, { status: 'approved' }>): ApprovedEdit | undefined {
  if (!decision.edited && decision.instruction === undefined) return undefined;
  return {
    ...(decision.edited ? { arguments: decision.arguments } : {}),
    ...(decision.instruction === undefined ? {} : { instruction: decision.instruction }),
  };
}

/**
 * The agent's tools with every function call under approval (`needsApproval`), run with an
 * approver's edited arguments when there are some. The SDK approves a call only as the model
 * proposed it, so the edit is applied where the tool is invoked and the model is told, in
 * the tool's output, which arguments ran and what the approver said.
 */
export function interlockedTools(tools: readonly Tool[], edits: ApprovedEdits): Tool[] {
  return tools.map((tool) => {
    if (tool.type !== 'function') return tool;
    return {
      ...tool,
      needsApproval: () => Promise.resolve(true),
      invoke: async (runContext, input, details): Promise<unknown> => {
        const callId = details?.toolCall?.callId;
        const edit = callId === undefined ? undefined : edits.get(callId);
        if (edit === undefined) return (await tool.invoke(runContext, input, details)) as unknown;
        if (callId !== undefined) edits.delete(callId);
        const runWith = edit.arguments === undefined ? input : JSON.stringify(edit.arguments);
        const output = (await tool.invoke(runContext, runWith, details)) as unknown;
        const notes = [
          ...(edit.arguments === undefined ? [] : [`The approver edited the arguments; the call ran with ${runWith}.`]),
          ...(edit.instruction === undefined ? [] : [`The approver added: ${edit.instruction}`]),
        ];
        return typeof output === 'string' ? `${output}\n\n${notes.join('\n')}` : output;
      },
    };
  });
}
