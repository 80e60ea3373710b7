import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  ChatPlatformBridge,
  readRawBody,
  refusalText,
  ReplayGuard,
  sameDigest,
  type ChatChannel,
  type RefusedRequest,
} from '@interlock/chat';
import { InterlockError } from '@interlock/core';
import * as lark from '@larksuiteoapi/node-sdk';
import { FeishuPlatform } from './feishu-platform.js';
import { cardActionOf, messageOf, type FeishuEvent } from './feishu-events.js';
import { verifyFeishuRequest } from './feishu-signature.js';

/** How Feishu / Lark reaches the connector. */
export type FeishuTransport =
  /** Callbacks posted to a public URL, signed with the encrypt key (required). */
  | { type: 'http'; encryptKey: string; host?: string; port?: number; path?: string }
  /** The long connection (WebSocket) the SDK opens with the app's credentials: no public URL. */
  | { type: 'long-connection' };

export interface FeishuConnectorOptions {
  chat: ChatChannel;
  appId: string;
  appSecret: string;
  transport: FeishuTransport;
  /** Open id → approver name; anyone else is refused. */
  approvers: Readonly<Record<string, string>>;
  /**
   * The app's Verification Token (the developer console, Events and callbacks → Encryption
   * strategy). When given, every event and card callback must carry it (`header.token`, or
   * `token` in the older schema), on either transport: one that does not is refused and
   * audited. Default: not checked (the signature, or the long connection, authenticates).
   */
  verificationToken?: string;
  /** `https://open.feishu.cn` (default), `https://open.larksuite.com`, or another base URL. */
  domain?: string;
  perMinute?: number;
  now?: () => number;
  warn?: (message: string) => void;
}

export interface FeishuConnector {
  /** The callback URL (HTTP transport only). */
  url: string | undefined;
  bridge: ChatPlatformBridge;
  stop(): Promise<void>;
}

/**
 * Starts the Feishu / Lark connector of a chat channel (F57) on the official SDK: its client
 * for messages and cards, its event dispatcher, and its long connection. Callbacks over HTTP
 * are verified here rather than by the SDK — over the raw body, in constant time, within 5
 * minutes either way, never twice — and the connector refuses to start without the key.
 * Every event (HTTP or long connection) is taken once: a repeated event id is refused; with
 * `verificationToken`, one without the app's token is refused too. Every refusal (a body too
 * large to read answers 413, the others 401) is audited.
 *
 * @throws InterlockError CHAT_PLATFORM_SECRET_MISSING without the app secret or (HTTP) the encrypt key.
 */
