import { createHmac } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { closeServer, RecordedCalls } from '@interlock/chat/testing';

/** A message the fake Graph API was asked to send. */
export interface SentMessage {
  path: string;
  token: string | undefined;
  body: Record<string, unknown>;
  id: string;
}

/** A local Graph API: `POST /<version>/<phone-number-id>/messages`, answering as the Cloud API does. */
export class FakeWhatsApp {
  readonly sent: SentMessage[] = [];
  private server: Server | undefined;
  private next = 1;
  private readonly recorded = new RecordedCalls(this.sent);

  get apiUrl(): string {
    return `http://127.0.0.1:${(this.server?.address() as AddressInfo).port}/v21.0/`;
  }

  async start(): Promise<void> {
    this.server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as Record<string, unknown>;
        const id = `wamid.out${this.next++}`;
        this.sent.push({
          path: request.url ?? '',
          token: request.headers.authorization?.replace(/^Bearer /, ''),
          body,
          id,
        });
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(
          JSON.stringify({
            messaging_product: 'whatsapp',
            contacts: [{ input: body['to'], wa_id: body['to'] }],
            messages: [{ id }],
          }),
        );
        this.recorded.wake();
      });
    });
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', resolve));
  }

  async stop(): Promise<void> {
    await closeServer(this.server);
  }

  until(test: (sent: readonly SentMessage[]) => boolean): Promise<void> {
    return this.recorded.until(test);
  }
}

let inbound = 1;

/** A webhook body carrying one message from `from`: text, or a reply-button press. */
export function webhookOf(
  from: string,
  content: { text: string } | { button: string },
  options: { timestamp: number; id?: string; context?: string },
): string {
  const message =
    'text' in content
      ? { type: 'text', text: { body: content.text } }
      : {
          type: 'interactive',
          interactive: { type: 'button_reply', button_reply: { id: content.button, title: 'Approve' } },
        };
  return JSON.stringify({
    object: 'whatsapp_business_account',
    entry: [
      {
        id: 'WABA1',
        changes: [
          {
            field: 'messages',
            value: {
              messaging_product: 'whatsapp',
              metadata: { display_phone_number: '15550000000', phone_number_id: 'PN1' },
              contacts: [{ profile: { name: 'Someone' }, wa_id: from }],
              messages: [
                {
                  from,
                  id: options.id ?? `wamid.in${inbound++}`,
                  timestamp: String(options.timestamp),
                  ...(options.context === undefined ? {} : { context: { from: '15550000000', id: options.context } }),
                  ...message,
                },
              ],
            },
          },
        ],
      },
    ],
  });
}

/** Posts a webhook as Meta does, signed with `secret` (or a given signature). */
export async function postWebhook(url: string, body: string, secret: string, signature?: string) {
  const header = signature ?? `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-hub-signature-256': header },
    body,
  });
  return response.status;
}
