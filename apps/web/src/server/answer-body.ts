import type { UserInteractionRequest } from '@interlock/sdk-types';
import { WebError } from './web-error.js';

/** The body of `POST /api/interactions/:id/respond`, once fastify has checked its shape. */
export interface AnswerBody {
  action: 'approve' | 'edit' | 'reject' | 'answer';
  arguments?: Record<string, unknown>;
  reason?: string;
  instruction?: string;
  remember?: boolean;
  resolution?: 'done' | 'retry' | 'failed' | 'fail';
  value?: unknown;
}

/**
 * Turns an answer body into the raw input `interlock.respond` takes: a
 * `ToolApprovalResponse` for a tool approval, the value itself for a question.
 *
 * @throws WebError 400 when the action does not fit the interaction (answer on a tool approval, edit without arguments, …).
 */
export function toInteractionInput(body: AnswerBody, request: UserInteractionRequest): unknown {
  const approval = request.operationType === 'TOOL_APPROVAL';
  if (!approval) {
    if (body.action !== 'answer')
      throw badAnswer(
        `interaction ${request.interactionId} is a question (${request.operationType}): answer it with {"action": "answer", "value": …}`,
      );
    if (body.value === undefined) throw badAnswer('an answer needs a "value"');
    return body.value;
  }
  if (body.action === 'answer')
    throw badAnswer(`interaction ${request.interactionId} is a tool approval: use "approve", "edit" or "reject"`);
  if (body.action === 'edit' && body.arguments === undefined)
    throw badAnswer('"edit" needs the new "arguments" (a JSON object)');
  if (body.action !== 'edit' && body.arguments !== undefined) throw badAnswer('"arguments" goes with "edit"');
  if (body.action !== 'reject' && body.reason !== undefined) throw badAnswer('"reason" goes with "reject"');
  if (body.action === 'reject' && body.remember !== undefined)
    throw badAnswer('"remember" goes with "approve" or "edit"');
  const instruction =
    body.instruction === undefined || body.instruction.trim() === ''
      ? {}
      : { userInstruction: body.instruction.trim() };
  if (body.action === 'edit' && body.resolution !== undefined)
    throw badAnswer('"resolution" goes with "approve" (done, retry, failed) or "reject" (failed)');
  if (
    body.action === 'reject' &&
    body.resolution !== undefined &&
    body.resolution !== 'failed' &&
    body.resolution !== 'fail'
  )
    throw badAnswer('"reject" of a call whose outcome is unknown means failed: "resolution" is "failed" or left out');
  const resolution =
    body.resolution === undefined ? {} : { resolution: body.resolution === 'failed' ? 'fail' : body.resolution };
  const remember = body.remember === true ? { remember: true } : {};
  switch (body.action) {
    case 'approve':
      return {
        approved: true,
        ...instruction,
        ...remember,
        ...resolution,
      };
    case 'edit':
      return { approved: true, editedParameters: body.arguments, ...instruction, ...remember };
    case 'reject':
      return {
        approved: false,
        ...(body.reason === undefined || body.reason.trim() === '' ? {} : { denyReason: body.reason.trim() }),
        ...instruction,
        ...resolution,
      };
  }
}

function badAnswer(message: string): WebError {
  return new WebError(400, 'BAD_REQUEST', message);
}
