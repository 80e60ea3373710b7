import type { Interlock } from '@interlock/core';
import type { ChatMemory } from './chat-memory.js';
import type { ChatNotes } from './chat-notes.js';
import { attemptReason, chatOutcomeOf, lostAnswer, notAllowedAsError, type ReplyRoute } from './chat-reply-router.js';
import { approvalKey } from './chat-transcript.js';
import type { ReceiveResult } from './chat-types.js';
import type { ReplyResolution } from './approval-reply.js';

/**
 * Carries out the routes that answer tool approvals (see {@link routeReply}): answers them
 * through `interlock.respond` with the sender as responder, writes the attempts that did not
 * count to the audit trail, and tells the sender about the first of them.
 */
export class ChatAnswers {
  constructor(
    private readonly interlock: Pick<Interlock, 'respond' | 'recordAttempt'>,
    private readonly notes: ChatNotes,
  ) {}

  /** Answers, in order, the approvals a clear yes or no named; `said` is the reply's line. */
  async answer(
    memory: ChatMemory,
    route: Extract<ReplyRoute, { kind: 'answer' }>,
    author: string,
    said: string,
    via?: string,
  ): Promise<ReceiveResult> {
    if (route.after !== undefined) this.notes.move(memory, said, route.after);
    const approved = route.decision === 'approve';
    const resolved: string[] = [];
    let refusal: ReceiveResult | undefined;
    for (const step of route.steps) {
      if (step.kind !== 'respond') {
        if (step.kind === 'refuse') {
          const { interactionId, reason } = step;
          await this.interlock.recordAttempt({ interactionId, responder: author, result: 'refused', reason });
        }
        refusal ??= this.notes.tell(memory, said, step.notice);
        continue;
      }
      const { request } = step;
      const answer = await notAllowedAsError(
        this.interlock.respond(request.interactionId, approvalInput(approved, author, via, route.resolution), {
          responder: author,
        }),
      );
      // An approval that cannot count toward a call that needs several (F51): the requester's, say.
      if (answer instanceof Error) {
        const { interactionId } = request;
        await this.interlock.recordAttempt({
          interactionId,
          responder: author,
          result: 'refused',
          reason: answer.message,
        });
        refusal ??= this.notes.tell(memory, said, { reason: 'not_allowed', text: answer.message });
        continue;
      }
      const done = chatOutcomeOf(answer);
      if (done === 'decided') {
        if (request.toolApproval) {
          const key = approvalKey(request.toolApproval.toolCallId, request.toolApproval.stage);
          const resolution = route.resolution === undefined ? {} : { resolution: route.resolution };
          memory.seen.set(key, {
            request,
            decision: { approved, answeredBy: author, at: this.notes.isoNow(), ...resolution },
          });
        }
        resolved.push(request.interactionId);
        continue;
      }
      const lost = lostAnswer(done, step.call);
      await this.interlock.recordAttempt({
        interactionId: request.interactionId,
        responder: author,
        result: 'lost',
        reason: attemptReason(route.decision, lost.text),
      });
      refusal ??= this.notes.tell(memory, said, lost);
    }
    const [first] = resolved;
    if (first === undefined) {
      return (
        refusal ??
        this.notes.tell(memory, said, { reason: 'already_answered', text: 'That approval was already answered.' })
      );
    }
    return { kind: 'approval', interactionId: first, decision: route.decision, interactionIds: resolved };
  }

  /** Answers the approval a yes or no sent while none waits meant, which the store had not settled. */
  async answerLate(
    memory: ChatMemory,
    route: Extract<ReplyRoute, { kind: 'answer-late' }>,
    author: string,
    said: string,
    via?: string,
  ): Promise<ReceiveResult> {
    const { interactionId, decision } = route;
    const approved = decision === 'approve';
    const answer = await notAllowedAsError(
      this.interlock.respond(interactionId, approvalInput(approved, author, via, route.resolution), {
        responder: author,
      }),
    );
    if (answer instanceof Error) {
      await this.interlock.recordAttempt({
        interactionId,
        responder: author,
        result: 'refused',
        reason: answer.message,
      });
      return this.notes.tell(memory, said, { reason: 'not_allowed', text: answer.message });
    }
    const done = chatOutcomeOf(answer);
    if (done !== 'decided') return this.notes.tell(memory, said, lostAnswer(done, route.call, { late: true }));
    this.notes.move(memory, said, route.entryId);
    const seen = [...memory.seen.values()].find((candidate) => candidate.request.interactionId === interactionId);
    if (seen) seen.decision = { approved, answeredBy: author, at: this.notes.isoNow() };
    return { kind: 'approval', interactionId, decision, interactionIds: [interactionId] };
  }
}

/**
 * The answer a yes or no (or done, retry, failed) stands for. A "no" that came through a messaging platform says so,
 * and the model is told who refused where (F19: the reason reaches the model).
 */
export function approvalInput(
  approved: boolean,
  author: string,
  via: string | undefined,
  resolution?: ReplyResolution,
): { approved: boolean; denyReason?: string; resolution?: ReplyResolution } {
  const resolved = resolution === undefined ? {} : { resolution };
  if (approved || via === undefined) return { approved, ...resolved };
  return { approved, denyReason: `${author} said ${resolution === 'fail' ? 'failed' : 'no'} in ${via}`, ...resolved };
}
