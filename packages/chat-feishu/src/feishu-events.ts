import type { InboundAction, InboundMessage } from '@interlock/chat';
import { EDIT_INPUT } from './feishu-platform.js';

/** An event as the SDK's dispatcher hands it over: the header's and the event's fields side by side. */
export type FeishuEvent = Record<string, unknown> & { event_id?: unknown; create_time?: unknown };

/** A person's text message (`im.message.receive_v1`), or undefined for anything else (a bot, an image). */
export function messageOf(data: FeishuEvent): InboundMessage | undefined {
  const message = record(data['message']);
  const sender = record(data['sender']);
  const user = record(sender?.['sender_id'])?.['open_id'];
  if (message === undefined || sender?.['sender_type'] !== 'user' || typeof user !== 'string') return undefined;
  if (message['message_type'] !== 'text' || typeof message['chat_id'] !== 'string') return undefined;
  let text: string;
  try {
    const content = record(JSON.parse(String(message['content'])));
    text = typeof content?.['text'] === 'string' ? content['text'] : '';
  } catch {
    return undefined;
  }
  const parent = message['parent_id'] ?? message['root_id'];
  return {
    conversation: message['chat_id'],
    user,
    text,
    replyTo: typeof parent === 'string' && parent !== '' ? parent : undefined,
  };
}

/** A card button or the edit form (`card.action.trigger`), or undefined for a card that is not Interlock's. */
export function cardActionOf(data: FeishuEvent): InboundAction | undefined {
  const action = record(data['action']);
  const value = record(action?.['value']);
  const user = record(data['operator'])?.['open_id'];
  const conversation = record(data['context'])?.['open_chat_id'];
  const kind = value?.['action'];
  const interactionId = value?.['interactionId'];
  if (typeof user !== 'string' || typeof conversation !== 'string' || typeof interactionId !== 'string')
    return undefined;
  if (kind !== 'approve' && kind !== 'reject' && kind !== 'edit') return undefined;
  const typed = record(action?.['form_value'])?.[EDIT_INPUT];
  return {
    conversation,
    user,
    interactionId,
    action: kind,
    ...(kind === 'edit' ? { argumentsText: typeof typed === 'string' ? typed : '' } : {}),
  };
}

function record(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}
