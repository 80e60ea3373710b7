import { personOf, requestWithProgress, type InteractionRecord } from '@interlock/core';
import type { UserInteractionRequest } from '@interlock/sdk-types';
import { readAsker } from '@interlock/chat';
import type { FastifyInstance } from 'fastify';
import { batchApproveBody, idParams, pendingQuery, respondBody } from '../api-schemas.js';
import { toInteractionInput, type AnswerBody } from '../answer-body.js';
import { acceptedAnswer, answerNotStored, invalidAnswer, notPending, type AnswerAccepted } from '../answer-outcome.js';
import { levelRequests, samePerson } from '../auth/approver-directory.js';
import { levelOf, type Principal } from '../auth/approvers.js';
import { mayApprove, responderOf, type WebContext } from '../web-context.js';
import { WebError } from '../web-error.js';

interface PendingFilter {
  threadId?: string;
  workflowId?: string;
  channel?: string;
  tool?: string;
  risk?: 'LOW' | 'MEDIUM' | 'HIGH';
}

export type { AnswerAccepted } from '../answer-outcome.js';

/** The inbox: pending interactions, one interaction's state, answers (one, or a turn's calls at once). */
export function registerInteractionRoutes(app: FastifyInstance, context: WebContext): void {
  app.get<{ Querystring: PendingFilter }>(
    '/api/interactions',
    { schema: { querystring: pendingQuery } },
    async (request) => {
      // Only the workflows this approver is on a list of: someone on none sees nothing, arguments included.
      // Within them, `mayAnswer` says whether the list of the request's level names them (F51).
      const pending = (await context.interlock.pending())
        .filter(
          (interaction) =>
            mayApprove(context, interaction.workflowId, request.principal) &&
            !waitsForEscalation(interaction, request.principal, context.now()) &&
            matches(interaction, request.query) &&
            !isChatMessage(context, interaction),
        )
        .sort(byRiskThenAge);
      return {
        serverTime: new Date(context.now()).toISOString(),
        interactions: pending.map((interaction) => ({
          ...interaction,
          ...whoMayAnswer(context, interaction, request.principal),
        })),
      };
    },
  );

  app.get<{ Params: { interactionId: string } }>(
    '/api/interactions/:interactionId',
    { schema: { params: idParams('interactionId') } },
    async (request) => {
      const record = await findInteraction(context, request.params.interactionId, request.principal);
      return {
        request: requestWithProgress(record),
        status: record.status,
        ...(record.response === undefined ? {} : { response: record.response }),
        ...(record.failureReason === undefined
          ? {}
          : { failureReason: record.failureReason, failureMessage: record.failureMessage }),
      };
    },
  );

  app.post<{ Params: { interactionId: string }; Body: AnswerBody }>(
    '/api/interactions/:interactionId/respond',
    { schema: { params: idParams('interactionId'), body: respondBody } },
    async (request) => answerInteraction(context, request.params.interactionId, request.body, request.principal),
  );

  app.post<{ Body: { interactionIds: string[] } }>(
    '/api/interactions/approve-batch',
    { schema: { body: batchApproveBody } },
    async (request) => {
      const results: Array<
        AnswerAccepted | { result: 'refused'; interactionId: string; code: string; message: string }
      > = [];
      for (const interactionId of request.body.interactionIds) {
        try {
          results.push(await answerInteraction(context, interactionId, { action: 'approve' }, request.principal));
        } catch (error) {
          if (!(error instanceof WebError)) throw error;
          results.push({ result: 'refused', interactionId, code: error.code, message: error.message });
        }
      }
      return { results };
    },
  );
}

/**
 * Answers one interaction for a signed-in approver: refused when they are on none of the
 * workflow's lists (404, as for an id that does not exist), when the list of the request's
 * level does not name them (403 NOT_AN_APPROVER, F51), when it is no longer pending (409 already answered, 410 expired),
 * or when the answer does not fit (422, with the engine's reason); the responder is recorded
 * as `web:<name>`.
 */
