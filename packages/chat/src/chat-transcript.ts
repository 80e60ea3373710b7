import type { AuditEntry, InteractionRecord, ThreadRecord } from '@interlock/core';
import type { Message, UserInteractionRequest } from '@interlock/sdk-types';
import type { ChatApprovalStatus, ChatEntry } from './chat-types.js';

/** A tool approval this process saw asked or answered (bridges the moment between an answer and its audit entry). */
export interface SeenApproval {
  request: UserInteractionRequest;
  decision?: { approved: boolean; answeredBy?: string; at: string; resolution?: 'done' | 'retry' | 'fail' };
}

/** A message this process delivered to the agent: who sent it and when. */
export interface DeliveredMessage {
  text: string;
  author: string;
  at: string;
}

/** A line only this process knows (a notice, a consumed yes/no), shown after the line it followed. */
export interface LocalNote {
  entry: ChatEntry;
  /** The id of the entry it was added after, or undefined for the top. */
  after: string | undefined;
}

/** Everything a transcript is built from. */
export interface TranscriptSources {
  thread: ThreadRecord;
  /** The thread's pending tool approvals. */
  pending: readonly UserInteractionRequest[];
  /** The thread's tool approvals that ended, as stored (answered, timed out, cancelled). */
  settled?: readonly InteractionRecord[];
  /** The thread's audit trail. */
  audit: readonly AuditEntry[];
  seen: ReadonlyMap<string, SeenApproval>;
  delivered: readonly DeliveredMessage[];
  notes: readonly LocalNote[];
  /** Messages waiting for the agent, oldest first. */
  queued: readonly ChatEntry[];
  /** When this process first saw the line with this id (ISO 8601). */
  firstSeen: (id: string) => string;
}

interface ApprovalLine {
  key: string;
  toolCallId: string;
  stage: string;
  toolName: string;
  arguments: Record<string, unknown>;
  status: ChatApprovalStatus;
  /** When it was asked (when it was decided, if this process never saw it asked). */
  at: string;
  interactionId?: string;
  answeredBy?: string;
  /** A call that needs several approvers (F51): how many it has of how many. */
  approvals?: { given: number; required: number };
  /** How a call that may have run before a restart was answered (issue 37). */
  resolution?: 'done' | 'retry' | 'fail';
}

/**
 * Builds a chat's transcript: the thread's conversation from the store (user and assistant
 * messages, tool outcomes as notices), each tool approval after the assistant message that
 * proposed the call (pending ones at the end), then this process's notes after the line
 * they followed, then the messages still queued for the agent.
 */
export function buildTranscript(sources: TranscriptSources): ChatEntry[] {
  const approvals = approvalLines(sources);
  const placed = new Set<string>();
  const authors = authorsOf(sources.thread.conversation, sources.delivered);
  const toolNames = new Map<string, string>();
  const spine: ChatEntry[] = [];
  sources.thread.conversation.forEach((message, index) => {
    const id = `message-${index}`;
    if (message.role === 'user') {
      const delivered = authors.get(index);
      spine.push({
        id,
        role: 'user',
        text: message.content,
        at: delivered?.at ?? sources.firstSeen(id),
        ...(delivered ? { author: delivered.author } : {}),
      });
    } else if (message.role === 'assistant') {
      if (message.content.trim() !== '')
        spine.push({ id, role: 'assistant', text: message.content, at: sources.firstSeen(id) });
      for (const call of message.toolCalls ?? []) {
        toolNames.set(call.id, call.name);
        for (const line of approvals.filter((candidate) => candidate.toolCallId === call.id)) {
          spine.push(approvalEntry(line));
          placed.add(line.key);
        }
      }
    } else if (message.role === 'tool') {
      spine.push({ id, role: 'notice', text: toolOutcome(message, toolNames), at: sources.firstSeen(id) });
    }
  });
  for (const line of approvals.filter((candidate) => !placed.has(candidate.key))) spine.push(approvalEntry(line));
  return [...withNotes(spine, sources.notes), ...sources.queued];
}

/** The id of the transcript line of a tool approval: one per call and stage. */
export function approvalKey(toolCallId: string, stage: string): string {
  return `${toolCallId}-${stage}`;
}

export function approvalEntryId(key: string): string {
  return `approval-${key}`;
}

/** What a tool-approval line says. */
export interface ApprovalTextInput {
  toolName: string;
  arguments: Record<string, unknown>;
  status: ChatApprovalStatus;
  /** `execution` (may it run?), `result` (may the agent see its result?) or `recovery` (it may have run before a restart). Default `execution`. */
  stage?: string;
  answeredBy?: string | undefined;
  /** While it waits, for a call that needs several approvers (F51): `given` of `required`. */
  approvals?: { given: number; required: number } | undefined;
  /** At stage `recovery`, once answered: done, retry or fail (issue 37). */
  resolution?: 'done' | 'retry' | 'fail' | undefined;
}

