import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  ChatPlatformBridge,
  hmacSha256Hex,
  KeyedLock,
  readRawBody,
  ReplayGuard,
  sameDigest,
  type ChatChannel,
} from '@interlock/chat';
import { InterlockError } from '@interlock/core';
import { WhatsAppPlatform, type WhatsAppTemplate } from './whatsapp-platform.js';
import { readWebhook, type WebhookMessage } from './whatsapp-webhook.js';

export interface WhatsAppConnectorOptions {
  chat: ChatChannel;
  phoneNumberId: string;
  /** The Cloud API access token (sent as a bearer token). */
  accessToken: string;
  /** The app secret: `X-Hub-Signature-256` of every webhook is checked with it. */
  appSecret: string;
  /** What the webhook's verification handshake must present (`hub.verify_token`). */
  verifyToken: string;
  /** WhatsApp number (wa_id, digits) → approver name; anyone else is refused. */
  approvers: Readonly<Record<string, string>>;
  approvalTemplate?: WhatsAppTemplate;
  /** Graph API base URL with its version, ending in `/`. Default `https://graph.facebook.com/v21.0/`. */
  apiUrl?: string;
  host?: string;
  /** Default 3001; 0 picks a free port. */
  port?: number;
  /** Default `/whatsapp/webhook`. */
  path?: string;
  perMinute?: number;
  now?: () => number;
  warn?: (message: string) => void;
}

export interface WhatsAppConnector {
  /** The webhook URL to give Meta (GET: the handshake, POST: messages). */
  url: string;
  bridge: ChatPlatformBridge;
  stop(): Promise<void>;
}

/**
 * Starts the WhatsApp connector of a chat channel (F57) on the Cloud API's webhooks and
 * messages endpoint. Each webhook is verified before it is read: `X-Hub-Signature-256` over
 * the raw body in constant time; a message older (or newer) than 5 minutes, or one whose id
 * was seen, is refused and audited, and so is a webhook too large to read (413) or with a
 * bad signature (401). Refuses to start without its secrets.
 *
 * @throws InterlockError CHAT_PLATFORM_SECRET_MISSING when a secret is empty.
 */
export async function startWhatsAppConnector(options: WhatsAppConnectorOptions): Promise<WhatsAppConnector> {
  for (const [value, what] of [
    [options.accessToken, 'the WhatsApp access token'],
    [options.appSecret, 'the WhatsApp app secret'],
    [options.verifyToken, 'the WhatsApp verify token'],
  ] as const)
    if (value.trim() === '')
      throw new InterlockError(
        'CHAT_PLATFORM_SECRET_MISSING',
        `${what} is empty: the WhatsApp connector does not start without it`,
      );
  const now = options.now ?? Date.now;
  const warn = options.warn ?? (() => undefined);
  const lastInbound = new Map<string, number>();
  const platform = new WhatsAppPlatform({
    phoneNumberId: options.phoneNumberId,
    accessToken: options.accessToken,
    approvalTemplate: options.approvalTemplate,
    lastInbound: (user) => lastInbound.get(user),
    now,
    ...(options.apiUrl === undefined ? {} : { apiUrl: options.apiUrl }),
  });
  const bridge = new ChatPlatformBridge({
    chat: options.chat,
    platform,
    approverOf: (user) => (Object.hasOwn(options.approvers, user) ? options.approvers[user] : undefined),
    now,
    warn,
    ...(options.perMinute === undefined ? {} : { perMinute: options.perMinute }),
  });
  const replay = new ReplayGuard(now);
  // One sender's messages are taken one after another, refused ones (audited) included.
  const inOrder = new KeyedLock();
  const path = options.path ?? '/whatsapp/webhook';

  const take = async (message: WebhookMessage): Promise<void> => {
    const refused = replay.check(message.timestamp * 1000, `id:${message.id}`);
    if (refused !== undefined) {
      await audit(message, `WhatsApp message refused: ${refused}`);
      return;
    }
    lastInbound.set(message.from, now());
    if (message.button !== undefined) {
      await bridge.action({ conversation: message.from, user: message.from, ...message.button });
      return;
    }
    await bridge.message({
      conversation: message.from,
      user: message.from,
      text: message.text,
      replyTo: message.replyTo,
    });
  };
  /** A refused message names, unverified, who sent it and what they pressed: audited against that. */
  const audit = (message: WebhookMessage, why: string) =>
    bridge.auditRefused(
      {
        user: message.from.slice(0, 20),
        conversation: message.from,
        interactionIds: message.button === undefined ? undefined : [message.button.interactionId],
      },
      why,
    );
  const auditFailed = (error: unknown) => warn(`WhatsApp: a refused webhook could not be audited: ${String(error)}`);

  const handle = async (request: IncomingMessage, response: ServerResponse) => {
    const url = new URL(request.url ?? '/', 'http://localhost');
    if (url.pathname !== path) return void response.writeHead(404).end();
    if (request.method === 'GET') {
      // The verification handshake: echo the challenge only to the one who knows the verify token.
      const token = url.searchParams.get('hub.verify_token') ?? '';
      const ok = url.searchParams.get('hub.mode') === 'subscribe' && sameDigest(options.verifyToken, token);
      if (!ok) return void response.writeHead(403).end();
      return void response
        .writeHead(200, { 'content-type': 'text/plain' })
        .end(url.searchParams.get('hub.challenge') ?? '');
    }
    if (request.method !== 'POST') return void response.writeHead(405).end();
    const raw = await readRawBody(request);
    if (raw === undefined) {
      // Too large to read, so to verify: refused, and audited like every refusal.
      await bridge.auditRefused({}, 'WhatsApp webhook refused: too large').catch(auditFailed);
      response.writeHead(413).end();
      return;
    }
    const given = String(request.headers['x-hub-signature-256'] ?? '');
    const expected = `sha256=${hmacSha256Hex(options.appSecret, raw)}`;
    const messages = readWebhook(raw);
    if (!sameDigest(expected, given)) {
      // Audited before the answer: once the sender hears 401, the attempt is on the trail;
      // a body that names no message is audited against every approval the chats wait on.
      const why = 'WhatsApp webhook refused: bad signature';
      if (messages.length === 0) await bridge.auditRefused({}, why).catch(auditFailed);
      for (const message of messages) await audit(message, why).catch(auditFailed);
      response.writeHead(401).end();
      return;
    }
    // Acknowledged at once; carried out afterwards, one conversation's messages in order.
    response.writeHead(200).end();
    for (const message of messages)
      inOrder.run(message.from, () => take(message)).catch((error: unknown) => warn(`WhatsApp: ${String(error)}`));
  };

  const server: Server = createServer((request, response) => {
    handle(request, response).catch(() => {
      if (!response.headersSent) response.writeHead(500).end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 3001, options.host ?? '127.0.0.1', () => resolve());
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
