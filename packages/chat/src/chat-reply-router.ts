import {
  answerFailureOf,
  answerOutcomeOf,
  InterlockError,
  type AnswerOutcome,
  type RespondResult,
  type ThreadStatus,
} from '@interlock/core';
import type { UserInteractionRequest } from '@interlock/sdk-types';
import { askWhich, lastApproval, numberApprovals } from './approval-choice.js';
import { parseApprovalReply, type ApprovalTargets, type ReplyResolution } from './approval-reply.js';
import { approvalEntryId, approvalKey, summariseArguments } from './chat-transcript.js';
import type { ChatEntry, ChatNoticeReason } from './chat-types.js';

/** What the chat says to a reply that is not an exact decision (issue 14). */
export const HOW_TO_DECIDE =
  'Nothing was decided: reply exactly "yes" or "no" (or 是 / 否), with the call\'s number when several wait ("yes 2").';

/** A chat message as it arrives. */
export interface IncomingMessage {
  text: string;
  author: string;
}

/** The chat as a message finds it: everything the router decides from, read beforehand. */
export interface ChatSituation {
  /** The status of the chat's thread. */
  status: ThreadStatus;
  /** The chat's pending tool approvals, oldest first. */
  approvals: readonly UserInteractionRequest[];
  /** The chat as people see it, before the message. */
  transcript: readonly ChatEntry[];
  /** Tool approvals this process saw asked (answered ones among them): they keep their numbers. */
  asked: readonly UserInteractionRequest[];
  /** The numbering the chat used last (see `numberApprovals`). */
  numbering: readonly string[] | undefined;
  /** Whether the author may answer tool approvals of the chat's workflow (`canApprove`). */
  mayApprove: boolean;
  /** Why the author may not answer this one request (separation of duties), or undefined. */
  mayAnswer: (request: UserInteractionRequest) => string | undefined;
}

/**
 * What the chat does with each outcome of an answer (core's `AnswerOutcome`, issue 39): the
 * approval counts (`decided`: the sender's yes or no is recorded as the decision, the call's
 * message updated), the sender is told why it did not count (a {@link ChatNoticeReason}, and
 * the attempt is audited), or the error goes to the platform (`thrown`: the store failed, the
 * thread's workflow changed, nothing to answer). One table, the rows of docs/chat.md's "What
 * an answer came to" (chat-answer-outcomes.test.ts checks every one).
 */
export const CHAT_ANSWER_OUTCOMES: Readonly<
  Record<
    AnswerOutcome,
    'decided' | Extract<ChatNoticeReason, 'already_answered' | 'expired' | 'not_allowed'> | 'thrown'
  >
> = {
  continued: 'decided',
  scheduled: 'decided',
  elsewhere: 'decided',
  stalled: 'decided',
  'awaiting-approvals': 'decided',
  finished: 'decided',
  'already-answered': 'already_answered',
  expired: 'expired',
  // A yes to a call of unknown outcome (issue 37), an edit the rules refuse: told, not thrown.
  invalid: 'not_allowed',
  // The requester's approval, or an escalation approver's too early (F51).
  'not-allowed': 'not_allowed',
  'workflow-changed': 'thrown',
  'not-found': 'thrown',
  'not-stored': 'thrown',
  unknown: 'thrown',
};

/**
 * An answer as the chat carries it out: the result, or the error of an answer the engine
 * refused that the sender is told of (`CHAT_ANSWER_OUTCOMES` says `not_allowed`), to audit;
 * other errors are thrown.
 */
export async function notAllowedAsError<T>(answer: Promise<T>): Promise<T | InterlockError> {
  try {
    return await answer;
  } catch (error) {
    const outcome = answerFailureOf(error);
    if (InterlockError.is(error) && outcome !== undefined && CHAT_ANSWER_OUTCOMES[outcome] === 'not_allowed')
      return error;
    throw error;
  }
}

/** What the chat does with a result of `respond()`: decided, or the notice of why it did not count. */
export function chatOutcomeOf(result: RespondResult): 'decided' | 'already_answered' | 'expired' {
  const done = CHAT_ANSWER_OUTCOMES[answerOutcomeOf(result)];
  if (done === 'decided' || done === 'already_answered' || done === 'expired') return done;
  throw new InterlockError('INTERNAL', `a result of respond() has no chat outcome: ${done}`);
}

export interface ChatNotice {
  reason: ChatNoticeReason;
  text: string;
}

export type Decision = 'approve' | 'reject';

/** What to do about one approval a reply names, in the order the reply named them. */
export type AnswerStep =
  /** Answer it in the store; `call` names it, should the answer lose. */
  | { kind: 'respond'; request: UserInteractionRequest; call: string }
  /** The author may not answer this one: audit the attempt as refused (`reason`) and tell them. */
  | { kind: 'refuse'; interactionId: string; reason: string; notice: ChatNotice }
  /** It no longer waits (answered, expired, or a number with nothing behind it): tell them. */
  | { kind: 'gone'; interactionId: string; notice: ChatNotice };

