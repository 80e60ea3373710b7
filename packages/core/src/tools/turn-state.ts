import { argumentsProblem } from '../policy/canonical-arguments.js';
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

/**
 * A call as the model proposed it. Arguments that are not plain JSON (NaN, a Map, nesting
 * deeper than the limit: a custom provider can hand anything over) are replaced by `{}`
 * with an `argumentsError`: that one call is refused and the model told, the run goes on.
 */
export function newTurnCall(call: { id: string; name: string; arguments: Record<string, unknown>; argumentsError?: string }): TurnCall {
  const problem = call.argumentsError === undefined ? argumentsProblem(call.arguments) : undefined;
  const args = problem === undefined ? call.arguments : {};
  const argumentsError = call.argumentsError ?? (problem === undefined ? undefined : `they are not plain JSON: ${problem}`);
  return {
    id: call.id,
    name: call.name,
    arguments: args,
    finalArguments: args,
    ...(argumentsError === undefined ? {} : { argumentsError }),
    phase: 'new',
  };
}
