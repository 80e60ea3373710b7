import { InterlockError, personOf, requestWithProgress, type InteractionRecord } from '@interlock/core';
import type { UserInteractionRequest } from '@interlock/sdk-types';
import type { FastifyInstance } from 'fastify';
import { batchApproveBody, idParams, pendingQuery, respondBody } from '../api-schemas.js';
import { toInteractionInput, type AnswerBody } from '../answer-body.js';
import { mayApprove, responderOf, type WebContext } from '../web-context.js';
import { WebError } from '../web-error.js';

interface PendingFilter {
  threadId?: string;
  workflowId?: string;
  channel?: string;
  tool?: string;
  risk?: 'LOW' | 'MEDIUM' | 'HIGH';
}

/** What an accepted answer returns. */
export interface AnswerAccepted {
  result: 'accepted';
  interactionId: string;
  threadId: string;
  /** False when the answer is stored but this process could not take the thread on (another process will), or the call waits for more approvals. */
  continued: boolean;
  /** For a call that needs several approvers (F51): this approval is `given` of `required`; the call waits for the rest. */
  approvals?: { given: number; required: number };
}

/** The inbox: pending interactions, one interaction's state, answers (one, or a turn's calls at once). */
export function registerInteractionRoutes(app: FastifyInstance, context: WebContext): void {
  app.get<{ Querystring: PendingFilter }>(
    '/api/interactions',
    { schema: { querystring: pendingQuery } },
    async (request) => {
      // Only what this approver may answer: someone on no workflow's list sees nothing, arguments included.
      const pending = (await context.interlock.pending())
        .filter(
          (interaction) =>
            mayApprove(context, interaction.workflowId, request.approver) &&
            !waitsForEscalation(interaction, request.approver, context.now()) &&
            matches(interaction, request.query) &&
            !isChatMessage(context, interaction),
        )
        .sort(byRiskThenAge);
      return {
        serverTime: new Date(context.now()).toISOString(),
        interactions: pending.map((interaction) => ({ ...interaction, mayAnswer: true })),
      };
    },
  );

  app.get<{ Params: { interactionId: string } }>(
    '/api/interactions/:interactionId',
    { schema: { params: idParams('interactionId') } },
    async (request) => {
      const record = await findInteraction(context, request.params.interactionId, request.approver);
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
    async (request) => answerInteraction(context, request.params.interactionId, request.body, request.approver),
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
          results.push(await answerInteraction(context, interactionId, { action: 'approve' }, request.approver));
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
 * Answers one interaction for a signed-in approver: refused when they are not on the
 * workflow's list (403), when it is no longer pending (409 already answered, 410 expired),
 * or when the answer does not fit (422, with the engine's reason); the responder is recorded
 * as `web:<name>`.
 */
export async function answerInteraction(
  context: WebContext,
  interactionId: string,
  body: AnswerBody,
  approver: string | undefined,
): Promise<AnswerAccepted> {
  try {
    return await decide(context, interactionId, body, approver);
  } catch (error) {
    // Every answer that did not count goes to the audit trail: who, what, why (issue 14).
    if (error instanceof WebError && approver !== undefined && error.statusCode !== 401) {
      const lost = error.code === 'INTERACTION_ALREADY_ANSWERED' || error.code === 'INTERACTION_EXPIRED';
      await context.interlock.recordAttempt({
        interactionId,
        responder: responderOf(approver),
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
  approver: string | undefined,
): Promise<AnswerAccepted> {
  // Authorization with the lookup, and again at decision time: the approvers file may have changed.
  const record = await findInteraction(context, interactionId, approver);
  const name = approver as string;
  if (record.status !== 'pending') throw notPending(record);
  assertSeparateDuties(context, record, name);
  // Past its deadline an answer is refused whatever it says: respond() times the interaction out.
  const overdue = record.deadline !== null && Date.parse(record.deadline) <= context.now();
  const input = overdue ? { approved: false } : toInteractionInput(body, record.request);
  const check = overdue ? { ok: true as const } : await context.interlock.checkResponse(interactionId, input);
  if (!check.ok) throw invalidAnswer(check.message);
  try {
    const result = await context.interlock.respond(interactionId, input, { responder: responderOf(name) });
    switch (result.status) {
      case 'accepted': {
        const { continuation } = result;
        if (continuation.status !== 'awaiting-approvals')
          return { result: 'accepted', interactionId, threadId: result.threadId, continued: true };
        const { given, required } = continuation;
        return {
          result: 'accepted',
          interactionId,
          threadId: result.threadId,
          continued: false,
          approvals: { given, required },
        };
      }
      case 'already_answered':
      case 'expired':
        throw notPending(await findInteraction(context, interactionId, approver));
    }
  } catch (error) {
    if (!InterlockError.is(error)) throw error;
    switch (error.code) {
      case 'INTERACTION_INVALID_RESPONSE':
        throw invalidAnswer(error.message);
      case 'INTERACTION_NOT_FOUND':
        throw new WebError(404, 'INTERACTION_NOT_FOUND', error.message);
      case 'APPROVAL_NOT_ALLOWED':
        // The requester's approval, or an escalation approver's before the escalation (F51).
        throw new WebError(403, 'APPROVAL_NOT_ALLOWED', error.message);
      case 'WORKFLOW_NOT_FOUND':
      case 'WORKFLOW_VERSION_MISMATCH':
      case 'THREAD_BUSY':
        // The answer is stored; the thread goes on in the process that has its workflow.
        return { result: 'accepted', interactionId, threadId: record.threadId, continued: false };
      default:
        throw error;
    }
  }
}

/**
 * The interaction, if `approver` may see it: one that does not exist and one of a workflow
 * they are not on the list of get the same 404, so an id tells an outsider nothing.
 */
async function findInteraction(
  context: WebContext,
  interactionId: string,
  approver: string | undefined,
): Promise<InteractionRecord> {
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
  return record;
}

/** Refuses the thread's own requester where the approvers file separates duties for this workflow and level. */
function assertSeparateDuties(context: WebContext, record: InteractionRecord, name: string): void {
  const { request } = record;
  const requester = request.session.requestedBy;
  if (requester === undefined || (requester !== name && requester !== responderOf(name))) return;
  const level = request.toolApproval?.riskLevel ?? 'QUESTION';
  if (!context.access.separatesDuties(request.workflowId, level)) return;
  throw new WebError(
    403,
    'SEPARATION_OF_DUTIES',
    `you started this thread, so another approver must answer its ${level === 'QUESTION' ? 'questions' : `${level}-risk calls`}: ask a colleague on the workflow's approver list`,
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
function notPending(record: InteractionRecord): WebError {
  const details = { interactionId: record.interactionId, threadId: record.threadId, status: record.status };
  if (record.status === 'failed' && record.failureReason === 'timeout') {
    return new WebError(
      410,
      'INTERACTION_EXPIRED',
      `interaction ${record.interactionId} expired at ${record.deadline ?? 'its deadline'}: the answer was refused and nothing ran for it`,
      details,
    );
  }
  if (record.response !== undefined) {
    const by = record.response.responder ?? 'another responder';
    return new WebError(
      409,
      'INTERACTION_ALREADY_ANSWERED',
      `interaction ${record.interactionId} was already answered by ${by} at ${record.response.respondedAt}: your answer changed nothing`,
      {
        ...details,
        answeredBy: by,
        answeredAt: record.response.respondedAt,
      },
    );
  }
  return new WebError(
    409,
    'INTERACTION_ALREADY_ANSWERED',
    `interaction ${record.interactionId} is no longer pending (${record.failureReason ?? record.status}${record.failureMessage === undefined ? '' : `: ${record.failureMessage}`}): your answer changed nothing`,
    details,
  );
}

function invalidAnswer(message: string): WebError {
  return new WebError(
    422,
    'INTERACTION_INVALID_RESPONSE',
    `the answer was refused: ${message}. Fix it and send it again; the interaction is still pending`,
  );
}

/**
 * A call offered to `approver` only from its escalation on (F51): not in their inbox before
 * (their approval would not count yet).
 */
function waitsForEscalation(interaction: UserInteractionRequest, approver: string, now: number): boolean {
  const escalation = interaction.toolApproval?.quorum?.escalation;
  if (escalation === undefined || escalation.escalated || Date.parse(escalation.at) <= now) return false;
  return escalation.approvers.some((listed) => personOf(listed) === approver);
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
