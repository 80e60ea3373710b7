import { InterlockError } from '@interlock/core';
import { clip, type ApprovalCard, type ChatPlatform, type PostedRef } from '@interlock/chat';
import type * as lark from '@larksuiteoapi/node-sdk';

/** What a card's buttons carry back in `action.value`. */
export interface FeishuActionValue {
  action: 'approve' | 'reject' | 'edit';
  interactionId: string;
}

/** The name of the edit form's input (`action.form_value.arguments`). */
export const EDIT_INPUT = 'arguments';

/** A text element Feishu shows as it is: no `<at>` mentions, no markdown. */
function plain(content: string, limit = 3000) {
  return { tag: 'plain_text', content: clip(content, limit) };
}

/**
 * The chat channel's port on Feishu / Lark (F57), through the official SDK's client: an
 * approval is an interactive card with Approve / Reject buttons and an edit form (the
 * arguments as JSON, checked against the tool's schema on submit), updated in place once it
 * is answered anywhere. Every text is a `plain_text` element.
 */
export class FeishuPlatform implements ChatPlatform {
  readonly name = 'Feishu';
  readonly prefix = 'feishu';

  constructor(private readonly client: lark.Client) {}

  async post(conversation: string, text: string): Promise<void> {
    await this.create('chat_id', conversation, 'text', { text: clip(text, 4000) });
  }

  async postApproval(conversation: string, card: ApprovalCard): Promise<PostedRef> {
    return this.create('chat_id', conversation, 'interactive', cardOf(card));
  }

  async updateApproval(_conversation: string, ref: PostedRef, card: ApprovalCard): Promise<void> {
    const answer = await this.client.im.message
      .patch({ path: { message_id: ref }, data: { content: JSON.stringify(cardOf(card)) } })
      .catch((error: unknown) => failed('im.message.patch', error));
    if (answer.code !== 0) failed('im.message.patch', answer.msg);
  }

  /** Feishu has no ephemeral text for a bot: a direct message to the person. */
  async notify(_conversation: string, user: string, text: string): Promise<void> {
    await this.create('open_id', user, 'text', { text: clip(text, 4000) });
  }

  private async create(
    idType: 'chat_id' | 'open_id',
    to: string,
    type: 'text' | 'interactive',
    content: unknown,
  ): Promise<string> {
    const answer = await this.client.im.message
      .create({
        params: { receive_id_type: idType },
        data: { receive_id: to, msg_type: type, content: JSON.stringify(content) },
      })
      .catch((error: unknown) => failed('im.message.create', error));
    const id = answer.data?.message_id;
    if (answer.code !== 0 || id === undefined) failed('im.message.create', answer.msg ?? 'no message id');
    return id;
  }
}

function failed(method: string, error: unknown): never {
  throw new InterlockError(
    'CHAT_PLATFORM_FAILED',
    `Feishu refused ${method}: ${error instanceof Error ? error.message : String(error)}`,
    { details: { platform: 'feishu', method } },
  );
}

/** An approval's interactive card: what is asked, the arguments, and while it waits its actions. */
export function cardOf(card: ApprovalCard) {
  const value = (action: FeishuActionValue['action']): FeishuActionValue => ({
    action,
    interactionId: card.interactionId,
  });
  const buttons = card.actions
    .filter((action) => action !== 'edit')
    .map((action) => ({
      tag: 'button',
      text: plain(action === 'approve' ? 'Approve' : 'Reject', 20),
      type: action === 'approve' ? 'primary' : 'danger',
      value: value(action),
    }));
  const edit = card.actions.includes('edit')
    ? [
        {
          tag: 'form',
          name: 'edit',
          elements: [
            {
              tag: 'input',
              name: EDIT_INPUT,
              input_type: 'multiline_text',
              default_value: clip(JSON.stringify(card.arguments, null, 2), 1000),
              label: plain('Arguments (JSON)', 40),
            },
            {
              tag: 'button',
              text: plain('Run with these', 20),
              action_type: 'form_submit',
              name: 'edit',
              value: value('edit'),
            },
          ],
        },
      ]
    : [];
  return {
    config: { wide_screen_mode: true, update_multi: true },
    header: {
      title: plain(`Approval: ${card.toolName}`, 100),
      template: card.status === 'pending' ? 'orange' : 'grey',
    },
    elements: [
      { tag: 'div', text: plain(card.summary) },
      { tag: 'div', text: plain(card.argumentsText) },
      ...(buttons.length === 0 ? [] : [{ tag: 'action', actions: buttons }]),
      ...edit,
      {
        tag: 'note',
        elements: [plain(buttons.length === 0 ? 'Answered.' : 'Or reply "yes" or "no" to this message.')],
      },
    ],
  };
}
