import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createHmac } from 'node:crypto';
import { closeServer, RecordedCalls } from '@interlock/chat/testing';
import { WebSocketServer, type WebSocket } from 'ws';

/** One Web API call the fake received. */
export interface SlackCall {
  method: string;
  token: string | undefined;
  body: Record<string, unknown>;
  /** What the fake answered (`ts` of a posted message). */
  answer: Record<string, unknown>;
}

/**
 * A local Slack: the Web API methods the connector calls (`auth.test`, `chat.postMessage`,
 * `chat.update`, `chat.postEphemeral`, `views.open`, `apps.connections.open`), as Slack
 * documents them (form or JSON bodies, `{ ok, … }` answers), and a Socket Mode WebSocket
 * (`hello`, envelopes, acknowledgements by `envelope_id`).
 */
export class FakeSlack {
  readonly calls: SlackCall[] = [];
  private server: Server | undefined;
  private sockets: WebSocketServer | undefined;
  private socket: WebSocket | undefined;
  private nextTs = 1;
  private readonly recorded = new RecordedCalls(this.calls);
  private readonly acks = new Map<string, (payload: unknown) => void>();
  private connected: (() => void) | undefined;

  get apiUrl(): string {
    const address = this.server?.address() as AddressInfo;
    return `http://127.0.0.1:${address.port}/api/`;
  }

  async start(): Promise<void> {
    const server = createServer((request, response) => {
      void readForm(request).then((body) => {
        const method = (request.url ?? '').replace(/^\/api\//, '').split('?')[0] ?? '';
        const token = request.headers.authorization?.replace(/^Bearer /, '');
        const answer = this.answer(method, body);
        this.calls.push({ method, token, body, answer });
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(JSON.stringify(answer));
        this.recorded.wake();
      });
    });
    this.sockets = new WebSocketServer({ noServer: true });
    server.on('upgrade', (request, socket, head) => {
      this.sockets?.handleUpgrade(request, socket, head, (ws) => {
        this.socket = ws;
        ws.on('message', (data) => {
          const message = JSON.parse(String(data)) as { envelope_id?: string; payload?: unknown };
          if (message.envelope_id !== undefined) this.acks.get(message.envelope_id)?.(message.payload);
        });
        ws.send(JSON.stringify({ type: 'hello', num_connections: 1, connection_info: { app_id: 'A1' } }));
        this.connected?.();
      });
    });
    this.server = server;
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  }

  async stop(): Promise<void> {
    this.socket?.terminate();
    this.sockets?.close();
    await closeServer(this.server);
  }

  /** Resolves once a call matching `test` has arrived (no polling: woken by each call). */
  until(test: (calls: readonly SlackCall[]) => boolean): Promise<void> {
    return this.recorded.until(test);
  }

  /** Web API calls of one method. */
  of(method: string): SlackCall[] {
    return this.calls.filter((call) => call.method === method);
  }

  /** Sends a Socket Mode envelope; resolves with the connector's acknowledgement payload. */
  sendEnvelope(type: 'events_api' | 'interactive', payload: Record<string, unknown>): Promise<unknown> {
    const envelopeId = `env-${this.nextTs++}`;
    return new Promise((resolve) => {
      this.acks.set(envelopeId, resolve);
      this.socket?.send(
        JSON.stringify({ envelope_id: envelopeId, type, payload, accepts_response_payload: type === 'interactive' }),
      );
    });
  }

  /** Resolves once a Socket Mode client connected. */
  whenConnected(): Promise<void> {
    if (this.socket !== undefined) return Promise.resolve();
    return new Promise((resolve) => (this.connected = resolve));
  }

  private answer(method: string, body: Record<string, unknown>): Record<string, unknown> {
    switch (method) {
      case 'auth.test':
        return { ok: true, user_id: 'UBOT', bot_id: 'BBOT', team_id: 'T1', user: 'interlock', team: 'Team' };
      case 'apps.connections.open': {
        const address = this.server?.address() as AddressInfo;
        return { ok: true, url: `ws://127.0.0.1:${address.port}/link` };
      }
      case 'chat.postMessage':
        return { ok: true, channel: body['channel'], ts: `1700000000.${String(this.nextTs++).padStart(6, '0')}` };
      case 'chat.update':
        return { ok: true, channel: body['channel'], ts: body['ts'] };
      case 'chat.postEphemeral':
        return { ok: true, message_ts: '1700000000.999999' };
      case 'views.open':
        return { ok: true, view: { id: 'V1' } };
      default:
        return { ok: false, error: 'unknown_method' };
    }
  }
}

/** A Web API body: a form whose object values are JSON (as the Web API client sends them), or JSON. */
async function readForm(request: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  if ((request.headers['content-type'] ?? '').includes('application/json'))
    return JSON.parse(text || '{}') as Record<string, unknown>;
  const body: Record<string, unknown> = {};
  for (const [key, value] of new URLSearchParams(text)) {
    try {
      body[key] = /^[[{]/.test(value) ? (JSON.parse(value) as unknown) : value;
    } catch {
      body[key] = value;
    }
  }
  return body;
}

/** Whether `call` posted an approval: a message with Interlock's approve button. */
export function isApprovalMessage(call: SlackCall): boolean {
  return call.method === 'chat.postMessage' && JSON.stringify(call.body['blocks'] ?? '').includes('interlock_approve');
}

/** Posts to the connector as Slack does: signed with `secret` (or a given signature), at `timestamp` (seconds). */
export async function postSigned(
  url: string,
  body: string,
  options: { secret: string; timestamp: number; signature?: string; contentType?: string },
): Promise<{ status: number; text: string }> {
  const signature =
    options.signature ??
    `v0=${createHmac('sha256', options.secret).update(`v0:${options.timestamp}:${body}`).digest('hex')}`;
  const response = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': options.contentType ?? 'application/json',
      'x-slack-request-timestamp': String(options.timestamp),
      'x-slack-signature': signature,
    },
    body,
  });
  return { status: response.status, text: await response.text() };
}

