import type { Interlock } from '../interlock.js';
import type { ThreadRecord } from '../persistence/checkpoint-store.js';
import { canonicalJson, hashArguments } from '../policy/canonical-arguments.js';

/** One tool call an agent is about to make, as the gate decides it (F56). */
export interface GateCall {
  /**
   * The framework's id of the call (`toolCallId`, `toolUseID`, …), as the model proposed it:
   * recorded and shown, never trusted to find a decision (a model or a provider repeats ids,
   * an attacker who steers the model chooses them). A decision is bound to its call by
   * position, tool, arguments and definition (F62).
   */
  toolCallId: string;
  toolName: string;
  arguments: Record<string, unknown>;
  /** The decision thread's id, for a framework that finds the decision again by its own ids. Default: a new UUID. */
  threadId?: string;
}

/** What every decision carries of the call it decided (F62). */
export interface GateDecisionCall {
  toolCallId: string;
  toolName: string;
  /** The arguments the call was proposed with (before any edit). */
  proposed: Record<string, unknown>;
  /** SHA-256 of the tool's definition the call was decided under (category, risk, description, schema). */
  toolDefinitionHash: string;
  threadId: string;
}

/** What became of a call: approved (maybe edited, maybe with an instruction for the agent) or rejected with a reason. */
export type GateDecision =
  | (GateDecisionCall & {
      status: 'approved';
      /** The arguments to run: the proposed ones, or an approver's edit. */
      arguments: Record<string, unknown>;
      edited: boolean;
      /** An instruction the approver added for the agent. */
      instruction?: string;
      /** `person`, or the rule that allowed it (`category:read`, `mode:yolo`, `memory:session`…). */
      decidedBy: string;
      responder?: string;
    })
  | (GateDecisionCall & {
      status: 'rejected';
      /** Why, in words the model can act on: who rejected it and their reason, or the rule. */
      reason: string;
      instruction?: string;
      /** `person`, the rule (`deny-rule:0`, `shell:banned:…`), `timeout`, `cancelled`, or `mismatch` (a call that is not the one decided). */
      decidedBy: string;
      responder?: string;
    });

/** A decision that is still open: a person has been asked and has not answered. */
export interface GatePending extends GateDecisionCall {
  status: 'pending';
  interactionIds: string[];
}

/**
 * Whether `decision` is the decision of exactly `call` as the model proposed it (F62): the
 * same tool, the same arguments (canonical JSON) and the definition the gate has for the tool
 * now (`definitionHash`). The call's id is not compared: it proves nothing.
 */
export function decidedExactly(
  decision: GateDecision | GatePending,
  call: Pick<GateCall, 'toolName' | 'arguments'>,
  definitionHash: string,
): boolean {
  return (
    decision.toolName === call.toolName &&
    decision.toolDefinitionHash === definitionHash &&
    sameArguments(decision.proposed, call.arguments)
  );
}

/**
 * Whether `decision` lets `call` run as it stands (F62): approved, for the same tool and
 * definition, with exactly the arguments approved (after any edit). Anything else — another
 * tool or arguments under a reused id, a changed definition — is not what was decided.
 */
export function letsRun(
  decision: GateDecision | GatePending,
  call: Pick<GateCall, 'toolName' | 'arguments'>,
  definitionHash: string,
): boolean {
  return (
    decision.status === 'approved' &&
    decision.toolName === call.toolName &&
    decision.toolDefinitionHash === definitionHash &&
    sameArguments(decision.arguments, call.arguments)
  );
}

/**
 * The rejection a framework applies to a call that does not match the decision it was
 * handed (F62): fail closed, and the model is told why without anything of the other call.
 */
export function mismatchOf(call: Pick<GateCall, 'toolCallId' | 'toolName' | 'arguments'>): GateDecision {
  return {
    toolCallId: call.toolCallId,
    toolName: call.toolName,
    proposed: call.arguments,
    toolDefinitionHash: '',
    threadId: '',
    status: 'rejected',
    reason:
      'this call is not the one Interlock decided (its id was reused, or its arguments or the tool changed): call the tool again',
    decidedBy: 'mismatch',
  };
}

function sameArguments(left: unknown, right: unknown): boolean {
  try {
    return hashArguments(left) === hashArguments(right);
  } catch {
    // Anything but plain JSON is never the call a person approved.
    return false;
  }
}

