/** One message of a webhook, as the connector needs it. */
export interface WebhookMessage {
  /** Its id (`wamid.…`): a message is taken once. */
  id: string;
  /** The sender's WhatsApp number (wa_id). */
  from: string;
  /** When it was sent, in seconds. */
  timestamp: number;
  text: string;
  /** The message it replies to (`context.id`), if any. */
  replyTo: string | undefined;
  /** A reply button pressed: its action and interaction. */
  button: { action: 'approve' | 'reject'; interactionId: string } | undefined;
}

/**
 * The messages of a Cloud API webhook body (`entry[].changes[].value.messages[]`): text
 * messages and reply-button presses. Status updates and anything unreadable are left out.
 */
export function readWebhook(raw: Buffer): WebhookMessage[] {
  let body: unknown;
  try {
    body = JSON.parse(raw.toString('utf8'));
  } catch {
    return [];
  }
  const found: WebhookMessage[] = [];
  for (const entry of list(record(body)?.['entry']))
    for (const change of list(record(entry)?.['changes']))
      for (const item of list(record(record(change)?.['value'])?.['messages'])) {
        const message = record(item);
        const id = message?.['id'];
        const from = message?.['from'];
        if (message === undefined || typeof id !== 'string' || typeof from !== 'string') continue;
        const reply = record(record(message['interactive'])?.['button_reply']);
        const pressed = typeof reply?.['id'] === 'string' ? /^(approve|reject):(.+)$/.exec(reply['id']) : null;
        found.push({
          id,
          from,
          timestamp: Number(message['timestamp']),
          text: typeof record(message['text'])?.['body'] === 'string' ? String(record(message['text'])?.['body']) : '',
          replyTo:
            typeof record(message['context'])?.['id'] === 'string'
              ? String(record(message['context'])?.['id'])
              : undefined,
          button:
            pressed === null
              ? undefined
              : { action: pressed[1] === 'approve' ? 'approve' : 'reject', interactionId: pressed[2] ?? '' },
        });
      }
  return found;
}

function record(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

function list(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}
