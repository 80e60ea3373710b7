import { randomUUID } from 'node:crypto';
import { InterlockError, parseJsonStrictly } from '@interlock/core';
import { parseApprovalReply } from './approval-reply.js';
import type { ChatChannel } from './chat-channel.js';
import type { ApprovalAction } from './chat-decisions.js';
import type { ActionOutcome, ChatPlatform, InboundAction, InboundMessage } from './chat-platform.js';
import { KeyedLock } from './keyed-lock.js';
import { PlatformOutbox } from './platform-outbox.js';
import { RateLimit } from './rate-limit.js';

export interface ChatPlatformBridgeOptions {
  /** The chat channel (its handler registered for its channel, in a process that runs the chats' threads or hears of them). */
  chat: ChatChannel;
  platform: ChatPlatform;
  /**
   * The approver a platform user is (the name in the approvers file), or undefined for
   * someone Interlock does not know: they are refused, and a decision they tried is audited.
   */
  approverOf: (user: string) => string | undefined;
  /** Messages and actions one platform user may send a minute (F51). Default 30. */
  perMinute?: number;
  /** The time, for the rate limit. Default `Date.now`. */
  now?: () => number;
  /** Hears of what could not be shown on the platform (its API failed). Default: nothing. */
  warn?: (message: string) => void;
}

/** What a refused request named (unverified): who sent it, where, and which approvals it tried to decide. */
export interface RefusedRequestNames {
  user?: string | undefined;
  conversation?: string | undefined;
  interactionIds?: readonly string[] | undefined;
}

/** A conversation id a chat id can carry: the platforms' ids (`C0123`, `oc_…`, a phone number). */
const CONVERSATION = /^[A-Za-z0-9_.:+@-]{1,80}$/;

/**
 * Connects a messaging platform to the chat channel (F57): one chat per platform
 * conversation. What people write goes through the chat channel exactly as in the web chat —
 * the exact grammar, a yes or no taken before the agent's queue (F31, F32), other messages to
 * the agent in order — and a button, card or modal decides one named approval with the same
 * checks. Who someone is comes from `approverOf`; a platform user Interlock does not know, or
 * one past the rate limit, is refused, and what they tried to decide is audited (F51). The
 * chat is shown on the platform by a {@link PlatformOutbox}.
 *
 * A platform package verifies each request (signature, timestamp, replay) before it calls
 * {@link message} or {@link action}; this class trusts what it is given.
 */
export class ChatPlatformBridge {
  private readonly chat: ChatChannel;
  private readonly platform: ChatPlatform;
  private readonly approverOf: (user: string) => string | undefined;
  private readonly limit: RateLimit;
  private readonly outbox: PlatformOutbox;
  private readonly lock = new KeyedLock();
  private readonly current = new Map<string, string>();
  private readonly subscription: { unsubscribe(): void };

  constructor(options: ChatPlatformBridgeOptions) {
    this.chat = options.chat;
    this.platform = options.platform;
    this.approverOf = options.approverOf;
    this.limit = new RateLimit(options.perMinute ?? 30, options.now ?? Date.now);
    const warn = options.warn ?? (() => undefined);
    this.outbox = new PlatformOutbox(this.chat, this.platform, warn);
    this.subscription = this.chat.updates$.subscribe({
      next: ({ chatId }) => {
        const conversation = this.conversationOf(chatId);
        if (conversation !== undefined) void this.outbox.sync(chatId, conversation);
      },
    });
  }

  /** The chat id of a conversation: `<prefix>-<conversation>` (another after a chat ended). */
  chatIdOf(conversation: string): string {
    if (!CONVERSATION.test(conversation))
      throw new InterlockError(
        'INVALID_OPTIONS',
        `${this.platform.name}: a conversation id may not be "${conversation}"`,
      );
    return this.current.get(conversation) ?? `${this.platform.prefix}-${conversation}`;
  }

  /**
   * Takes a message written on the platform, in the order the platform delivered them (one
   * conversation's messages are taken one at a time).
   */
  message(message: InboundMessage): Promise<void> {
    return this.lock.run(message.conversation, () => this.take(message));
  }

  /** Takes a button, card or modal action on one approval; says what became of it. */
  action(action: InboundAction): Promise<ActionOutcome> {
    return this.lock.run(action.conversation, () => this.decide(action));
  }

