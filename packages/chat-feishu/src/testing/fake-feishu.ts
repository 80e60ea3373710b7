import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { closeServer, RecordedCalls } from '@interlock/chat/testing';

/** A call the fake Open API received. */
export interface FeishuCall {
  method: string;
  path: string;
  token: string | undefined;
  body: Record<string, unknown>;
  messageId?: string;
}

/**
 * A local Feishu / Lark Open API: the calls the connector makes (tenant access token, send a
 * message, update a card) as Feishu documents them (`{ code: 0, data }`), and the address of
 * the long connection (`/callback/ws/endpoint`), whose WebSocket a subclass serves.
 */
export class FakeFeishu {
  readonly calls: FeishuCall[] = [];
  protected server: Server | undefined;
  protected next = 1;
  private readonly recorded = new RecordedCalls(this.calls);

  get domain(): string {
    return `http://127.0.0.1:${(this.server?.address() as AddressInfo).port}`;
  }

  async start(): Promise<void> {
    this.server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as Record<string, unknown>;
        const path = request.url ?? '';
        const call: FeishuCall = {
          method: request.method ?? '',
          path,
          token: request.headers.authorization?.replace(/^Bearer /, ''),
          body,
        };
        let answer: Record<string, unknown> = { code: 0, msg: 'success' };
        if (path.startsWith('/open-apis/auth/v3/tenant_access_token/internal'))
          answer = { code: 0, msg: 'ok', tenant_access_token: 't-test', expire: 7200 };
        else if (path.startsWith('/callback/ws/endpoint'))
          answer = {
            code: 0,
            data: {
              URL: `ws://127.0.0.1:${(this.server?.address() as AddressInfo).port}/ws?device_id=d1&service_id=7`,
              ClientConfig: { PingInterval: 120, ReconnectCount: -1, ReconnectInterval: 120, ReconnectNonce: 30 },
            },
          };
        else if (request.method === 'POST' && path.startsWith('/open-apis/im/v1/messages')) {
          call.messageId = `om_${this.next++}`;
          answer = { code: 0, msg: 'success', data: { message_id: call.messageId } };
        }
        if (!path.startsWith('/open-apis/auth')) this.calls.push(call);
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(JSON.stringify(answer));
        this.recorded.wake();
      });
    });
    this.serve(this.server);
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', resolve));
  }

  /** Where a subclass adds to the server before it listens (the long connection's WebSocket). */
  protected serve(_server: Server): void {}

  async stop(): Promise<void> {
    await closeServer(this.server);
  }

  until(test: (calls: readonly FeishuCall[]) => boolean): Promise<void> {
    return this.recorded.until(test);
  }
}

let events = 1;

/** An event's header (schema 2.0): its id (a new one unless given), type, time and verification token (default `v`). */
function headerOf(type: string, options: { now: number; eventId?: string; token?: string }) {
  return {
    event_id: options.eventId ?? `ev-${events++}`,
    event_type: type,
    create_time: String(options.now),
    token: options.token ?? 'v',
    app_id: 'cli_0123456789abcdef',
    tenant_key: 'tk',
  };
}

/**
 * An `im.message.receive_v1` event (schema 2.0) of `user` writing `text` in chat `oc_1`,
 * carrying the verification token `options.token` (default `v`).
 */
export function messageEvent(
  user: string,
  text: string,
  options: { now: number; parentId?: string; eventId?: string; token?: string },
) {
  return {
    schema: '2.0',
    header: headerOf('im.message.receive_v1', options),
    event: {
      sender: { sender_id: { open_id: user }, sender_type: 'user', tenant_key: 'tk' },
      message: {
        message_id: `om_in${events++}`,
        chat_id: 'oc_1',
        chat_type: 'group',
        message_type: 'text',
        content: JSON.stringify({ text }),
        ...(options.parentId === undefined ? {} : { parent_id: options.parentId, root_id: options.parentId }),
      },
    },
  };
}

/** A `card.action.trigger` callback: `user` pressed a card's button (or submitted its edit form). */
export function cardAction(
  user: string,
  value: { action: string; interactionId: string },
  options: { now: number; form?: Record<string, string>; eventId?: string; token?: string },
) {
  return {
    schema: '2.0',
    header: headerOf('card.action.trigger', options),
    event: {
      operator: { open_id: user, tenant_key: 'tk' },
      action: { tag: 'button', value, ...(options.form === undefined ? {} : { form_value: options.form }) },
      context: { open_message_id: 'om_1', open_chat_id: 'oc_1' },
    },
  };
}

/** Posts a callback as Feishu does: signed with `key` (or a given signature); a string body is sent as it is. */
export async function postCallback(
  url: string,
  body: unknown,
  options: { key: string; timestamp: number; nonce?: string; signature?: string },
) {
  const raw = typeof body === 'string' ? body : JSON.stringify(body);
  const nonce = options.nonce ?? `n${events++}`;
  const signature =
    options.signature ?? createHash('sha256').update(`${options.timestamp}${nonce}${options.key}${raw}`).digest('hex');
  const response = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'x-lark-request-timestamp': String(options.timestamp),
      'x-lark-request-nonce': nonce,
      'x-lark-signature': signature,
    },
    body: raw,
  });
  return { status: response.status, body: (await response.json().catch(() => ({}))) as Record<string, unknown> };
}