/** Whether a decision thread has ended (its decision is final). */
export function hasEnded(thread: ThreadRecord | undefined): boolean {
  return thread !== undefined && ['completed', 'failed', 'cancelled'].includes(thread.status);
}

/**
 * The decision a decision thread came to, read from the store: its output (the approved
 * arguments), the answer a person gave (responder, instruction) and the audit entry that
 * denied it. Pending while the thread waits. An answer that did not count (refused, too
 * late, lost to another: `decidedBy: 'attempt'`) is audited and changes nothing: the
 * decision read is the one that was taken, never the last attempt.
 */
export async function readDecision(interlock: Interlock, thread: ThreadRecord): Promise<GateDecision | GatePending> {
  const toolName = textOf(thread.variables['toolName']);
  const toolCallId = textOf(thread.variables['toolCallId']);
  const proposed = isObject(thread.variables['toolInput']) ? thread.variables['toolInput'] : {};
  const base = {
    toolCallId,
    toolName,
    proposed,
    toolDefinitionHash: textOf(thread.variables['toolDefinitionHash']),
    threadId: thread.threadId,
  };
  if (!hasEnded(thread)) return { ...base, status: 'pending', interactionIds: [...thread.pendingInteractionIds] };
  const answer = await personAnswer(interlock, thread.threadId);
  const instruction = answer?.instruction === undefined ? {} : { instruction: answer.instruction };
  const responder = answer?.responder === undefined ? {} : { responder: answer.responder };
  const entries = (await interlock.audit({ threadId: thread.threadId })).filter(
    (entry) => entry.decidedBy !== 'attempt',
  );
  const last = entries.at(-1);
  if (thread.status === 'completed' && isObject(thread.output)) {
    return {
      ...base,
      status: 'approved',
      arguments: thread.output,
      edited: canonicalJson(thread.output) !== canonicalJson(proposed),
      decidedBy: last?.decidedBy === 'person' ? 'person' : (last?.rule ?? 'unknown'),
      ...instruction,
      ...responder,
    };
  }
  if (thread.status === 'cancelled') {
    return { ...base, status: 'rejected', reason: 'the request was cancelled', decidedBy: 'cancelled', ...responder };
  }
  const denial = entries.filter((entry) => entry.outcome === 'deny').at(-1);
  if (denial === undefined) {
    return {
      ...base,
      status: 'rejected',
      reason: thread.error?.message ?? `the decision ended ${thread.status}`,
      decidedBy: 'error',
      ...instruction,
    };
  }
  // A question nobody answered in time is audited as decided by `interaction:timeout` (its rule is the one that asked).
  const timedOut = denial.decidedBy === 'interaction:timeout' || denial.rule.includes('timeout');
  if (denial.decidedBy === 'interaction:cancelled') {
    return {
      ...base,
      status: 'rejected',
      reason: `the request was cancelled: ${denial.reason}`,
      decidedBy: 'cancelled',
    };
  }
  const byPerson = denial.decidedBy === 'person';
  const who = byPerson
    ? `${denial.responder ?? 'a person'} rejected it`
    : timedOut
      ? 'nobody answered in time'
      : `denied by ${denial.rule}`;
  return {
    ...base,
    status: 'rejected',
    reason: `${who}: ${denial.reason}`,
    decidedBy: byPerson ? 'person' : timedOut ? 'timeout' : denial.rule,
    ...(denial.responder === undefined ? {} : { responder: denial.responder }),
    ...instruction,
  };
}

/** The answer a person gave to the thread's approval, if any: who, and the instruction they added. */
async function personAnswer(
  interlock: Interlock,
  threadId: string,
): Promise<{ responder?: string; instruction?: string } | undefined> {
  const answered = (await interlock.interactions({ threadId })).filter((record) => record.response !== undefined);
  const response = answered.at(-1)?.response;
  if (response === undefined) return undefined;
  const input = response.input;
  const instruction =
    isObject(input) && typeof input['userInstruction'] === 'string' && input['userInstruction'] !== ''
      ? input['userInstruction']
      : undefined;
  return {
    ...(response.responder === undefined ? {} : { responder: response.responder }),
    ...(instruction === undefined ? {} : { instruction }),
  };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function textOf(value: unknown): string {
  return typeof value === 'string' ? value : '';
}