  /** Waits until what is known now is shown on the platform (for tests and orderly shutdowns). */
  async flush(conversation: string): Promise<void> {
    await this.outbox.sync(this.chatIdOf(conversation), conversation);
  }

  close(): void {
    this.subscription.unsubscribe();
  }

  /**
   * Writes a request the platform package refused before it was read (a forged or stale
   * signature, a replay, a body too large or unreadable, a wrong verification token) to the
   * audit trail, as every refusal is (F51): against the approvals it names; else every
   * approval its conversation waits on; else, when nothing in it can be read, every approval
   * waiting in the chats this connector shows. What it names is unverified: the responder is
   * `<prefix>:<user> (unverified)`, and it only says what was tried.
   */
  async auditRefused(names: RefusedRequestNames, why: string): Promise<void> {
    const responder = `${this.platform.prefix}:${(names.user ?? 'unknown').slice(0, 40)} (unverified)`;
    const ids = new Set((names.interactionIds ?? []).map((id) => id.slice(0, 100)));
    if (ids.size === 0) {
      const conversations =
        names.conversation !== undefined && CONVERSATION.test(names.conversation)
          ? [names.conversation]
          : this.outbox.conversations();
      for (const conversation of conversations)
        for (const request of await this.pendingOf(conversation)) ids.add(request.interactionId);
    }
    for (const interactionId of ids) await this.chat.recordAttempt(interactionId, responder, why);
  }

  private async take(message: InboundMessage): Promise<void> {
    const approver = this.approverOf(message.user);
    const reply = parseApprovalReply(message.text);
    const deciding = reply.kind === 'approve' || reply.kind === 'reject';
    const refusal =
      approver === undefined
        ? `You are not an approver Interlock knows (${this.platform.name} user ${message.user}); nothing was decided and the agent was not told.`
        : this.limit.take(message.user)
          ? undefined
          : 'Too many messages in a minute: this one was not taken. Wait a little and send it again.';
    if (refusal !== undefined) {
      if (deciding) await this.auditPending(message.conversation, message.user, approver, refusal);
      await this.platform.notify(message.conversation, message.user, refusal);
      return;
    }
    const name = approver as string;
    // A bare yes or no in the thread of one approval message answers that approval.
    const target =
      message.replyTo === undefined ? undefined : this.outbox.interactionOf(message.conversation, message.replyTo);
    if (target !== undefined && deciding && reply.targets.kind === 'unnamed') {
      const chatId = this.chatIdOf(message.conversation);
      const choice =
        reply.kind === 'approve'
          ? {
              action: reply.kind,
              ...(reply.resolution === 'done' || reply.resolution === 'retry' ? { resolution: reply.resolution } : {}),
            }
          : { action: reply.kind, ...(reply.resolution === 'fail' ? { resolution: reply.resolution } : {}) };
      const result = await this.chat.decide(chatId, target, choice, name, { via: this.platform.name });
      if (result.kind !== 'approval') await this.platform.notify(message.conversation, message.user, result.text);
      return;
    }
    const chatId = await this.ensureChat(message.conversation, name);
    const result = await this.chat.receive(chatId, message.text, name, { via: this.platform.name });
    if (result.kind === 'notice' && result.reason === 'chat_ended') {
      // The chat's thread ended (its workflow's turns ran out): the conversation goes on in a new one.
      const next = await this.openChat(
        message.conversation,
        name,
        `${this.platform.prefix}-${message.conversation}~${randomUUID().slice(0, 8)}`,
      );
      await this.chat.receive(next, message.text, name, { via: this.platform.name });
    }
  }

