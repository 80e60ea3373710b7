import {
  QuorumConfig,
  type ApprovalQuorum,
  type ApprovalStage,
  type QuorumConfigInput,
  type RiskLevel,
  type UserInteractionRequest,
} from '@interlock/sdk-types';
import type { InteractionRecord, ThreadRecord } from '../persistence/checkpoint-store.js';
import type { ResolvedApprovalOptions } from './approval-options.js';

/*
 * N-of-M approvals (F51): which calls need several approvers, who asked for a call, and how a
 * request shows where its approvals stand. Pure functions; the answer side is
 * engine/answer-plan.ts.
 */

const RISK_ORDER: Readonly<Record<RiskLevel, number>> = { LOW: 0, MEDIUM: 1, HIGH: 2 };

/**
 * The stricter of two quorum settings (the instance's and the workflow's): the most approvers,
 * from the lower risk; the more specific escalation (`later`'s) if it has one.
 */
export function stricterQuorum(
  earlier: QuorumConfig | undefined,
  later: QuorumConfig | undefined,
): QuorumConfig | undefined {
  if (earlier === undefined || later === undefined) return later ?? earlier;
  const escalation = later.escalation ?? earlier.escalation;
  return {
    required: Math.max(earlier.required, later.required),
    minRisk: RISK_ORDER[earlier.minRisk] <= RISK_ORDER[later.minRisk] ? earlier.minRisk : later.minRisk,
    ...(escalation === undefined ? {} : { escalation }),
  };
}

/** The quorum a thread's calls need: the instance's and the workflow's (fixed when the thread started), the stricter. */
export function quorumOf(thread: ThreadRecord, options: ResolvedApprovalOptions): QuorumConfig | undefined {
  return stricterQuorum(options.quorum, thread.toolApproval.quorum);
}

/** Whether a call of `riskLevel` needs the quorum (F51). */
export function needsQuorum(quorum: QuorumConfig | undefined, riskLevel: RiskLevel): boolean {
  return quorum !== undefined && RISK_ORDER[riskLevel] >= RISK_ORDER[quorum.minRisk];
}

/** Reads a quorum given as options (durations as text allowed); undefined when it is not valid (reported elsewhere). */
export function parseQuorum(input: QuorumConfigInput | undefined): QuorumConfig | undefined {
  if (input === undefined) return undefined;
  const parsed = QuorumConfig.safeParse(input);
  return parsed.success ? parsed.data : undefined;
}

/**
 * What a TOOL_APPROVAL request about a call says of its quorum, when the call needs one: only
 * a call about to run (`execution`) at or above the quorum's risk. The escalation is left out
 * when it would come at or after the deadline.
 */
export function requestQuorum(
  quorum: QuorumConfig | undefined,
  call: { riskLevel: RiskLevel; stage: ApprovalStage },
  timing: { now: number; timeout: number },
): ApprovalQuorum | undefined {
  if (quorum === undefined || call.stage !== 'execution' || !needsQuorum(quorum, call.riskLevel)) return undefined;
  const { escalation } = quorum;
  const escalates =
    escalation !== undefined && (timing.timeout === 0 || escalation.after < timing.timeout) ? escalation : undefined;
  return {
    required: quorum.required,
    given: 0,
    approvedBy: [],
    ...(escalates === undefined
      ? {}
      : {
          escalation: {
            at: new Date(timing.now + escalates.after).toISOString(),
            approvers: [...escalates.approvers],
            escalated: false,
          },
        }),
  };
}

/**
 * The request of an interaction with its quorum as stored now: how many approvals it has, by
 * whom, for which arguments, and whether it was escalated ("1 of 2" for the inbox, the chat
 * and the CLI). Other requests come back as they are.
 */
export function requestWithProgress(interaction: InteractionRecord): UserInteractionRequest {
  const { request } = interaction;
  const details = request.toolApproval;
  const quorum = details?.quorum;
  if (details === undefined || quorum === undefined) return request;
  const approvals = interaction.quorum?.approvals ?? [];
  const edited = approvals[0]?.editedParameters;
  const { escalation } = quorum;
  return {
    ...request,
    toolApproval: {
      ...details,
      quorum: {
        required: quorum.required,
        given: approvals.length,
        approvedBy: approvals.map((approval) => approval.responder),
        ...(edited === undefined ? {} : { arguments: edited }),
        ...(escalation === undefined
          ? {}
          : { escalation: { ...escalation, escalated: interaction.quorum?.escalatedAt !== undefined } }),
      },
    },
  };
}

/**
 * The person behind a responder: `web:alice`, `cli:alice` and `alice` are one person, who
 * counts once (and is the requester `alice` or `web:alice`).
 */
export function personOf(responder: string): string {
  const colon = responder.indexOf(':');
  return colon === -1 ? responder : responder.slice(colon + 1);
}

/**
 * Who asked for a call in a chat: the person whose message the agent was answering when it
 * proposed it — the responder of the thread's last message question (`ADD_MESSAGE`) asked
 * before the call and answered. In a shared channel that is whoever wrote, not whoever
 * opened the chat; separation of duties binds them both, and their approval never counts
 * toward a call that needs several approvers (F51). Undefined when no message led to it.
 * Ordered by when each question was asked (both stamped by the engine that ran the thread),
 * not by when an answer was taken.
 */
export function askerOf(
  interactions: readonly InteractionRecord[],
  request: Pick<UserInteractionRequest, 'requestedAt'>,
): string | undefined {
  let asker: { at: string; responder: string } | undefined;
  for (const interaction of interactions) {
    const responder = interaction.response?.responder;
    if (interaction.request.operationType !== 'ADD_MESSAGE' || responder === undefined) continue;
    if (interaction.createdAt > request.requestedAt) continue;
    if (asker === undefined || interaction.createdAt >= asker.at) asker = { at: interaction.createdAt, responder };
  }
  return asker?.responder;
}