export async function answerInteraction(
  context: WebContext,
  interactionId: string,
  body: AnswerBody,
  approver: Principal | undefined,
): Promise<AnswerAccepted> {
  try {
    return await decide(context, interactionId, body, approver);
  } catch (error) {
    // Every answer that did not count goes to the audit trail: who, what, why (issue 14). (A
    // database failure is no refusal: the answer may even be stored, and the store is down.)
    if (error instanceof WebError && approver !== undefined && error.statusCode !== 401 && error.statusCode < 500) {
      const lost = error.code === 'INTERACTION_ALREADY_ANSWERED' || error.code === 'INTERACTION_EXPIRED';
      await context.interlock.recordAttempt({
        interactionId,
        responder: responderOf(approver.name),
        result: lost ? 'lost' : 'refused',
        reason: `${body.action}: ${error.code}: ${error.message}`,
      });
    }
    throw error;
  }
}

async function decide(
  context: WebContext,
  interactionId: string,
  body: AnswerBody,
  approver: Principal | undefined,
): Promise<AnswerAccepted> {
  // Authorization with the lookup, and again at decision time: the approvers file may have changed.
  const record = await findInteraction(context, interactionId, approver);
  const name = (approver as Principal).name;
  // An answer of this approver's own stored before goes on to respond(): sent again (its
  // first reply was lost, or said the commit was cut off) it is taken as the retry it is.
  const mine = record.response?.responder === responderOf(name);
  if (record.status !== 'pending' && !mine) throw notPending(record);
  assertOnLevelList(context, record, approver as Principal);
  await assertSeparateDuties(context, record, name);
  // Past its deadline an answer is refused whatever it says: respond() times the interaction out.
  const overdue =
    record.status === 'pending' && record.deadline !== null && Date.parse(record.deadline) <= context.now();
  const input = overdue ? { approved: false } : toInteractionInput(body, record.request);
  const check = overdue ? { ok: true as const } : await context.interlock.checkResponse(interactionId, input);
  if (!check.ok) throw invalidAnswer(check.message);
  let result;
  try {
    result = await context.interlock.respond(interactionId, input, { responder: responderOf(name) });
  } catch (error) {
    // Refused (the input, a quorum's rules: the requester's approval, say; the workflow changed),
    // not stored, or maybe stored: each outcome's row of ANSWER_REPLIES.
    throw answerNotStored(error) ?? error;
  }
  if (result.status === 'accepted') return acceptedAnswer(context, interactionId, result);
  // Someone answered first (named, with when), or the deadline passed: nothing of this answer counts.
  throw notPending(await findInteraction(context, interactionId, approver));
}

/**
 * The interaction, if `approver` may see it: one that does not exist and one of a workflow
 * they are on no list of get the same 404, so an id tells an outsider nothing. `listedUnder`
 * is the workflow whose lists decide (its thread's).
 */
async function findInteraction(
  context: WebContext,
  interactionId: string,
  approver: Principal | undefined,
): Promise<InteractionRecord & { listedUnder: string }> {
  const record = await context.store.getInteraction(interactionId);
  const workflowId =
    record === undefined
      ? undefined
      : ((await context.store.getThread(record.threadId))?.workflowId ?? record.request.workflowId);
  if (record === undefined || workflowId === undefined || !mayApprove(context, workflowId, approver)) {
    throw new WebError(
      404,
      'INTERACTION_NOT_FOUND',
      `no interaction ${interactionId} that you may answer: reload the inbox (GET /api/interactions lists what waits for you)`,
    );
  }
  return { ...record, listedUnder: workflowId };
}

/**
 * Refuses an approver who may see the workflow but is not on the list of this request's level
 * (a MEDIUM approver answering a HIGH call): 403 with the reason, naming no one (F51).
 */
function assertOnLevelList(
  context: WebContext,
  record: InteractionRecord & { listedUnder: string },
  approver: Principal,
): void {
  const level = levelOf(record.request);
  if (context.access.mayApprove(record.listedUnder, approver, level)) return;
  throw new WebError(
    403,
    'NOT_AN_APPROVER',
    `${approver.name} is not on the approver list for ${levelRequests(level)} of workflow "${record.listedUnder}": ask someone on that list, or the server's operator`,
  );
}

/**
 * What the inbox may offer this approver on a card (issue 37), as the answer would be taken:
 * `mayAnswer` false when the level's list does not name them or separation of duties refuses
 * the thread's requester; `mayApprove` false when only their rejection counts (the requester
 * of a call that needs several approvers, F51). `why` says which, for the card.
 */
