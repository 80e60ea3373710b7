import { InterlockError } from '@interlock/core';
import type { UserInteractionRequest } from '@interlock/sdk-types';
import type { ChatChannel } from './chat-channel.js';
import type { ApprovalCard, ChatPlatform, PostedRef } from './chat-platform.js';
import type { ChatApprovalStatus, ChatEntry } from './chat-types.js';
import { KeyedLock } from './keyed-lock.js';
import { argumentsForDisplay, showInvisibles } from './safe-text.js';

/** An approval message posted on the platform, and how it stood when last shown. */
interface PostedApproval {
  ref: PostedRef;
  card: ApprovalCard;
}

/** What the outbox keeps of one chat: the lines it showed, the approval messages it posted. */
interface ChatOutbox {
  conversation: string;
  shown: Set<string>;
  approvals: Map<string, PostedApproval>;
  /** Whether the lines already there when this process met the chat were set aside. */
  started: boolean;
}

/**
 * Shows a chat on its platform: each new line of the transcript (the agent's replies,
 * notices) as a message, each approval as a message with actions, and each approval again,
 * updated, once it was answered anywhere (the inbox, the CLI, another chat) or timed out
 * (F57), so nobody presses a button that no longer means anything. Works from the
 * transcript, so what is shown is what the chat channel knows, whichever process answered.
 *
 * Kept in this process: which lines were shown and where the approval messages are. After a
 * restart, a chat's earlier lines are not shown again and an approval still waiting is posted
 * again (the old message's buttons keep working: they name the interaction).
 */
export class PlatformOutbox {
  private readonly chats = new Map<string, ChatOutbox>();
  private readonly lock = new KeyedLock();
  private readonly queued = new Set<string>();

  constructor(
    private readonly chat: ChatChannel,
    private readonly platform: ChatPlatform,
    private readonly warn: (message: string) => void,
  ) {}

  /**
   * A chat the bridge is about to give a message to, just opened or met for the first time
   * in this process: the lines there now (the opening notice, or what an earlier process
   * showed) are not shown again; everything after is. Nothing changes for a chat already met.
   */
  async opened(chatId: string, conversation: string): Promise<void> {
    await this.lock.run(chatId, async () => {
      const outbox = this.outboxOf(chatId, conversation);
      if (outbox.started) return;
      for (const entry of await this.chat.transcript(chatId))
        if (entry.role !== 'approval' || entry.approval?.status !== 'pending') outbox.shown.add(entry.id);
      outbox.started = true;
    });
  }

  /** Shows what changed in the chat; calls for one chat run one after another, and coalesce. */
  sync(chatId: string, conversation: string): Promise<void> {
    if (this.queued.has(chatId)) return Promise.resolve();
    this.queued.add(chatId);
    return this.lock.run(chatId, async () => {
      this.queued.delete(chatId);
      try {
        await this.show(chatId, this.outboxOf(chatId, conversation));
      } catch (error) {
        // A chat being opened announces itself before its thread is stored: nothing to show yet.
        if (InterlockError.is(error) && error.code === 'THREAD_NOT_FOUND') return;
        this.warn(`${this.platform.name}: chat ${chatId} could not be shown: ${messageOf(error)}`);
      }
    });
  }

  /** The conversations of the chats this process shows, each once. */
  conversations(): string[] {
    return [...new Set([...this.chats.values()].map((outbox) => outbox.conversation))];
  }

  /** The interaction an approval message (by its reference) asks about, if this process posted it. */
  interactionOf(conversation: string, ref: PostedRef): string | undefined {
    for (const outbox of this.chats.values()) {
      if (outbox.conversation !== conversation) continue;
      for (const posted of outbox.approvals.values()) if (posted.ref === ref) return posted.card.interactionId;
    }
    return undefined;
  }

  private async show(chatId: string, outbox: ChatOutbox): Promise<void> {
    const transcript = await this.chat.transcript(chatId);
    const unposted = transcript.some(
      (entry) => entry.role === 'approval' && entry.approval?.status === 'pending' && !outbox.approvals.has(entry.id),
    );
    const requests = unposted ? await this.chat.pendingApprovals(chatId) : [];
    if (!outbox.started) {
      // Met after a restart, or opened elsewhere: earlier lines were shown by whoever was there.
      for (const entry of transcript) if (entry.role !== 'approval') outbox.shown.add(entry.id);
      outbox.started = true;
    }
    for (const entry of transcript) {
      if (entry.role === 'approval') await this.showApproval(outbox, entry, requests);
      else if (!outbox.shown.has(entry.id)) {
        outbox.shown.add(entry.id);
        // What people wrote on the platform is there already; the agent's replies and the notices are not.
        if (entry.role !== 'user') await this.platform.post(outbox.conversation, showInvisibles(entry.text));
      }
    }
  }