/** The text of a tool approval, by its stage and status. */
export function approvalText(input: ApprovalTextInput): string {
  const call = `${input.toolName} with ${summariseArguments(input.arguments)}`;
  const by = input.answeredBy === undefined ? '' : ` by ${input.answeredBy}`;
  switch (input.status) {
    case 'pending':
      if (input.stage === 'result')
        return `${call} has run. Reply "yes" to give its result to the agent or "no" to withhold it.`;
      if (input.stage === 'recovery')
        return `${call} started before a restart and may or may not have finished. Reply "done" if it ran, "retry" to run it again, or "failed" to report it failed.`;
      if (input.approvals !== undefined)
        return `The agent wants to run ${call}. It needs ${input.approvals.required} approvals (${input.approvals.given} of ${input.approvals.required} so far). Reply "yes" to approve it or "no" to refuse it.`;
      return `The agent wants to run ${call}. Reply "yes" to allow it or "no" to refuse it.`;
    case 'approved':
      if (input.stage === 'result') return `Gave the result of ${call} to the agent (approved${by}).`;
      if (input.stage === 'recovery')
        return input.resolution === 'done'
          ? `${call} had run, the thread goes on (done${by}).`
          : `Ran ${call} again (retry${by}).`;
      return `Allowed ${call} (approved${by}).`;
    case 'rejected':
      if (input.stage === 'result') return `Withheld the result of ${call} (rejected${by}).`;
      if (input.stage === 'recovery') return `Reported ${call} failed (failed${by}).`;
      return `Refused ${call} (rejected${by}).`;
    case 'expired':
      return `Nobody answered in time about ${call}, so ${input.stage === 'result' ? 'its result was withheld' : 'it did not run'}.`;
    case 'cancelled':
      return `The approval of ${call} was cancelled.`;
  }
}

/** A short one-line form of a call's arguments: JSON with long strings cut. */
export function summariseArguments(parameters: Record<string, unknown>): string {
  return JSON.stringify(parameters, (_key, value: unknown) =>
    typeof value === 'string' && value.length > 60 ? `${value.slice(0, 57)}…` : value,
  );
}

function approvalEntry(line: ApprovalLine): ChatEntry {
  return {
    id: approvalEntryId(line.key),
    role: 'approval',
    text: approvalText(line),
    at: line.at,
    ...(line.interactionId === undefined ? {} : { interactionId: line.interactionId }),
    approval: {
      toolName: line.toolName,
      arguments: line.arguments,
      status: line.status,
      ...(line.answeredBy === undefined ? {} : { answeredBy: line.answeredBy }),
    },
  };
}

/**
 * Every tool approval a person was asked about in this thread: pending ones from the store,
 * answered ones from the audit trail (a person's decision, or the failure of the wait),
 * and, for the moment between an answer and its audit entry, how the store says it ended
 * (answered in any process, or timed out) and what this process saw.
 */
function approvalLines(sources: TranscriptSources): ApprovalLine[] {
  const lines = new Map<string, ApprovalLine>();
  for (const seen of sources.seen.values()) {
    const line = lineOfRequest(seen.request);
    if (!line) continue;
    if (seen.decision) {
      line.status = seen.decision.approved ? 'approved' : 'rejected';
      if (seen.decision.answeredBy !== undefined) line.answeredBy = seen.decision.answeredBy;
      if (seen.decision.resolution !== undefined) line.resolution = seen.decision.resolution;
    }
    // Otherwise it was asked and not answered here: it still waits (below), or it was just
    // answered elsewhere and the audit trail (below) tells how it ended once the answer is applied.
    lines.set(line.key, line);
  }
  for (const interaction of sources.settled ?? []) {
    const line = lineOfRequest(interaction.request);
    if (!line) continue;
    const known = lines.get(line.key);
    // What this process saw answered here stands; the store tells of answers given elsewhere.
    if (known?.status !== undefined && known.status !== 'pending') continue;
    lines.set(line.key, { ...line, ...settledStatus(interaction), at: known?.at ?? line.at });
  }
  for (const entry of sources.audit) {
    const person = entry.decidedBy === 'person';
    if (!person && !entry.decidedBy.startsWith('interaction:')) continue;
    const key = approvalKey(entry.toolCallId, entry.stage);
    const known = lines.get(key);
    lines.set(key, {
      key,
      toolCallId: entry.toolCallId,
      stage: entry.stage,
      toolName: entry.toolName,
      arguments: entry.originalArguments,
      status: person ? (entry.outcome === 'allow' ? 'approved' : 'rejected') : failedStatus(entry.decidedBy),
      // When it was asked, if this process saw it; the decision's time otherwise (after a restart).
      at: known?.at ?? entry.at,
      ...(known?.interactionId === undefined
        ? entry.interactionId === undefined
          ? {}
          : { interactionId: entry.interactionId }
        : { interactionId: known.interactionId }),
      ...(entry.responder === undefined ? {} : { answeredBy: entry.responder }),
      // The audit's reason of an answer to a call of unknown outcome starts with its word.
      ...(entry.stage === 'recovery' && person ? { resolution: resolutionOf(entry.reason) } : {}),
    });
  }
  for (const request of sources.pending) {
    const line = lineOfRequest(request);
    if (line) lines.set(line.key, line);
  }
  return [...lines.values()].sort((a, b) => a.at.localeCompare(b.at));
}

