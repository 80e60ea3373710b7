import type { ToolCallStatus } from '@interlock/sdk-types';

/** One tool call of a model turn (or of a TOOL node), as checkpointed while it is decided and run. */
export interface TurnCall {
  id: string;
  name: string;
  /** The arguments as the model proposed them. */
  arguments: Record<string, unknown>;
  /** What runs: the proposed arguments, or the approver's edit. */
  finalArguments: Record<string, unknown>;
  argumentsError?: string;
  phase: 'new' | 'awaiting-approval' | 'ready' | 'awaiting-result' | 'awaiting-recovery' | 'done';
  /** Who approved it (a rule, a callback, or `person`), for the write-ahead record. */
  approvedBy?: string;
  /** The pipeline's decision. */
  rule?: string;
  rememberable?: boolean;
  interactionId?: string;
  /** A result waiting for approval. */
  result?: unknown;
  status?: ToolCallStatus;
  /** The tool's result, when it succeeded. */
  output?: unknown;
  /** What the model is told (the tool message), once done. */
  content?: string;
  userInstruction?: string;
  responder?: string;
}

export interface TurnState {
  calls: TurnCall[];
}

export function newTurnCall(call: { id: string; name: string; arguments: Record<string, unknown>; argumentsError?: string }): TurnCall {
  return {
    id: call.id,
    name: call.name,
    arguments: call.arguments,
    finalArguments: call.arguments,
    ...(call.argumentsError === undefined ? {} : { argumentsError: call.argumentsError }),
    phase: 'new',
  };
}