  private async showApproval(
    outbox: ChatOutbox,
    entry: ChatEntry,
    requests: readonly UserInteractionRequest[],
  ): Promise<void> {
    const details = entry.approval;
    if (details === undefined) return;
    const posted = outbox.approvals.get(entry.id);
    if (posted === undefined) {
      if (entry.interactionId === undefined) return;
      const request = requests.find((candidate) => candidate.interactionId === entry.interactionId);
      // Only an approval still waiting is posted: one that ended before it was shown needs no buttons.
      if (details.status !== 'pending' || request === undefined) return;
      const card = cardOf(entry, request);
      const ref = await this.platform.postApproval(outbox.conversation, card);
      outbox.approvals.set(entry.id, { ref, card });
      return;
    }
    if (posted.card.status === details.status) return;
    const card = withStatus(posted.card, details.status, details.answeredBy);
    await this.platform.updateApproval(outbox.conversation, posted.ref, card);
    posted.card = card;
  }

  private outboxOf(chatId: string, conversation: string): ChatOutbox {
    let outbox = this.chats.get(chatId);
    if (outbox === undefined) {
      outbox = { conversation, shown: new Set(), approvals: new Map(), started: false };
      this.chats.set(chatId, outbox);
    }
    return outbox;
  }
}

/** The card of a waiting approval. */
export function cardOf(entry: ChatEntry, request: UserInteractionRequest): ApprovalCard {
  const details = request.toolApproval;
  const stage = details?.stage ?? 'execution';
  const card: ApprovalCard = {
    interactionId: request.interactionId,
    entryId: entry.id,
    toolName: showInvisibles(details?.toolName ?? entry.approval?.toolName ?? 'tool'),
    stage,
    riskLevel: details?.riskLevel,
    arguments: details?.toolParameters ?? entry.approval?.arguments ?? {},
    argumentsText: argumentsForDisplay(details?.toolParameters ?? entry.approval?.arguments ?? {}),
    status: 'pending',
    answeredBy: undefined,
    summary: '',
    // A call that may have run before a restart is answered done, retry or failed by a reply (issue 37).
    actions: stage === 'execution' ? ['approve', 'reject', 'edit'] : stage === 'recovery' ? [] : ['approve', 'reject'],
  };
  return { ...card, summary: summaryOf(card) };
}

/** The card after the approval ended: no actions, and how it ended. */
export function withStatus(
  card: ApprovalCard,
  status: ChatApprovalStatus,
  answeredBy: string | undefined,
): ApprovalCard {
  const next: ApprovalCard = {
    ...card,
    status,
    answeredBy: answeredBy === undefined ? undefined : showInvisibles(answeredBy),
    actions: status === 'pending' ? card.actions : [],
  };
  return { ...next, summary: summaryOf(next) };
}

function summaryOf(card: ApprovalCard): string {
  const by = card.answeredBy === undefined ? '' : ` by ${card.answeredBy}`;
  const risk = card.riskLevel === undefined ? '' : ` (${card.riskLevel} risk)`;
  switch (card.status) {
    case 'pending':
      if (card.stage === 'result')
        return `${card.toolName} has run: may the agent see its result? Reply "yes" or "no".`;
      if (card.stage === 'recovery')
        return `${card.toolName} started before a restart and may not have finished: did it run? Reply "done" if it ran, "retry" to run it again, or "failed".`;
      return `The agent wants to run ${card.toolName}${risk}. Approve, reject or edit it, or reply "yes" or "no".`;
    case 'approved':
      return `Approved${by}: ${card.toolName}.`;
    case 'rejected':
      return `Rejected${by}: ${card.toolName}.`;
    case 'expired':
      return `Nobody answered in time: ${card.toolName} did not run.`;
    case 'cancelled':
      return `Cancelled: ${card.toolName} did not run.`;
  }
}

/** An error as an operator reads it: an Interlock error with its code, which docs/errors.md explains. */
function messageOf(error: unknown): string {
  if (InterlockError.is(error)) return `${error.code}: ${error.message}`;
  return error instanceof Error ? error.message : String(error);
}
