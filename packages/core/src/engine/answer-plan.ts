import type { ToolApprovalResponse } from '@interlock/sdk-types';
import type { AuditEntryInput } from '../audit/audit-log.js';
import { InterlockError } from '../errors/interlock-error.js';
import { isRepeatedAnswer } from '../interaction/answer-checks.js';
import type {
  InteractionRecord,
  InteractionResponseRecord,
  StoredThread,
  ThreadRecord,
  ThreadStatus,
} from '../persistence/checkpoint-store.js';
import type { InteractionChange } from '../persistence/unit-of-work.js';
import { askerOf, personOf } from '../policy/approval-quorum.js';
import { hashArguments } from '../policy/canonical-arguments.js';
import { isoTime } from './clock.js';

/*
 * What an answer given through `respond()` comes to, as one pure function of what the answer
 * desk read (engine/answer-desk.ts): every rule that refuses an answer, takes it as a repeat,
 * counts it toward a call that needs several approvers, or stores it — and how. No store, no
 * clock, no process state: the desk reads them into `AnswerSeen`, plans, carries the plan
 * out in one commit, and plans again from a new read when the store refuses that commit.
 */

/** What the answer desk read before it plans an answer. */
export interface AnswerSeen {
  interactionId: string;
  /** The interaction as stored; undefined when there is none. */
  interaction: InteractionRecord | undefined;
  /** Its thread with the thread's interactions, read with it; undefined when the thread is missing. */
  stored: StoredThread | undefined;
  /** Whether a run of this process holds the thread or is being set up for it (it applies the answer). */
  runningHere: boolean;
  /** This process's owner id: a claim it holds is not another process's. */
  owner: string;
  /** Whether threads continue in workers (`continueIn` other than `this-process`): an answer goes with its job. */
  workers: boolean;
  /** Why this process could not run the thread's definitions (WORKFLOW_CHANGED…), when it could not. */
  definitions?: InterlockError;
  /**
   * A run this process started to apply the answer stored nothing: its first commit was
   * refused because another process took the thread (`thread-taken`) or the interaction
   * changed (`answer-changed`: answered, or another approval counted), or the run could not
   * start (`error`). The answer is planned again and stored on its own, never folded again.
   */
  notFolded?: { conflict: 'thread-taken' | 'answer-changed' } | { error: InterlockError };
  /** A crash test kills the process with the answer stored and not applied: stored on its own first. */
  storeFirst?: boolean;
}

/** The answer as the interpreter reads it for this interaction, or why it refused it. */
export type AnswerInput = { value: unknown } | { refused: InterlockError };

/** Why an answer changes nothing (besides the timeout or retirement a refusal may write). */
export type RefusalReason =
  /** No such interaction: INTERACTION_NOT_FOUND is thrown. */
  | 'not-found'
  /** Its thread is missing from the store: THREAD_NOT_FOUND is thrown. */
  | 'thread-not-found'
  /** Another answer came first (from another person, or another answer of the same one), or it was called off: `already_answered`. */
  | 'already-answered'
  /** Its deadline passed (now, or it was timed out before): `expired`. */
  | 'expired'
  /** Its thread does not wait on it (a question left behind by a crash of an older version): retired, `expired`. */
  | 'orphan'
  /** This process would take the thread forward, and its definitions changed: WORKFLOW_CHANGED or WORKFLOW_VERSION_MISMATCH is thrown. */
  | 'definitions'
  /** The input does not fit the question (or the rules refuse an edit): INTERACTION_INVALID_RESPONSE is thrown. */
  | 'invalid'
  /** An approval that cannot count toward a call that needs several (F51): APPROVAL_NOT_ALLOWED is thrown. */
  | 'not-allowed';

/** What to do with an answer. `threadId` is the interaction's thread (absent only when the interaction is). */
export type AnswerPlan =
  /**
   * Nothing is stored. `error`: what `respond()` throws (the reasons that are not results).
   * `timeOut` / `retire`: the refusal fails the interaction (its deadline passed; its thread
   * does not wait on it). `goOn`: the thread still waits on a question timed out, and nobody
   * takes it forward: it goes on once the answerer is told.
   */
  | {
      kind: 'refuse';
      reason: RefusalReason;
      threadId?: string;
      error?: InterlockError;
      timeOut?: true;
      retire?: true;
      goOn?: true;
    }
  /** The same answer again from the same person, nothing to write: counted before (F51), or applied (the thread's status then). */
  | { kind: 'repeat'; threadId: string; counted?: { given: number; required: number }; threadStatus?: ThreadStatus }
  /** An approval of a call that needs several, not the last: stored and audited alone; the call waits for more (F51). */
  | {
      kind: 'count';
      threadId: string;
      change: Extract<InteractionChange, { kind: 'approve-partially' }>;
      audit: AuditEntryInput;
      given: number;
      required: number;
    }
  /**
   * The answer stored on its own (`changes`: the last approval of a call that needs several,
   * then the answer): with the job that continues the thread (`for: 'worker'`), for the run
   * of this process that takes it (`'run-here'`), for the process that holds the thread
   * (`'holder'`), or because the run this process started stored nothing (`'taken'`: another
   * process took the thread; `'stalled'`: it could not go on, `error` says why).
   */
  | {
      kind: 'store';
      threadId: string;
      changes: InteractionChange[];
      for: 'worker' | 'run-here' | 'holder' | 'taken' | 'stalled' | 'crash-test';
      error?: InterlockError;
    }
  /** Folded into the first commit of a run of this process that takes the thread forward now. */
  | { kind: 'fold'; threadId: string; changes: InteractionChange[]; stored: StoredThread }
  /** The same answer again, stored before and not applied (the first call's continuation stalled): go on with it. */
  | { kind: 'continue'; threadId: string; schedule: boolean };

