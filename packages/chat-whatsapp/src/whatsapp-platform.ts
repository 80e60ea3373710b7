import { InterlockError } from '@interlock/core';
import { clip, type ApprovalCard, type ChatPlatform, type PostedRef } from '@interlock/chat';

/** A template message the operator had approved, sent for an approval outside the 24-hour window. */
export interface WhatsAppTemplate {
  name: string;
  /** Its language code, e.g. `en`. */
  language: string;
}

export interface WhatsAppPlatformOptions {
  /** Graph API base URL with its version, ending in `/`. Default `https://graph.facebook.com/v21.0/`. */
  apiUrl?: string;
  phoneNumberId: string;
  accessToken: string;
  /** Sent (with the tool's name and arguments as its two body parameters) when the window is closed. */
  approvalTemplate?: WhatsAppTemplate | undefined;
  /** When the person last wrote (ms), or undefined: the Cloud API's customer-service window. */
  lastInbound: (user: string) => number | undefined;
  now: () => number;
}

/** The Cloud API's customer-service window: free-form messages only within 24 hours of the person's last one. */
export const SERVICE_WINDOW_MS = 24 * 60 * 60_000;

/** The id of a reply button: the action and the interaction it answers. */
export function buttonId(action: 'approve' | 'reject', interactionId: string): string {
  return `${action}:${interactionId}`;
}

/**
 * The chat channel's port on WhatsApp (F57), speaking the Cloud API's messages endpoint
 * directly (there is no official Node SDK for it). A conversation is one person's WhatsApp
 * number. An approval is an interactive message with Approve / Reject reply buttons; outside
 * the 24-hour window it is the configured template, or refused (CHAT_PLATFORM_WINDOW_CLOSED).
 * WhatsApp cannot edit a sent message: once the approval is answered elsewhere or times out,
 * a reply to it says how it ended, and its buttons answer "already answered".
 */
export class WhatsAppPlatform implements ChatPlatform {
  readonly name = 'WhatsApp';
  readonly prefix = 'whatsapp';
  private readonly endpoint: string;

  constructor(private readonly options: WhatsAppPlatformOptions) {
    this.endpoint = `${options.apiUrl ?? 'https://graph.facebook.com/v21.0/'}${encodeURIComponent(options.phoneNumberId)}/messages`;
  }

  async post(conversation: string, text: string): Promise<void> {
    await this.send(conversation, { type: 'text', text: { body: clip(text, 4096), preview_url: false } });
  }

  async postApproval(conversation: string, card: ApprovalCard): Promise<PostedRef> {
    const last = this.options.lastInbound(conversation);
    if (last === undefined || this.options.now() - last > SERVICE_WINDOW_MS) {
      const template = this.options.approvalTemplate;
      if (template === undefined)
        throw new InterlockError(
          'CHAT_PLATFORM_WINDOW_CLOSED',
          `WhatsApp: ${conversation} last wrote more than 24 hours ago, so only a template may be sent: configure approvalTemplate, or answer in the inbox`,
          { details: { platform: 'whatsapp', interactionId: card.interactionId } },
        );
      return this.send(conversation, {
        type: 'template',
        template: {
          name: template.name,
          language: { code: template.language },
          components: [
            {
              type: 'body',
              parameters: [
                { type: 'text', text: clip(card.toolName, 60) },
                { type: 'text', text: clip(card.argumentsText.replace(/\s+/g, ' '), 900) },
              ],
            },
          ],
        },
      });
    }
    const buttons = card.actions
      .filter((action) => action !== 'edit')
      .map((action) => ({
        type: 'reply',
        reply: { id: buttonId(action, card.interactionId), title: action === 'approve' ? 'Approve' : 'Reject' },
      }));
    return this.send(conversation, {
      type: 'interactive',
      interactive: {
        type: 'button',
        body: { text: clip(`${card.summary}\n\n${card.argumentsText}`, 1024) },
        footer: { text: 'Or reply "yes" or "no".' },
        action: { buttons },
      },
    });
  }

  async updateApproval(conversation: string, ref: PostedRef, card: ApprovalCard): Promise<void> {
    await this.send(
      conversation,
      {
        type: 'text',
        text: { body: `${card.summary} The buttons above no longer decide anything.`, preview_url: false },
      },
      ref,
    );
  }

  async notify(_conversation: string, user: string, text: string): Promise<void> {
    await this.send(user, { type: 'text', text: { body: clip(text, 4096), preview_url: false } });
  }

  /** POSTs a message; resolves with its id (`wamid.…`). */
  private async send(to: string, message: Record<string, unknown>, replyTo?: string): Promise<string> {
    const response = await fetch(this.endpoint, {
      method: 'POST',
      headers: { authorization: `Bearer ${this.options.accessToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        messaging_product: 'whatsapp',
        recipient_type: 'individual',
        to,
        ...(replyTo === undefined ? {} : { context: { message_id: replyTo } }),
        ...message,
      }),
    });
    const answer = (await response.json().catch(() => ({}))) as {
      messages?: { id?: string }[];
      error?: { message?: string };
    };
    const id = answer.messages?.[0]?.id;
    if (!response.ok || id === undefined)
      throw new InterlockError(
        'CHAT_PLATFORM_FAILED',
        `WhatsApp refused a ${String(message['type'])} message (HTTP ${response.status}): ${answer.error?.message ?? 'no message id'}`,
        { details: { platform: 'whatsapp', method: 'messages' } },
      );
    return id;
  }
}
