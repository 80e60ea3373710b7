import type { AuditEntry, ICheckpointStore, InteractionRecord, ThreadRecord } from '@interlock/core';
import { ToolApprovalResponse, type Message } from '@interlock/sdk-types';

/** One line of a thread's history, as the page shows it. */
export interface TimelineEntry {
  at: string;
  kind: 'thread' | 'question' | 'answer' | 'decision' | 'tool';
  title: string;
  /** Who acted: an approver (`web:alice`), a pipeline rule, or the engine. */
  actor?: string;
  interactionId?: string;
  toolCallId?: string;
  detail?: unknown;
}

/** A thread as listed: what it is and whether it waits. */
export interface ThreadSummary {
  threadId: string;
  workflowId: string;
  status: ThreadRecord['status'];
  channel: string;
  pendingInteractionIds: string[];
  createdAt: string;
  updatedAt: string;
  error?: ThreadRecord['error'];
}

/** A thread's timeline: built from the store, so it survives restarts and shows other processes' work. */
export interface ThreadTimeline {
  thread: ThreadSummary;
  entries: TimelineEntry[];
  conversation: Message[];
}

export function summarizeThread(thread: ThreadRecord): ThreadSummary {
  return {
    threadId: thread.threadId,
    workflowId: thread.workflowId,
    status: thread.status,
    channel: thread.channel,
    pendingInteractionIds: [...thread.pendingInteractionIds],
    createdAt: thread.createdAt,
    updatedAt: thread.updatedAt,
    ...(thread.error === undefined ? {} : { error: thread.error }),
  };
}

/**
 * Builds a thread's timeline from what the store keeps: when it started and ended, every
 * question and who answered it how, every decision of the audit trail (who or which rule),
 * and every tool call that ran.
 */
export async function buildTimeline(
  store: ICheckpointStore,
  thread: ThreadRecord,
  audit: readonly AuditEntry[],
): Promise<ThreadTimeline> {
  const { threadId } = thread;
  const entries: TimelineEntry[] = [
    {
      at: thread.createdAt,
      kind: 'thread',
      title: 'started',
      detail: { channel: thread.channel, input: thread.input },
    },
  ];
  for (const interaction of await store.listInteractions({ threadId }))
    entries.push(...interactionEntries(interaction));
  for (const entry of audit) {
    entries.push({
      at: entry.at,
      kind: 'decision',
      // An answer that did not count (decidedBy "attempt") is not a decision: say what it was.
      title:
        entry.decidedBy === 'attempt'
          ? `${entry.rule === 'attempt:lost' ? 'an answer lost' : 'an answer refused'} on ${entry.toolName}`
          : `${entry.outcome === 'allow' ? 'allowed' : 'denied'} ${entry.toolName} (${entry.stage})`,
      actor: entry.responder ?? entry.decidedBy,
      toolCallId: entry.toolCallId,
      detail: {
        rule: entry.rule,
        decidedBy: entry.decidedBy,
        reason: entry.reason,
        arguments: entry.originalArguments,
        ...(entry.editedArguments === undefined ? {} : { editedArguments: entry.editedArguments }),
        sequence: entry.sequence,
      },
    });
  }
  for (const execution of await store.listToolExecutions({ threadId })) {
    entries.push({
      at: execution.updatedAt,
      kind: 'tool',
      title: `${execution.toolName}: ${execution.outcome?.status ?? execution.status}`,
      actor: execution.approvedBy,
      toolCallId: execution.toolCallId,
      detail: {
        arguments: execution.arguments,
        ...(execution.outcome === undefined ? {} : { result: execution.outcome.content }),
      },
    });
  }
  if (thread.status === 'completed' || thread.status === 'failed' || thread.status === 'cancelled') {
    entries.push({ at: thread.updatedAt, kind: 'thread', title: thread.status, detail: thread.error ?? thread.output });
  }
  // A stable sort keeps the store's order for entries of the same instant.
  entries.sort((a, b) => a.at.localeCompare(b.at));
  return { thread: summarizeThread(thread), entries, conversation: [...thread.conversation] };
}

function interactionEntries(interaction: InteractionRecord): TimelineEntry[] {
  const { request, interactionId } = interaction;
  const approval = request.toolApproval;
  const entries: TimelineEntry[] = [
    {
      at: interaction.createdAt,
      kind: 'question',
      title: approval === undefined ? request.prompt : `asked to approve ${approval.toolName} (${approval.rule})`,
      interactionId,
      ...(approval === undefined
        ? {}
        : { detail: { arguments: approval.toolParameters, riskLevel: approval.riskLevel, stage: approval.stage } }),
    },
  ];
  if (interaction.response !== undefined) {
    entries.push({
      at: interaction.response.respondedAt,
      kind: 'answer',
      title: approval === undefined ? 'answered' : describeDecision(interaction.response.input),
      actor: interaction.response.responder ?? 'unknown',
      interactionId,
      detail: interaction.response.input,
    });
  } else if (interaction.status === 'failed') {
    entries.push({
      at: interaction.updatedAt,
      kind: 'answer',
      title:
        interaction.failureReason === 'timeout'
          ? 'expired: nobody answered before the deadline'
          : `not answered: ${interaction.failureReason ?? 'failed'}`,
      actor: 'engine',
      interactionId,
      detail: interaction.failureMessage,
    });
  }
  return entries;
}

function describeDecision(input: unknown): string {
  const parsed = ToolApprovalResponse.safeParse(input);
  if (!parsed.success) return 'answered';
  const response = parsed.data;
  const parts = [
    response.approved
      ? response.editedParameters === undefined
        ? 'approved'
        : 'approved with edited arguments'
      : 'rejected',
  ];
  if (response.denyReason !== undefined) parts.push(`reason: ${response.denyReason}`);
  if (response.userInstruction !== undefined) parts.push(`instruction: ${response.userInstruction}`);
  return parts.join('; ');
}
