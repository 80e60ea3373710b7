import type { UserInteractionRequest } from '@interlock/sdk-types';
import { approvalText, summariseArguments } from './chat-transcript.js';
import type { ChatEntry } from './chat-types.js';

/**
 * The numbers of a chat's pending approvals, 1-based: `numbering[number - 1]` is an
 * interaction id. The calls of one model turn are numbered by their place in the turn
 * (stored with each request, so the numbers hold across a restart and after some are
 * answered: "yes 2" still means the second; an answered one keeps its number, with its id
 * if `asked` knows it). Approvals of several turns at once are numbered in the order they
 * were asked, keeping `remembered` while it covers every pending one.
 *
 * @param approvals the pending approvals, oldest first
 * @param asked approvals this process saw asked (answered ones among them)
 * @param remembered the numbering returned last time
 */
export function numberApprovals(
  approvals: readonly UserInteractionRequest[],
  asked: readonly UserInteractionRequest[],
  remembered: readonly string[] | undefined,
): string[] {
  const batches = new Set(approvals.map((request) => request.toolApproval?.batch?.id));
  const [batch] = batches;
  const size = approvals[0]?.toolApproval?.batch?.size;
  if (batches.size === 1 && batch !== undefined && size !== undefined) {
    const ofBatch = [...approvals, ...asked].filter((request) => request.toolApproval?.batch?.id === batch);
    return Array.from(
      { length: size },
      (_, index) =>
        ofBatch.find((request) => request.toolApproval?.batch?.index === index)?.interactionId ??
        `answered-${index + 1}`,
    );
  }
  const pendingIds = approvals.map((request) => request.interactionId);
  if (remembered && pendingIds.every((id) => remembered.includes(id))) return [...remembered];
  return pendingIds;
}

/** "Which one?": the pending approvals with their numbers, and how to answer. */
export function askWhich(approvals: readonly UserInteractionRequest[], numbering: readonly string[]): string {
  if (approvals.length === 1) {
    const details = approvals[0]?.toolApproval;
    return details
      ? approvalText({
          toolName: details.toolName,
          arguments: details.toolParameters,
          stage: details.stage,
          status: 'pending',
        })
      : 'Reply "yes" or "no".';
  }
  const lines = approvals.map((request) => {
    const details = request.toolApproval;
    const call = details ? `${details.toolName} with ${summariseArguments(details.toolParameters)}` : request.prompt;
    return `${numbering.indexOf(request.interactionId) + 1}. ${call}`;
  });
  return [
    `${approvals.length} tool calls are waiting. Which one? Reply "yes 1", "no 2", "yes all" or "no all":`,
    ...lines,
  ].join('\n');
}

/**
 * The approval a yes or no sent while none waits most likely meant: the last one asked since
 * the last message delivered to the agent. One that expired or was cancelled counts even if
 * the agent has spoken since (it only reported that); one that was answered counts until the
 * agent speaks again, because a yes after that may answer a question the agent asked.
 */
export function lastApproval(transcript: readonly ChatEntry[]): ChatEntry | undefined {
  let agentSpoke = false;
  for (let index = transcript.length - 1; index >= 0; index -= 1) {
    const entry = transcript[index];
    if (entry?.role === 'user' && entry.consumed !== true) return undefined;
    if (entry?.role === 'assistant') agentSpoke = true;
    if (entry?.role === 'approval') {
      const status = entry.approval?.status;
      return status === 'expired' || status === 'cancelled' || !agentSpoke ? entry : undefined;
    }
  }
  return undefined;
}

/** Whether a TOOL_APPROVAL answer (as the engine reports it) approved the call. */
export function isApproval(input: unknown): boolean {
  return typeof input === 'object' && input !== null && 'approved' in input && input.approved === true;
}