function whoMayAnswer(
  context: WebContext,
  interaction: UserInteractionRequest,
  principal: Principal | undefined,
): { mayAnswer: boolean; mayApprove: boolean; why?: string } {
  const level = levelOf(interaction);
  if (!mayApprove(context, interaction.workflowId, principal, level))
    return {
      mayAnswer: false,
      mayApprove: false,
      why: 'Your approver list does not cover this level: someone on its list answers it.',
    };
  const name = principal.name;
  const requester = interaction.session.requestedBy;
  const asked = requester !== undefined && personOf(requester) === name;
  if (asked && context.access.separatesDuties(interaction.workflowId, level))
    return {
      mayAnswer: false,
      mayApprove: false,
      why: `You started this thread, so another approver answers its ${levelRequests(level)}.`,
    };
  if (asked && interaction.toolApproval?.quorum !== undefined)
    return {
      mayAnswer: true,
      mayApprove: false,
      why: 'You asked for this thread, so your approval does not count: other approvers approve it. You may reject it.',
    };
  return { mayAnswer: true, mayApprove: true };
}

/**
 * Refuses the thread's own requester where the approvers file separates duties for this
 * workflow and level — and, for a chat's call, the person who asked for it (whose message
 * led the agent to it: in a shared channel, not always the one who opened the chat).
 */
async function assertSeparateDuties(context: WebContext, record: InteractionRecord, name: string): Promise<void> {
  const { request } = record;
  const level = levelOf(request);
  if (!context.access.separatesDuties(request.workflowId, level)) return;
  const requester = request.session.requestedBy;
  if (requester !== undefined && samePerson(requester, name))
    throw new WebError(
      403,
      'SEPARATION_OF_DUTIES',
      `you started this thread, so another approver must answer its ${levelRequests(level)}: ask a colleague on the workflow's approver list`,
    );
  const asker = request.session.chatId === undefined ? undefined : await readAsker(context.interlock, request);
  if (asker !== undefined && samePerson(asker, name))
    throw new WebError(
      403,
      'SEPARATION_OF_DUTIES',
      `you asked for this call in the chat, so another approver must answer it (${levelRequests(level)} are separated from their requester): ask a colleague on the workflow's approver list`,
    );
}

const RISK_ORDER: Readonly<Record<string, number>> = { HIGH: 0, MEDIUM: 1, LOW: 2 };

/** HIGH risk first, then MEDIUM, LOW and questions; oldest first within; a turn's calls in the order the model proposed them. */
function byRiskThenAge(a: UserInteractionRequest, b: UserInteractionRequest): number {
  const risk = (request: UserInteractionRequest) => RISK_ORDER[request.toolApproval?.riskLevel ?? ''] ?? 3;
  return (
    risk(a) - risk(b) ||
    a.requestedAt.localeCompare(b.requestedAt) ||
    (a.toolApproval?.batch?.index ?? 0) - (b.toolApproval?.batch?.index ?? 0)
  );
}

/** 410 for a passed deadline, 409 for anything else that settled it first (an answer, a cancel). */
/**
 * A call offered to `approver` only from its escalation on (F51): not in their inbox before
 * (their approval would not count yet).
 */
function waitsForEscalation(
  interaction: UserInteractionRequest,
  approver: Principal | undefined,
  now: number,
): boolean {
  const escalation = interaction.toolApproval?.quorum?.escalation;
  if (approver === undefined || escalation === undefined || escalation.escalated || Date.parse(escalation.at) <= now)
    return false;
  return escalation.approvers.some((listed) => personOf(listed) === approver.name);
}

/** A chat thread waiting for the next message: answered by sending one in the chat, so not an inbox card. Its approvals are. */
function isChatMessage(context: WebContext, interaction: UserInteractionRequest): boolean {
  return interaction.session.channel === context.chatChannel && interaction.operationType !== 'TOOL_APPROVAL';
}

function matches(interaction: UserInteractionRequest, filter: PendingFilter): boolean {
  const approval = interaction.toolApproval;
  return (
    (filter.threadId === undefined || interaction.threadId === filter.threadId) &&
    (filter.workflowId === undefined || interaction.workflowId === filter.workflowId) &&
    (filter.channel === undefined || interaction.session.channel === filter.channel) &&
    (filter.tool === undefined || approval?.toolName === filter.tool) &&
    (filter.risk === undefined || approval?.riskLevel === filter.risk)
  );
}
