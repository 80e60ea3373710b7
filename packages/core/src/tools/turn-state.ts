import type { ApprovalStage, ToolCallStatus } from '@interlock/sdk-types';
import { argumentsProblem, canonicalJson } from '../policy/canonical-arguments.js';
import type { CallGrant } from '../receipts/receipt-grant.js';
import { toolMessage } from './tool-messages.js';

/** What every phase of a call carries. */
interface CallBase {
  id: string;
  name: string;
  /** The arguments as the model proposed them. */
  arguments: Record<string, unknown>;
  /**
   * What runs when it differs from `arguments`: the schema's parse of them, or the
   * approver's edit. Left out when they are the same (a stored turn keeps one copy).
   */
  finalArguments?: Record<string, unknown>;
  argumentsError?: string;
  /** The pipeline's decision (a rule name), once decided. */
  rule?: string;
  rememberable?: boolean;
  /** Who approved it (a rule, a callback, or `person`), for the write-ahead record. */
  approvedBy?: string;
  userInstruction?: string;
  responder?: string;
  /** The decision that let it run, for its receipt (F63): set when it is approved. */
  grant?: CallGrant;
}

/** Proposed by the model, not yet decided. */
export interface NewCall extends CallBase {
  phase: 'new';
}
/** Approved: it runs as soon as the pipeline gets to it. */
export interface ReadyCall extends CallBase {
  phase: 'ready';
}
/** A person is asked whether it may run. */
export interface AwaitingApproval extends CallBase {
  phase: 'awaiting-approval';
  interactionId: string;
}
/** It ran; a person is (or is about to be, without `interactionId`) asked whether the model sees `result`. */
export interface AwaitingResult extends CallBase {
  phase: 'awaiting-result';
  result: unknown;
  interactionId?: string;
}
/** It started and its outcome is unknown; a person is (or is about to be) asked what happened. */
export interface AwaitingRecovery extends CallBase {
  phase: 'awaiting-recovery';
  interactionId?: string;
  /** When the claim of the process that ran it ended (it may still be running, frozen or cut off). */
  claimEndedAt?: string;
}
/** Finished: `content` is what the model is told. */
export interface DoneCall extends CallBase {
  phase: 'done';
  status: ToolCallStatus;
  content: string;
  /** The tool's result, when it succeeded. */
  output?: unknown;
}

/**
 * One tool call of a model turn (or of a TOOL node), as checkpointed while it is decided and
 * run. Its phase says which fields it has; the functions below are the only ways it moves.
 * The JSON is the checkpoint format: field names stay as they are.
 */
export type TurnCall = NewCall | ReadyCall | AwaitingApproval | AwaitingResult | AwaitingRecovery | DoneCall;
export type AwaitingCall = AwaitingApproval | AwaitingResult | AwaitingRecovery;

export interface TurnState {
  calls: TurnCall[];
}

const STAGE_OF_PHASE = {
  'awaiting-approval': 'execution',
  'awaiting-result': 'result',
  'awaiting-recovery': 'recovery',
} as const;

export function isAwaiting(call: TurnCall): call is AwaitingCall {
  return call.phase in STAGE_OF_PHASE;
}

/** Which question an awaiting call is waiting on. */
export function stageOf(call: AwaitingCall): ApprovalStage {
  return STAGE_OF_PHASE[call.phase];
}

/**
 * A call as the model proposed it. Arguments that are not plain JSON (NaN, a Map, nesting
 * deeper than the limit: a custom provider can hand anything over) are replaced by `{}`
 * with an `argumentsError`: that one call is refused and the model told, the run goes on.
 */
export function newTurnCall(call: {
  id: string;
  name: string;
  arguments: Record<string, unknown>;
  argumentsError?: string;
}): NewCall {
  const problem = call.argumentsError === undefined ? argumentsProblem(call.arguments) : undefined;
  const args = problem === undefined ? call.arguments : {};
  const argumentsError =
    call.argumentsError ?? (problem === undefined ? undefined : `they are not plain JSON: ${problem}`);
  return {
    id: call.id,
    name: call.name,
    arguments: args,
    ...(argumentsError === undefined ? {} : { argumentsError }),
    phase: 'new',
  };
}

