import { InterlockError } from '@interlock/core';
import { clip, type ApprovalCard, type ChatPlatform, type PostedRef } from '@interlock/chat';
import type { WebClient } from '@slack/web-api';

/** The action ids of an approval message's buttons and of the edit modal. */
export const SLACK_ACTIONS = {
  approve: 'interlock_approve',
  reject: 'interlock_reject',
  edit: 'interlock_edit',
  editView: 'interlock_edit_view',
  editBlock: 'interlock_arguments',
  editInput: 'interlock_arguments_input',
} as const;

/**
 * Slack's `&`, `<` and `>`, escaped as Slack documents: the text of a message can then name
 * no one (`<@U…>`, `<!channel>`) and hide no link (`<https://…|label>`).
 */
export function escapeSlackText(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** A plain-text block element: Slack shows it as it is, no markup, no mentions. */
function plain(text: string, limit = 3000) {
  return { type: 'plain_text' as const, text: clip(text, limit), emoji: false };
}

/**
 * The chat channel's port on Slack (F57): lines as messages, an approval as a Block Kit
 * message with Approve / Reject / Edit buttons whose thread takes replies, updated in place
 * when it is answered anywhere. Every text from a tool or a person goes into `plain_text`
 * elements, and the notification text is escaped and sent with `mrkdwn: false`.
 */
export class SlackPlatform implements ChatPlatform {
  readonly name = 'Slack';
  readonly prefix = 'slack';

  constructor(private readonly client: WebClient) {}

  async post(conversation: string, text: string): Promise<void> {
    await this.call('chat.postMessage', () =>
      this.client.chat.postMessage({
        channel: conversation,
        text: escapeSlackText(clip(text, 3000)),
        mrkdwn: false,
        unfurl_links: false,
        unfurl_media: false,
      }),
    );
  }

  async postApproval(conversation: string, card: ApprovalCard): Promise<PostedRef> {
    const posted = await this.call('chat.postMessage', () =>
      this.client.chat.postMessage({
        channel: conversation,
        text: escapeSlackText(card.summary),
        blocks: blocksOf(card),
        mrkdwn: false,
        unfurl_links: false,
        unfurl_media: false,
      }),
    );
    if (typeof posted.ts !== 'string')
      throw failed('chat.postMessage', 'Slack did not say where the message is (no ts)');
    return posted.ts;
  }

  async updateApproval(conversation: string, ref: PostedRef, card: ApprovalCard): Promise<void> {
    await this.call('chat.update', () =>
      this.client.chat.update({
        channel: conversation,
        ts: ref,
        text: escapeSlackText(card.summary),
        blocks: blocksOf(card),
      }),
    );
  }

  async notify(conversation: string, user: string, text: string): Promise<void> {
    await this.call('chat.postEphemeral', () =>
      this.client.chat.postEphemeral({ channel: conversation, user, text: escapeSlackText(clip(text, 3000)) }),
    );
  }

  /** Opens the edit modal: the call's arguments as JSON, checked against the tool's schema on submit. */
  async openEdit(
    triggerId: string,
    conversation: string,
    card: { interactionId: string; toolName: string; argumentsJson: string },
  ) {
    await this.call('views.open', () =>
      this.client.views.open({
        trigger_id: triggerId,
        view: {
          type: 'modal',
          callback_id: SLACK_ACTIONS.editView,
          private_metadata: JSON.stringify({ conversation, interactionId: card.interactionId }),
          title: plain('Edit the arguments', 24),
          submit: plain('Run with these', 24),
          close: plain('Cancel', 24),
          blocks: [
            {
              type: 'section',
              text: plain(`${card.toolName}: the arguments as JSON. They are checked against the tool's schema.`),
            },
            {
              type: 'input',
              block_id: SLACK_ACTIONS.editBlock,
              label: plain('Arguments', 2000),
              element: {
                type: 'plain_text_input',
                action_id: SLACK_ACTIONS.editInput,
                multiline: true,
                initial_value: clip(card.argumentsJson, 3000),
              },
            },
          ],
        },
      }),
    );
  }

  private async call<T extends { ok?: boolean; error?: string }>(method: string, run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (error) {
      throw failed(method, error instanceof Error ? error.message : String(error));
    }
  }
}

function failed(method: string, message: string): InterlockError {
  return new InterlockError('CHAT_PLATFORM_FAILED', `Slack refused ${method}: ${message}`, {
    details: { platform: 'slack', method },
  });
}

/** An approval's blocks: what is asked, the arguments, and the buttons while it waits. */
export function blocksOf(card: ApprovalCard) {
  const buttons = card.actions.map((action) => ({
    type: 'button' as const,
    action_id: SLACK_ACTIONS[action],
    value: card.interactionId,
    text: plain(action === 'approve' ? 'Approve' : action === 'reject' ? 'Reject' : 'Edit', 75),
    ...(action === 'approve' ? { style: 'primary' as const } : action === 'reject' ? { style: 'danger' as const } : {}),
  }));
  return [
    { type: 'section', text: plain(card.summary) },
    { type: 'section', text: plain(card.argumentsText) },
    ...(buttons.length === 0
      ? [{ type: 'context', elements: [plain('Answered: the buttons are gone.')] }]
      : [
          { type: 'actions', block_id: `interlock_${card.interactionId}`.slice(0, 255), elements: buttons },
          { type: 'context', elements: [plain('Or reply "yes" or "no" in this thread.')] },
        ]),
  ];
}