/** A `message` event as the Events API delivers it. */
export function messageEvent(
  user: string,
  text: string,
  options: { channel?: string; threadTs?: string; id?: string } = {},
) {
  return JSON.stringify({
    type: 'event_callback',
    team_id: 'T1',
    api_app_id: 'A1',
    event_id: options.id ?? `Ev${Math.random().toString(36).slice(2)}`,
    event_time: 1,
    authorizations: [{ team_id: 'T1', user_id: 'UBOT', is_bot: true }],
    event: {
      type: 'message',
      channel: options.channel ?? 'C1',
      channel_type: 'channel',
      user,
      text,
      ts: `1700000001.${Math.floor(Math.random() * 1e6)}`,
      ...(options.threadTs === undefined ? {} : { thread_ts: options.threadTs }),
    },
  });
}

/** A `block_actions` payload: `user` pressed the button `actionId` (value: the interaction id). */
export function buttonPayload(user: string, actionId: string, value: string, channel = 'C1') {
  return {
    type: 'block_actions',
    team: { id: 'T1' },
    user: { id: user, team_id: 'T1' },
    api_app_id: 'A1',
    trigger_id: 'trigger-1',
    channel: { id: channel },
    container: { type: 'message', channel_id: channel },
    actions: [{ type: 'button', action_id: actionId, block_id: 'b', value, action_ts: '1' }],
  };
}

/** A `view_submission` of the edit modal with `argumentsText` typed in. */
export function editSubmission(user: string, interactionId: string, argumentsText: string, channel = 'C1') {
  return {
    type: 'view_submission',
    team: { id: 'T1' },
    user: { id: user, team_id: 'T1' },
    api_app_id: 'A1',
    trigger_id: 'trigger-2',
    view: {
      id: 'V1',
      type: 'modal',
      callback_id: 'interlock_edit_view',
      private_metadata: JSON.stringify({ conversation: channel, interactionId }),
      state: {
        values: {
          interlock_arguments: { interlock_arguments_input: { type: 'plain_text_input', value: argumentsText } },
        },
      },
    },
  };
}

/** A form body `payload=<json>`, as Slack posts interactions. */
export function formPayload(payload: unknown): string {
  return new URLSearchParams({ payload: JSON.stringify(payload) }).toString();
}