/** The kinds of {@link AnswerPlan}. */
export type AnswerPlanKind = AnswerPlan['kind'];

/**
 * Plans what an answer comes to (F14, F51; docs/architecture.md, "One rule for every wait").
 * Pure: `seen` is what the desk read, `input` the answer as the interpreter read it,
 * `responder` who gave it, `now` the time (ms since the epoch).
 */
export function planAnswer(
  seen: AnswerSeen,
  input: AnswerInput,
  responder: string | undefined,
  now: number,
): AnswerPlan {
  const { interaction, interactionId, stored } = seen;
  if (interaction === undefined)
    return {
      kind: 'refuse',
      reason: 'not-found',
      error: new InterlockError(
        'INTERACTION_NOT_FOUND',
        `no interaction ${interactionId}: list what waits with interlock.pending()`,
      ),
    };
  const { threadId } = interaction;
  const thread = stored?.thread;
  if (interaction.status !== 'pending') return answeredBefore(seen, interaction, thread, input, responder, now);
  if (stored === undefined || thread === undefined)
    return {
      kind: 'refuse',
      reason: 'thread-not-found',
      threadId,
      error: new InterlockError('THREAD_NOT_FOUND', `no thread ${threadId} in the store`),
    };
  // A question its thread does not wait on is one nobody may answer (a store of an older
  // version could keep one from before a crash): the thread asks again when it resumes. While
  // a live claim holds the thread, its run is about to wait on it: the answer is taken.
  const heldLive = seen.runningHere || heldElsewhere(thread, seen.owner, now);
  if (!thread.pendingInteractionIds.includes(interactionId) && !heldLive)
    return { kind: 'refuse', reason: 'orphan', threadId, retire: true };
  if (interaction.deadline !== null && Date.parse(interaction.deadline) <= now)
    return { kind: 'refuse', reason: 'expired', threadId, timeOut: true, goOn: true };
  // With workers, a worker serving the thread's version checks its definitions; this process does if it goes on with it.
  const toWorker = seen.workers && !seen.runningHere;
  if (!toWorker && seen.definitions !== undefined)
    return { kind: 'refuse', reason: 'definitions', threadId, error: seen.definitions };
  if ('refused' in input) return { kind: 'refuse', reason: 'invalid', threadId, error: input.refused };
  const response: InteractionResponseRecord = {
    input: input.value,
    ...(responder === undefined ? {} : { responder }),
    respondedAt: isoTime(now),
  };
  const answer: InteractionChange = { kind: 'answer', interactionId, response };
  const counted = countApproval(seen, interaction, thread, response, now);
  if (counted !== undefined && counted.kind !== 'last') return counted;
  const changes = counted === undefined ? [answer] : [counted.change, answer];
  if (toWorker) return { kind: 'store', threadId, changes, for: 'worker' };
  const { notFolded } = seen;
  if (notFolded !== undefined && 'conflict' in notFolded && notFolded.conflict === 'thread-taken')
    return { kind: 'store', threadId, changes, for: 'taken' };
  // A run of this process came first (THREAD_BUSY): it takes the answer. Any other reason the run could not start stalls it.
  if (notFolded !== undefined && 'error' in notFolded && notFolded.error.code !== 'THREAD_BUSY')
    return { kind: 'store', threadId, changes, for: 'stalled', error: notFolded.error };
  if (seen.runningHere || notFolded !== undefined) return { kind: 'store', threadId, changes, for: 'run-here' };
  if (heldLive) return { kind: 'store', threadId, changes, for: 'holder' };
  if (seen.storeFirst === true) return { kind: 'store', threadId, changes, for: 'crash-test' };
  return { kind: 'fold', threadId, changes, stored };
}