  private async decide(action: InboundAction): Promise<ActionOutcome> {
    const approver = this.approverOf(action.user);
    const refusal =
      approver === undefined
        ? `You are not an approver Interlock knows (${this.platform.name} user ${action.user}): nothing was decided.`
        : this.limit.take(action.user)
          ? undefined
          : 'Too many actions in a minute: nothing was decided. Wait a little and try again.';
    if (refusal !== undefined) {
      await this.chat.recordAttempt(
        action.interactionId,
        this.responderOf(action.user, approver),
        `${action.action} in ${this.platform.name}: ${refusal}`,
      );
      await this.platform.notify(action.conversation, action.user, refusal);
      return { kind: 'refused', text: refusal };
    }
    const name = approver as string;
    const choice = this.choiceOf(action);
    if ('invalid' in choice) return { kind: 'invalid', text: choice.invalid };
    let result;
    try {
      result = await this.chat.decide(this.chatIdOf(action.conversation), action.interactionId, choice, name, {
        via: this.platform.name,
      });
    } catch (error) {
      if (!InterlockError.is(error) || error.code !== 'THREAD_NOT_FOUND') throw error;
      const text = 'There is no chat with the agent in this conversation: nothing was decided.';
      await this.chat.recordAttempt(action.interactionId, name, `${action.action} in ${this.platform.name}: ${text}`);
      await this.platform.notify(action.conversation, action.user, text);
      return { kind: 'refused', text };
    }
    switch (result.kind) {
      case 'approval':
        return { kind: 'decided', text: `${result.decision === 'approve' ? 'Approved' : 'Rejected'} by ${name}.` };
      case 'invalid':
        return { kind: 'invalid', text: result.text };
      case 'notice':
        await this.platform.notify(action.conversation, action.user, result.text);
        return { kind: 'refused', text: result.text };
    }
  }

  private choiceOf(action: InboundAction): ApprovalAction | { invalid: string } {
    if (action.action === 'approve') return { action: 'approve' };
    if (action.action === 'reject')
      return action.reason === undefined ? { action: 'reject' } : { action: 'reject', reason: action.reason };
    let parsed: unknown;
    try {
      parsed = parseJsonStrictly(action.argumentsText ?? '');
    } catch (error) {
      return { invalid: `The arguments are not JSON: ${error instanceof Error ? error.message : String(error)}` };
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
      return { invalid: 'The arguments must be a JSON object, such as {"path": "NOTES.md"}.' };
    return { action: 'edit', arguments: parsed as Record<string, unknown> };
  }

  /** A decision from someone refused before it was read: audited against every approval the chat waits on. */
  private async auditPending(conversation: string, user: string, approver: string | undefined, why: string) {
    let pending;
    try {
      pending = await this.chat.pendingApprovals(this.chatIdOf(conversation));
    } catch (error) {
      if (InterlockError.is(error) && error.code === 'THREAD_NOT_FOUND') return;
      throw error;
    }
    for (const request of pending)
      await this.chat.recordAttempt(
        request.interactionId,
        this.responderOf(user, approver),
        `reply in ${this.platform.name}: ${why}`,
      );
  }

  /** The approvals a conversation's chat waits on; none when it has no chat. */
  private async pendingOf(conversation: string) {
    try {
      return await this.chat.pendingApprovals(this.chatIdOf(conversation));
    } catch (error) {
      if (InterlockError.is(error) && error.code === 'THREAD_NOT_FOUND') return [];
      throw error;
    }
  }

  private responderOf(user: string, approver: string | undefined): string {
    return approver ?? `${this.platform.prefix}:${user}`;
  }

  private async ensureChat(conversation: string, author: string): Promise<string> {
    const chatId = this.chatIdOf(conversation);
    try {
      if (!this.chat.knows(chatId)) await this.chat.pendingApprovals(chatId);
    } catch (error) {
      if (!InterlockError.is(error) || error.code !== 'THREAD_NOT_FOUND') throw error;
      return this.openChat(conversation, author, chatId);
    }
    // Met here for the first time (a restart, another server opened it): what it said before
    // this message was shown by whoever was there; the agent's answer to this one is shown here.
    await this.outbox.opened(chatId, conversation);
    return chatId;
  }

  private async openChat(conversation: string, author: string, chatId: string): Promise<string> {
    await this.chat.open(author, { chatId });
    this.current.set(conversation, chatId);
    await this.outbox.opened(chatId, conversation);
    return chatId;
  }

  private conversationOf(chatId: string): string | undefined {
    const prefix = `${this.platform.prefix}-`;
    if (!chatId.startsWith(prefix)) return undefined;
    const conversation = chatId.slice(prefix.length).split('~')[0] ?? '';
    return CONVERSATION.test(conversation) ? conversation : undefined;
  }
}