/**
 * What to do with a chat message.
 * - `notice`: nothing changes; tell the sender why (the chat ended, they may not approve, it is too late).
 * - `clarify`: nothing changes; ask which approval, or how to decide.
 * - `answer`: answer the pending approvals the reply named; show the reply after `after`.
 * - `answer-late`: answer the approval a reply sent while none waits most likely meant.
 * - `agent`: give the message to the agent; `reminder`, when set, tells the sender it decided nothing.
 *
 * `numbering`, when given, is the numbering the chat used: remember it for the next reply.
 */
export type ReplyRoute =
  | ({ kind: 'notice' } & ChatNotice)
  | { kind: 'clarify'; text: string; numbering: string[] }
  | {
      kind: 'answer';
      decision: Decision;
      steps: AnswerStep[];
      after: string | undefined;
      numbering: string[];
      resolution?: ReplyResolution;
    }
  | {
      kind: 'answer-late';
      decision: Decision;
      interactionId: string;
      entryId: string;
      call: string;
      resolution?: ReplyResolution;
    }
  | { kind: 'agent'; reminder: string | undefined };

/**
 * Decides what a chat message does, from the message and the chat as it stands; it reads
 * and changes nothing (see README.md for the table it follows). Who may approve is settled
 * before any approval is looked up, so a refusal says nothing of what waits.
 *
 * @example
 * routeReply({ text: 'yes 2', author: 'alice' }, situation);   // { kind: 'answer', steps: [{ kind: 'respond', … }], … }
 */
export function routeReply(message: IncomingMessage, situation: ChatSituation): ReplyRoute {
  if (situation.status !== 'running' && situation.status !== 'waiting') {
    return { kind: 'notice', reason: 'chat_ended', text: `This chat has ended (${situation.status}); open a new one.` };
  }
  const reply = parseApprovalReply(message.text);
  const waiting = situation.approvals.length > 0;
  if (reply.kind === 'approve' || reply.kind === 'reject') {
    const late = waiting ? undefined : lastApproval(situation.transcript);
    if ((waiting || late) && !situation.mayApprove) {
      return {
        kind: 'notice',
        reason: 'not_allowed',
        text: `${message.author} may not answer tool approvals in this chat; nothing was decided.`,
      };
    }
    if (waiting) return answer(reply.kind, reply.targets, situation, reply.resolution);
    if (late) return answerLate(reply.kind, late, reply.resolution);
  }
  if (reply.kind === 'ambiguous' && waiting) {
    // Only an exact decision counts ("ok", "yes?", "👍" do not): asked again, nothing decided (issue 14).
    const numbering = numberApprovals(situation.approvals, situation.asked, situation.numbering);
    return { kind: 'clarify', text: `${HOW_TO_DECIDE} ${askWhich(situation.approvals, numbering)}`, numbering };
  }
  // An ordinary message while a call waits goes to the agent, and the sender is told it decided nothing.
  return { kind: 'agent', reminder: waiting ? `Your message is kept for the agent. ${HOW_TO_DECIDE}` : undefined };
}

/** What the chat says when its answer lost in the store: the approval expired, or someone answered first. */
export function lostAnswer(
  outcome: 'expired' | 'already_answered',
  call: string,
  options: { late?: boolean } = {},
): ChatNotice {
  if (outcome !== 'expired')
    return { reason: 'already_answered', text: `The approval of ${call} was already answered.` };
  const again = options.late === true ? ' Ask the agent again if you still want it.' : '';
  return { reason: 'expired', text: `Too late: the approval of ${call} has expired, so it did not run.${again}` };
}

/** Why an answer that did not count is in the audit trail. */
export function attemptReason(decision: Decision, why: string): string {
  return `${decision} in the chat: ${why}`;
}

/** "write_file with {…}", or "that call" when nothing is known of it. */
export function describeCall(toolName: string | undefined, parameters: Record<string, unknown> | undefined): string {
  return toolName === undefined ? 'that call' : `${toolName} with ${summariseArguments(parameters ?? {})}`;
}