/** An answer to an interaction no longer pending: a repeat of the stored answer, or refused. */
function answeredBefore(
  seen: AnswerSeen,
  interaction: InteractionRecord,
  thread: ThreadRecord | undefined,
  input: AnswerInput,
  responder: string | undefined,
  now: number,
): AnswerPlan {
  const { threadId, interactionId } = interaction;
  if (interaction.status === 'failed' && interaction.failureReason === 'timeout') {
    // Timed out, and its thread still waits on it with nobody taking it forward (a process
    // timed it out and did not go on): the thread goes on now (issue 35).
    const stuck =
      thread?.status === 'waiting' &&
      thread.pendingInteractionIds.includes(interactionId) &&
      !seen.runningHere &&
      !heldElsewhere(thread, seen.owner, now);
    return { kind: 'refuse', reason: 'expired', threadId, ...(stuck ? { goOn: true as const } : {}) };
  }
  const repeated = 'value' in input && isRepeatedAnswer(interaction.response, () => input.value, responder);
  if (!repeated) return { kind: 'refuse', reason: 'already-answered', threadId };
  if (interaction.status !== 'responded')
    return { kind: 'repeat', threadId, ...(thread === undefined ? {} : { threadStatus: thread.status }) };
  if (thread === undefined)
    return {
      kind: 'refuse',
      reason: 'thread-not-found',
      threadId,
      error: new InterlockError('THREAD_NOT_FOUND', `no thread ${threadId} in the store`),
    };
  // Stored and not applied (the first call's continuation stalled): go on now, or make sure a worker will.
  return { kind: 'continue', threadId, schedule: seen.workers };
}

/**
 * Counts an approval of a call that needs several approvers (F51): the thread's requester and
 * the call's (who asked for it in a chat) never count, each person counts once, only approvals
 * of the same arguments add up (an edit resets the others), an escalation approver counts only
 * once the call was escalated or its escalation time passed. Undefined: the call needs no
 * quorum, or the answer is a rejection (anyone may end it) — an answer like any other.
 */
function countApproval(
  seen: AnswerSeen,
  interaction: InteractionRecord,
  thread: ThreadRecord,
  response: InteractionResponseRecord,
  now: number,
):
  | Extract<AnswerPlan, { kind: 'refuse' | 'repeat' | 'count' }>
  | { kind: 'last'; change: Extract<InteractionChange, { kind: 'approve-partially' }> }
  | undefined {
  const details = interaction.request.toolApproval;
  const quorum = details?.quorum;
  const answer = response.input as ToolApprovalResponse;
  if (details === undefined || quorum === undefined || details.stage !== 'execution' || !answer.approved)
    return undefined;
  const { threadId, interactionId } = interaction;
  const { responder } = response;
  const notAllowed = (message: string, details?: Record<string, unknown>) => ({
    kind: 'refuse' as const,
    reason: 'not-allowed' as const,
    threadId,
    error: new InterlockError('APPROVAL_NOT_ALLOWED', message, details === undefined ? {} : { details }),
  });
  if (responder === undefined)
    return notAllowed(
      'this call needs approvals from several people: say who approves (respond(id, input, { responder }))',
    );
  const person = personOf(responder);
  const requester = thread.session.requestedBy;
  if (requester !== undefined && personOf(requester) === person)
    return notAllowed(
      `${responder} asked for this thread, so their approval does not count: another approver must approve it (a rejection is taken)`,
      { responder, reason: 'requester' },
    );
  const asker = askerOf(seen.stored?.interactions ?? [], interaction.request);
  if (asker !== undefined && personOf(asker) === person)
    return notAllowed(
      `${responder} asked for this call, so their approval does not count: another approver must approve it (a rejection is taken)`,
      { responder, reason: 'requester' },
    );
  const { escalation } = quorum;
  const onEscalationList = escalation?.approvers.some((approver) => personOf(approver) === person) ?? false;
  if (
    escalation !== undefined &&
    onEscalationList &&
    interaction.quorum?.escalatedAt === undefined &&
    Date.parse(escalation.at) > now
  )
    return notAllowed(`${responder} approves this call only once it is escalated, at ${escalation.at}`, {
      responder,
      reason: 'not-escalated',
      escalatesAt: escalation.at,
    });
  const argumentsHash = hashArguments(answer.editedParameters ?? details.toolParameters);
  const same = (interaction.quorum?.approvals ?? []).filter((given) => given.argumentsHash === argumentsHash);
  if (same.some((given) => personOf(given.responder) === person))
    return { kind: 'repeat', threadId, counted: { given: same.length, required: quorum.required } };
  const change = {
    kind: 'approve-partially' as const,
    interactionId,
    approval: {
      responder,
      argumentsHash,
      ...(answer.editedParameters === undefined ? {} : { editedParameters: answer.editedParameters }),
      approvedAt: response.respondedAt,
    },
    seen: same.length,
  };
  const given = same.length + 1;
  if (given >= quorum.required) return { kind: 'last', change };
  return {
    kind: 'count',
    threadId,
    change,
    given,
    required: quorum.required,
    audit: {
      threadId,
      toolCallId: details.toolCallId,
      toolName: details.toolName,
      outcome: 'allow',
      decidedBy: 'person',
      rule: 'quorum:partial',
      reason: `approval ${given} of ${quorum.required}: the call runs once ${quorum.required} different approvers approve the same arguments`,
      responder,
      stage: 'execution',
      originalArguments: details.toolParameters,
      ...(answer.editedParameters === undefined ? {} : { editedArguments: answer.editedParameters }),
      interactionId,
    },
  };
}

/** Whether another process holds a live claim on the thread at `now`. */
export function heldElsewhere(thread: Pick<ThreadRecord, 'lease'>, owner: string, now: number): boolean {
  return thread.lease !== undefined && thread.lease.owner !== owner && Date.parse(thread.lease.until) > now;
}
