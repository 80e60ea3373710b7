import type { ApprovalQuorum } from '@interlock/sdk-types';
import { InterlockError } from '../../errors/interlock-error.js';
import type { InteractionRecord, StoredThread } from '../../persistence/checkpoint-store.js';
import { hashArguments } from '../../policy/canonical-arguments.js';
import {
  CREATED_AT,
  interactionRecord,
  threadRecord,
  type ThreadOverrides,
} from '../../testing/conformance/store-records.js';
import type { InteractionChange } from '../../persistence/unit-of-work.js';
import type { AnswerInput, AnswerSeen } from '../answer-plan.js';

/* What planAnswer's table tests plan from: a pending approval, its waiting thread, and rows of situations. */

export const NOW = Date.parse(CREATED_AT);
export const AT = new Date(NOW).toISOString();
export const ME = 'process-me';
export const OTHER = { owner: 'process-other', until: new Date(NOW + 10_000).toISOString() };
export const PARAMETERS = { path: 'README.md', content: 'hello' };
export const EDITED = { path: 'README.md', content: 'bye' };

/** A TOOL_APPROVAL of a call that needs `required` approvers. */
export function needsQuorum(required: number, extra: Partial<ApprovalQuorum> = {}): Partial<InteractionRecord> {
  const base = interactionRecord();
  return {
    request: {
      ...base.request,
      toolApproval: {
        ...base.request.toolApproval!,
        quorum: { required, given: 0, approvedBy: [], ...extra } as ApprovalQuorum,
      },
    },
  };
}

/** An approval given before, of `parameters`. */
export function given(responder: string, parameters = PARAMETERS) {
  return { responder, argumentsHash: hashArguments(parameters), approvedAt: AT };
}

/** The chat message whose answer led to the call (ADD_MESSAGE, answered by `responder` before the call was asked). */
export function message(responder: string): InteractionRecord {
  const base = interactionRecord({ interactionId: 'message-1', status: 'processed' });
  return {
    ...base,
    createdAt: '2026-01-02T03:00:00.000Z',
    request: { ...base.request, operationType: 'ADD_MESSAGE', toolApproval: undefined },
    response: { input: 'please deploy', responder, respondedAt: '2026-01-02T03:00:01.000Z' },
  } as InteractionRecord;
}

export interface Situation {
  interaction?: Partial<InteractionRecord> | null;
  thread?: ThreadOverrides | null;
  others?: InteractionRecord[];
  seen?: Partial<AnswerSeen>;
}

export function seenOf(situation: Situation): AnswerSeen {
  const interaction =
    situation.interaction === null ? undefined : interactionRecord({ deadline: null, ...situation.interaction });
  const thread =
    situation.thread === null
      ? undefined
      : threadRecord({ status: 'waiting', pendingInteractionIds: ['interaction-1'], ...situation.thread });
  const stored: StoredThread | undefined =
    thread === undefined
      ? undefined
      : { thread, interactions: [...(situation.others ?? []), ...(interaction ? [interaction] : [])], toolCalls: [] };
  return {
    interactionId: 'interaction-1',
    interaction,
    stored,
    runningHere: false,
    owner: ME,
    workers: false,
    ...situation.seen,
  };
}

export const approve: AnswerInput = { value: { approved: true } };
export const reject: AnswerInput = { value: { approved: false, denyReason: 'no' } };
export const answer: InteractionChange = {
  kind: 'answer',
  interactionId: 'interaction-1',
  response: { input: { approved: true }, responder: 'web:ada', respondedAt: AT },
};
export const changed = new InterlockError('WORKFLOW_CHANGED', 'the workflow was edited');
export const invalid = new InterlockError('INTERACTION_INVALID_RESPONSE', 'expected { approved }');

/** One row: what the desk read, the answer, who gave it, and (part of) the plan expected. */
export type Row = [
  name: string,
  situation: Situation,
  input: AnswerInput,
  responder: string | undefined,
  plan: Record<string, unknown>,
];