/** The fields every phase keeps; what belongs to the phase being left is dropped. */
function baseOf(call: TurnCall): CallBase {
  const { phase: _phase, ...rest } = call as CallBase & {
    phase: string;
    interactionId?: string;
    result?: unknown;
    status?: unknown;
    content?: unknown;
    output?: unknown;
    claimEndedAt?: unknown;
  };
  const {
    claimEndedAt: _claimEndedAt,
    interactionId: _interaction,
    result: _result,
    status: _status,
    content: _content,
    output: _output,
    ...base
  } = rest;
  return base;
}

/** It may run, with `finalArguments` when an approver edited them. */
export function approve(
  call: TurnCall,
  approvedBy: string | undefined,
  finalArguments?: Record<string, unknown>,
): ReadyCall {
  return {
    ...(finalArguments ? withArguments(baseOf(call), finalArguments) : baseOf(call)),
    ...(approvedBy === undefined ? {} : { approvedBy }),
    phase: 'ready',
  };
}

/** The arguments the call runs with. */
export function argumentsOf(call: CallBase): Record<string, unknown> {
  return call.finalArguments ?? call.arguments;
}

/** The call, to run with `args`: kept as `finalArguments` only when they differ from the proposed ones. */
export function withArguments<Call extends CallBase>(call: Call, args: Record<string, unknown>): Call {
  const { finalArguments: _previous, ...rest } = call;
  return args === call.arguments || canonicalJson(args) === canonicalJson(call.arguments)
    ? (rest as Call)
    : ({ ...rest, finalArguments: args } as Call);
}

/** A person was asked about the call at `stage`, in interaction `interactionId`. */
export function awaitAnswer(call: TurnCall, stage: ApprovalStage, interactionId: string): AwaitingCall {
  if (stage === 'result')
    return {
      ...baseOf(call),
      result: call.phase === 'awaiting-result' ? call.result : undefined,
      interactionId,
      phase: 'awaiting-result',
    };
  if (stage === 'recovery')
    return {
      ...baseOf(call),
      interactionId,
      ...(call.phase === 'awaiting-recovery' && call.claimEndedAt !== undefined
        ? { claimEndedAt: call.claimEndedAt }
        : {}),
      phase: 'awaiting-recovery',
    };
  return { ...baseOf(call), interactionId, phase: 'awaiting-approval' };
}

/** It ran and returned `result`, which a person has to let through. */
export function awaitResult(call: TurnCall, result: unknown): AwaitingResult {
  return { ...baseOf(call), result, phase: 'awaiting-result' };
}

/** It started and its outcome is unknown; `claimEndedAt`: when the claim of the process that ran it ended. */
export function awaitRecovery(call: TurnCall, claimEndedAt?: string): AwaitingRecovery {
  return { ...baseOf(call), ...(claimEndedAt === undefined ? {} : { claimEndedAt }), phase: 'awaiting-recovery' };
}

/** It is over: `detail` is the result (SUCCESS) or what went wrong. */
export function finish(call: TurnCall, status: ToolCallStatus, detail: unknown): DoneCall {
  return {
    ...baseOf(call),
    phase: 'done',
    status,
    content: toolMessage(status, detail),
    ...(status === 'SUCCESS' ? { output: detail } : {}),
  };
}

/**
 * A call nobody will answer about any more (its question failed, or the thread was
 * cancelled), told truthfully: a call that ran has its result withheld, one whose outcome
 * is unknown may have run (the model must check before trying again), any other did not run.
 */
export function abandon(call: TurnCall, why: string): DoneCall {
  if (call.phase === 'awaiting-result') return finish(call, 'RESULT_REJECTED', `no approval (${why})`);
  if (call.phase === 'awaiting-recovery') {
    return finish(
      call,
      'ERROR',
      `This call started before a restart and may have taken effect; nobody said whether it did (${why}). Check before you call it again.`,
    );
  }
  return finish(call, 'EXECUTION_REJECTED', why);
}

/** The fields of a call that its events carry. */
export function describeCall(call: TurnCall, nodeId: string) {
  return { nodeId, toolCallId: call.id, toolName: call.name, arguments: argumentsOf(call) };
}

/** The node a turn's calls belong to. */
export interface TurnOptions {
  nodeId: string;
  /** The tools this node offers; a call to any other is NOT_FOUND. */
  allowedTools: readonly string[];
  /** Decide only: an approved call ends SUCCESS with its approved arguments as output, and never runs. */
  decideOnly?: boolean;
}