/** The approvals a clear yes or no names, or the question back when it names none of several or a number not listed. */
function answer(
  decision: Decision,
  named: ApprovalTargets,
  situation: ChatSituation,
  resolution?: ReplyResolution,
): ReplyRoute {
  const { approvals } = situation;
  const numbering = numberApprovals(approvals, situation.asked, situation.numbering);
  const clarify = (prefix: string): ReplyRoute => ({
    kind: 'clarify',
    text: `${prefix}${askWhich(approvals, numbering)}`,
    numbering,
  });
  const pendingIds = approvals.map((request) => request.interactionId);
  let targets: string[];
  if (named.kind === 'all') targets = pendingIds;
  else if (named.kind === 'numbered') {
    const listed = named.numbers.map((number) => numbering[number - 1]);
    const missing = named.numbers.filter((_, index) => listed[index] === undefined);
    if (missing.length > 0) return clarify(`There is no approval number ${missing.join(', ')}. `);
    targets = listed.filter((id) => id !== undefined);
  } else if (approvals.length === 1) targets = pendingIds;
  else return clarify('');
  // The reply is shown after the approval it answers, wherever that line moves.
  const answered = targets
    .map((id) => approvals.find((request) => request.interactionId === id)?.toolApproval)
    .findLast(Boolean);
  const after = answered ? approvalEntryId(approvalKey(answered.toolCallId, answered.stage)) : undefined;
  const steps = targets.map((id) => stepFor(id, decision, situation, resolution));
  return { kind: 'answer', decision, steps, after, numbering, ...(resolution === undefined ? {} : { resolution }) };
}

function stepFor(
  interactionId: string,
  decision: Decision,
  situation: ChatSituation,
  resolution: ReplyResolution | undefined,
): AnswerStep {
  const request = situation.approvals.find((candidate) => candidate.interactionId === interactionId);
  const entry = situation.transcript.find(
    (candidate) => candidate.interactionId === interactionId && candidate.role === 'approval',
  );
  if (request === undefined) {
    // A number of an approval that no longer waits: the transcript tells how it ended.
    const call = describeCall(entry?.approval?.toolName, entry?.approval?.arguments);
    return {
      kind: 'gone',
      interactionId,
      notice: lostAnswer(entry?.approval?.status === 'expired' ? 'expired' : 'already_answered', call),
    };
  }
  const refused = situation.mayAnswer(request);
  if (refused !== undefined) {
    return {
      kind: 'refuse',
      interactionId,
      reason: attemptReason(decision, refused),
      notice: { reason: 'not_allowed', text: `${refused}; nothing was decided.` },
    };
  }
  const call = describeCall(
    request.toolApproval?.toolName ?? entry?.approval?.toolName,
    request.toolApproval?.toolParameters ?? entry?.approval?.arguments,
  );
  const mismatch = resolutionMismatch(request, decision, resolution, call);
  if (mismatch !== undefined)
    return {
      kind: 'refuse',
      interactionId,
      reason: attemptReason(decision, mismatch),
      notice: { reason: 'not_allowed', text: mismatch },
    };
  return { kind: 'respond', request, call };
}

/**
 * Why a reply does not answer this approval (issue 37): a call that may have run before a
 * restart is answered done, retry or failed ("yes" does not say whether it ran); those words
 * answer nothing else.
 */
export function resolutionMismatch(
  request: UserInteractionRequest,
  decision: Decision,
  resolution: ReplyResolution | undefined,
  call: string,
): string | undefined {
  const recovery = request.toolApproval?.stage === 'recovery';
  if (recovery && resolution === undefined && decision === 'approve')
    return `${call} started before a restart and may or may not have finished: "yes" does not say which. Reply "done" if it ran, "retry" to run it again, or "failed"; nothing was decided.`;
  if (!recovery && resolution !== undefined)
    return `"done", "retry" and "failed" answer only a call that may have run before a restart: reply "yes" or "no" about ${call}; nothing was decided.`;
  return undefined;
}

/**
 * A yes or no while no approval waits, for the approval it most likely meant (see
 * {@link lastApproval}): "expired", "cancelled" or "already answered" — or, if the store has
 * not settled it yet (asked here, answered nowhere), the answer after all.
 */
function answerLate(decision: Decision, late: ChatEntry, resolution?: ReplyResolution): ReplyRoute {
  const call = describeCall(late.approval?.toolName, late.approval?.arguments);
  const status = late.approval?.status;
  if (status === 'pending' && late.interactionId !== undefined) {
    const answer = {
      kind: 'answer-late' as const,
      decision,
      interactionId: late.interactionId,
      entryId: late.id,
      call,
    };
    return resolution === undefined ? answer : { ...answer, resolution };
  }
  if (status === 'expired') return { kind: 'notice', ...lostAnswer('expired', call, { late: true }) };
  if (status === 'cancelled')
    return { kind: 'notice', reason: 'cancelled', text: `The approval of ${call} was cancelled, so it did not run.` };
  const by = late.approval?.answeredBy === undefined ? '' : ` by ${late.approval.answeredBy}`;
  return {
    kind: 'notice',
    reason: 'already_answered',
    text: `The approval of ${call} was already answered (${status ?? 'answered'}${by}).`,
  };
}