export async function startFeishuConnector(options: FeishuConnectorOptions): Promise<FeishuConnector> {
  const { transport } = options;
  const missing = [
    [options.appSecret, 'the Feishu app secret'],
    ...(transport.type === 'http'
      ? [[transport.encryptKey, "the Feishu encrypt key (the callbacks' verification key)"]]
      : []),
    ...(options.verificationToken === undefined
      ? []
      : [[options.verificationToken, 'the Feishu verification token (given, so checked)']]),
  ].find(([value]) => (value ?? '').trim() === '');
  if (missing !== undefined)
    throw new InterlockError(
      'CHAT_PLATFORM_SECRET_MISSING',
      `${String(missing[1])} is empty: the Feishu connector does not start without it`,
    );
  const now = options.now ?? Date.now;
  const warn = options.warn ?? (() => undefined);
  const domain = options.domain ?? 'https://open.feishu.cn';
  const client = new lark.Client({
    appId: options.appId,
    appSecret: options.appSecret,
    domain,
    loggerLevel: lark.LoggerLevel.error,
  });
  const bridge = new ChatPlatformBridge({
    chat: options.chat,
    platform: new FeishuPlatform(client),
    approverOf: (user) => (Object.hasOwn(options.approvers, user) ? options.approvers[user] : undefined),
    now,
    warn,
    ...(options.perMinute === undefined ? {} : { perMinute: options.perMinute }),
  });
  const seen = new ReplayGuard(now);
  const report = (error: unknown) => warn(`Feishu: ${error instanceof Error ? error.message : String(error)}`);
  /** Why an event (as the dispatcher hands it over) is refused: a wrong or missing token, stale, or seen before. */
  const fresh = (event: FeishuEvent): RefusedRequest | undefined =>
    tokenRefusal(options.verificationToken, event) ??
    seen.check(Number(event.create_time ?? Number.NaN), `event:${String(event.event_id)}`);

  const dispatcher = new lark.EventDispatcher({
    ...(transport.type === 'http' ? { encryptKey: transport.encryptKey } : {}),
    loggerLevel: lark.LoggerLevel.error,
  }).register({
    'im.message.receive_v1': async (data: FeishuEvent) => {
      const message = messageOf(data);
      if (message === undefined) return {};
      const refused = fresh(data);
      if (refused !== undefined) {
        await bridge.auditRefused(message, `Feishu event refused: ${refusalText(refused)}`);
        return {};
      }
      bridge.message(message).catch(report);
      return {};
    },
    'card.action.trigger': async (data: FeishuEvent) => {
      const action = cardActionOf(data);
      if (action === undefined) return { toast: { type: 'error', content: 'Not an Interlock card.' } };
      const refused = fresh(data);
      if (refused !== undefined) {
        await bridge.auditRefused(
          { ...action, interactionIds: [action.interactionId] },
          `Feishu callback refused: ${refusalText(refused)}`,
        );
        return { toast: { type: 'error', content: `Refused (${refusalText(refused)}).` } };
      }
      if (action.action !== 'edit') {
        // Answered at once (3 s): the decision is carried out afterwards, and the card updated.
        bridge.action(action).catch(report);
        return { toast: { type: 'info', content: 'Received.' } };
      }
      const outcome = await bridge.action(action);
      return { toast: { type: outcome.kind === 'decided' ? 'success' : 'error', content: outcome.text.slice(0, 200) } };
    },
  });

  if (transport.type === 'long-connection') {
    const ws = new lark.WSClient({
      appId: options.appId,
      appSecret: options.appSecret,
      domain,
      loggerLevel: lark.LoggerLevel.error,
    });
    await ws.start({ eventDispatcher: dispatcher });
    return {
      url: undefined,
      bridge,
      async stop() {
        bridge.close();
        ws.close({ force: true });
      },
    };
  }

  const replay = new ReplayGuard(now);
  const path = transport.path ?? '/feishu/callback';
  const server: Server = createServer((request, response) => {
    void (async () => {
      if (request.method !== 'POST' || (request.url ?? '').split('?')[0] !== path)
        return void response.writeHead(404).end();
      const raw = await readRawBody(request);
      if (raw === undefined) {
        // Too large to read, so to verify: refused, and audited like every refusal.
        await auditRefused(undefined, 'too_large').catch(report);
        response.writeHead(413, { 'content-type': 'application/json' }).end(JSON.stringify({ error: 'too_large' }));
        return;
      }
      const header = (name: string) => [request.headers[name]].flat()[0];
      const signature = verifyFeishuRequest(
        transport.encryptKey,
        {
          timestamp: header('x-lark-request-timestamp'),
          nonce: header('x-lark-request-nonce'),
          signature: header('x-lark-signature'),
        },
        raw,
        replay,
      );
      let body: Record<string, unknown> = {};
      let plainBody: Record<string, unknown> | undefined;
      try {
        body = JSON.parse(raw.toString('utf8')) as Record<string, unknown>;
        plainBody = decrypt(transport.encryptKey, body);
      } catch {
        // Unreadable: refused below as unsigned, or answered 400.
      }
      const refused =
        signature ??
        (plainBody === undefined ? undefined : tokenRefusal(options.verificationToken, eventOf(plainBody)));
      if (refused !== undefined) {
        // Audited before the answer: once the sender hears 401, the attempt is on the trail.
        await auditRefused(plainBody, refused).catch(report);
        response.writeHead(401, { 'content-type': 'application/json' }).end(JSON.stringify({ error: refused }));
        return;
      }
      if (plainBody === undefined) return void response.writeHead(400).end();
      if (plainBody['type'] === 'url_verification') {
        response
          .writeHead(200, { 'content-type': 'application/json' })
          .end(JSON.stringify({ challenge: plainBody['challenge'] }));
        return;
      }
      const result: unknown = await dispatcher.invoke(body, { needCheck: false });
      response
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify(typeof result === 'object' ? result : {}));
    })().catch((error: unknown) => {
      report(error);
      if (!response.headersSent) response.writeHead(500).end();
    });
  });
  /**
   * A refused callback names, unverified, what it tried: audited against that approval, or
   * what its conversation waits on; one that cannot be read, against every approval waiting
   * in the chats the connector shows.
   */
  const auditRefused = async (plainBody: Record<string, unknown> | undefined, reason: RefusedRequest) => {
    const event = plainBody === undefined ? {} : eventOf(plainBody);
    const action = cardActionOf(event);
    const names =
      action === undefined ? (messageOf(event) ?? {}) : { ...action, interactionIds: [action.interactionId] };
    await bridge.auditRefused(names, `Feishu callback refused: ${refusalText(reason)}`);
  };
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(transport.port ?? 3002, transport.host ?? '127.0.0.1', () => resolve());
  });
  const address = server.address() as AddressInfo;
  return {
    url: `http://${address.address}:${address.port}${path}`,
    bridge,
    async stop() {
      bridge.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** An event as the SDK's dispatcher would hand it over: the header's and the event's fields side by side. */
function eventOf(plainBody: Record<string, unknown>): FeishuEvent {
  const { header, event, ...rest } = plainBody;
  return { ...rest, ...(isRecord(header) ? header : {}), ...(isRecord(event) ? event : {}) };
}

/** `bad_token` when a verification token is configured and the event does not carry it. */
function tokenRefusal(expected: string | undefined, event: FeishuEvent): RefusedRequest | undefined {
  if (expected === undefined) return undefined;
  const token = event['token'];
  return typeof token === 'string' && sameDigest(expected, token) ? undefined : 'bad_token';
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A body as sent, or its `encrypt` field opened with the key (AES-256-CBC, as Feishu documents). */
function decrypt(encryptKey: string, body: Record<string, unknown>): Record<string, unknown> {
  if (typeof body['encrypt'] !== 'string') return body;
  return JSON.parse(new lark.AESCipher(encryptKey).decrypt(body['encrypt'])) as Record<string, unknown>;
}