function lineOfRequest(request: UserInteractionRequest): ApprovalLine | undefined {
  const details = request.toolApproval;
  if (request.operationType !== 'TOOL_APPROVAL' || !details) return undefined;
  return {
    key: approvalKey(details.toolCallId, details.stage),
    toolCallId: details.toolCallId,
    stage: details.stage,
    toolName: details.toolName,
    arguments: details.toolParameters,
    status: 'pending',
    at: request.requestedAt,
    interactionId: request.interactionId,
    ...(details.quorum === undefined
      ? {}
      : { approvals: { given: details.quorum.given, required: details.quorum.required } }),
  };
}

/** How a settled approval ended, as its record says: who answered and what, or why the wait failed. */
function settledStatus(interaction: InteractionRecord): Pick<ApprovalLine, 'status' | 'answeredBy' | 'resolution'> {
  const { response } = interaction;
  if (interaction.status === 'failed' || response === undefined)
    return { status: failedStatus(`interaction:${interaction.failureReason ?? 'failed'}`) };
  const input = response.input as { approved?: unknown; resolution?: unknown } | undefined;
  const approved = input?.approved === true || input?.resolution === 'retry';
  const recovery = interaction.request.toolApproval?.stage === 'recovery';
  const resolution = input?.resolution;
  return {
    status: approved ? 'approved' : 'rejected',
    ...(response.responder === undefined ? {} : { answeredBy: response.responder }),
    // An answer to a call of unknown outcome: done, retry or fail (issue 37).
    ...(recovery && (resolution === 'done' || resolution === 'retry' || resolution === 'fail') ? { resolution } : {}),
  };
}

function resolutionOf(reason: string): 'done' | 'retry' | 'fail' {
  if (reason.startsWith('done:')) return 'done';
  return reason.startsWith('retry:') ? 'retry' : 'fail';
}

function failedStatus(decidedBy: string): ChatApprovalStatus {
  if (decidedBy === 'interaction:timeout') return 'expired';
  if (decidedBy === 'interaction:cancelled') return 'cancelled';
  return 'rejected';
}

/**
 * Who sent which user message: the messages this process delivered, matched from the end
 * (after a restart only the later ones are known; the earlier ones show without an author).
 */
function authorsOf(
  conversation: readonly Message[],
  delivered: readonly DeliveredMessage[],
): Map<number, DeliveredMessage> {
  const authors = new Map<number, DeliveredMessage>();
  let next = delivered.length - 1;
  for (let index = conversation.length - 1; index >= 0 && next >= 0; index -= 1) {
    const message = conversation[index];
    const candidate = delivered[next];
    if (message?.role !== 'user' || !candidate || !message.content.includes(candidate.text)) continue;
    authors.set(index, candidate);
    next -= 1;
  }
  return authors;
}

function toolOutcome(message: Message, toolNames: ReadonlyMap<string, string>): string {
  const name = (message.toolCallId === undefined ? undefined : toolNames.get(message.toolCallId)) ?? 'tool';
  const content = message.content.length > 200 ? `${message.content.slice(0, 197)}…` : message.content;
  return `${name}: ${content}`;
}

/** The spine with each note after the line it followed (notes after notes in order); notes whose line is gone go last. */
function withNotes(spine: readonly ChatEntry[], notes: readonly LocalNote[]): ChatEntry[] {
  const byAnchor = new Map<string | undefined, ChatEntry[]>();
  for (const note of notes) byAnchor.set(note.after, [...(byAnchor.get(note.after) ?? []), note.entry]);
  const result: ChatEntry[] = [];
  const visit = (entry: ChatEntry) => {
    result.push(entry);
    const following = byAnchor.get(entry.id);
    byAnchor.delete(entry.id);
    for (const note of following ?? []) visit(note);
  };
  for (const note of byAnchor.get(undefined) ?? []) visit(note);
  byAnchor.delete(undefined);
  for (const entry of spine) visit(entry);
  for (const orphans of [...byAnchor.values()]) for (const note of orphans) visit(note);
  return result;
}
