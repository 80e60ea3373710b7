import type { Interlock, ThreadStatus } from '@interlock/core';
import type { UserInteractionRequest } from '@interlock/sdk-types';
import { approvalInput } from './chat-answers.js';
import type { ChatMemory } from './chat-memory.js';
import type { ChatNotes } from './chat-notes.js';
import {
  attemptReason,
  describeCall,
  lostAnswer,
  chatOutcomeOf,
  notAllowedAsError,
  resolutionMismatch,
  type ChatNotice,
} from './chat-reply-router.js';
import { approvalKey } from './chat-transcript.js';
import type { ChatEntry } from './chat-types.js';

/** What a person did with one approval's buttons (or card, or modal) on a messaging platform. */
export type ApprovalAction =
  /** `resolution` answers a call that may have run before a restart: `done` or `retry` (issue 37). */
  | { action: 'approve'; resolution?: 'done' | 'retry' }
  | { action: 'reject'; reason?: string; resolution?: 'fail' }
  /** Run it with these arguments instead: checked against the tool's schema before anything is stored. */
  | { action: 'edit'; arguments: Record<string, unknown> };

/**
 * What {@link ChatChannel.decide} did.
 * - `approval`: the answer was stored.
 * - `notice`: nothing changed; tell the person why (they may not answer, it is too late, the chat ended).
 * - `invalid`: the edited arguments do not fit the tool's schema; nothing changed, the approval still waits.
 */
export type DecideResult =
  | { kind: 'approval'; interactionId: string; decision: 'approve' | 'reject'; edited: boolean }
  | ({ kind: 'notice' } & ChatNotice)
  | { kind: 'invalid'; text: string };

/** The chat as a button press finds it. */
export interface DecisionSituation {
  status: ThreadStatus;
  approvals: readonly UserInteractionRequest[];
  transcript: readonly ChatEntry[];
  mayApprove: boolean;
  mayAnswer: (request: UserInteractionRequest) => string | undefined;
}

/**
 * Carries out a decision on one named approval: the same checks as a yes or no in the chat
 * (the chat's state, the approver list, separation of duties; F51), every refused or losing
 * attempt written to the audit trail, and an edit checked before it is stored.
 */
export class ChatDecisions {
  constructor(
    private readonly interlock: Pick<Interlock, 'respond' | 'recordAttempt' | 'checkResponse'>,
    private readonly notes: ChatNotes,
  ) {}

  async decide(
    memory: ChatMemory,
    situation: DecisionSituation,
    interactionId: string,
    choice: ApprovalAction,
    author: string,
    via: string,
  ): Promise<DecideResult> {
    const decision = choice.action === 'reject' ? 'reject' : 'approve';
    const refuse = async (reason: string, notice: ChatNotice, result: 'refused' | 'lost' = 'refused') => {
      await this.interlock.recordAttempt({
        interactionId,
        responder: author,
        result,
        reason: attemptReason(decision, `${choice.action} in ${via}: ${reason}`),
      });
      return { kind: 'notice', ...notice } as const;
    };
    if (situation.status !== 'running' && situation.status !== 'waiting') {
      const text = `This chat has ended (${situation.status}); nothing was decided.`;
      return refuse(text, { reason: 'chat_ended', text });
    }
    if (!situation.mayApprove) {
      const text = `${author} may not answer tool approvals in this chat; nothing was decided.`;
      return refuse('not on the approver list', { reason: 'not_allowed', text });
    }
    const request = situation.approvals.find((candidate) => candidate.interactionId === interactionId);
    if (request === undefined) {
      const entry = situation.transcript.find(
        (candidate) => candidate.role === 'approval' && candidate.interactionId === interactionId,
      );
      const call = describeCall(entry?.approval?.toolName, entry?.approval?.arguments);
      const lost = lostAnswer(entry?.approval?.status === 'expired' ? 'expired' : 'already_answered', call);
      return refuse(lost.text, lost, 'lost');
    }
    const separated = situation.mayAnswer(request);
    if (separated !== undefined) {
      return refuse(separated, { reason: 'not_allowed', text: `${separated}; nothing was decided.` });
    }
    const resolution = choice.action === 'edit' ? undefined : choice.resolution;
    const mismatch = resolutionMismatch(
      request,
      decision,
      resolution,
      describeCall(request.toolApproval?.toolName, request.toolApproval?.toolParameters),
    );
    if (mismatch !== undefined) return refuse(mismatch, { reason: 'not_allowed', text: mismatch });
    const input =
      choice.action === 'edit'
        ? { approved: true, editedParameters: choice.arguments }
        : choice.action === 'reject' && choice.reason !== undefined && choice.reason.trim() !== ''
          ? { approved: false, denyReason: choice.reason.trim(), ...(resolution === undefined ? {} : { resolution }) }
          : approvalInput(choice.action === 'approve', author, via, resolution);
    if (choice.action === 'edit') {
      const check = await this.interlock.checkResponse(interactionId, input);
      if (!check.ok) {
        await refuse(`invalid arguments: ${check.message}`, { reason: 'not_allowed', text: check.message });
        return { kind: 'invalid', text: `Those arguments do not fit the tool: ${check.message}` };
      }
    }
    const call = describeCall(request.toolApproval?.toolName, request.toolApproval?.toolParameters);
    const answer = await notAllowedAsError(this.interlock.respond(interactionId, input, { responder: author }));
    if (answer instanceof Error) return refuse(answer.message, { reason: 'not_allowed', text: answer.message });
    const done = chatOutcomeOf(answer);
    if (done !== 'decided') {
      const lost = lostAnswer(done, call);
      return refuse(lost.text, lost, 'lost');
    }
    const details = request.toolApproval;
    if (details) {
      memory.seen.set(approvalKey(details.toolCallId, details.stage), {
        request,
        decision: {
          approved: decision === 'approve',
          answeredBy: author,
          at: this.notes.isoNow(),
          ...(resolution === undefined ? {} : { resolution }),
        },
      });
    }
    return { kind: 'approval', interactionId, decision, edited: choice.action === 'edit' };
  }
}
