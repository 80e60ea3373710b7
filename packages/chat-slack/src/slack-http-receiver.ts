import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readRawBody, ReplayGuard, type RefusedRequest } from '@interlock/chat';
import type { App, Receiver } from '@slack/bolt';
import { verifySlackRequest } from './slack-signature.js';

export interface SlackHttpReceiverOptions {
  signingSecret: string;
  /** Default 127.0.0.1. */
  host?: string;
  /** Default 3000; 0 picks a free port. */
  port?: number;
  /** The path Slack posts events and interactions to. Default `/slack/events`. */
  path?: string;
  /** The time, for the 5-minute window. Default `Date.now`. */
  now?: () => number;
  /**
   * Hears of every refused request, with the body as sent (unverified: read it only to
   * audit; undefined when it was too large or could not be read), before the 401 (413 for
   * a body too large) is sent. It should not throw: a throw answers 500 instead.
   */
  onRefused: (reason: RefusedRequest, body: unknown) => Promise<void>;
}

/**
 * Slack's HTTP transport for Bolt, verifying every request before Bolt reads it: the v0
 * signature over the raw body in constant time, a timestamp within 5 minutes either way,
 * no replay (Bolt's own check lets a future timestamp and a replayed request through).
 * A refused request is reported to `onRefused`, then gets 401 (413 when its body is larger
 * than `MAX_PLATFORM_BODY`, which is not read on). Bolt acknowledges events at
 * once; the listeners acknowledge actions at once and answer asynchronously (3 s rule).
 */
export class SlackHttpReceiver implements Receiver {
  private app: App | undefined;
  private server: Server | undefined;
  private readonly replay: ReplayGuard;

  constructor(private readonly options: SlackHttpReceiverOptions) {
    this.replay = new ReplayGuard(options.now ?? Date.now);
  }

  init(app: App): void {
    this.app = app;
  }

  /** Listens; resolves with the URL Slack should post to. */
  async start(): Promise<string> {
    const server = createServer((request, response) => void this.handle(request, response));
    this.server = server;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.options.port ?? 3000, this.options.host ?? '127.0.0.1', () => resolve());
    });
    const address = server.address() as AddressInfo;
    return `http://${address.address}:${address.port}${this.options.path ?? '/slack/events'}`;
  }

  async stop(): Promise<void> {
    const server = this.server;
    if (server === undefined) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    try {
      if (request.method !== 'POST' || (request.url ?? '').split('?')[0] !== (this.options.path ?? '/slack/events')) {
        response.writeHead(404).end();
        return;
      }
      const raw = await readRawBody(request);
      if (raw === undefined) {
        // Too large to read, so to verify: refused, and audited like every refusal.
        await this.options.onRefused('too_large', undefined);
        response.writeHead(413, { 'content-type': 'application/json' }).end(JSON.stringify({ error: 'too_large' }));
        return;
      }
      const refused = verifySlackRequest(
        this.options.signingSecret,
        {
          timestamp: header(request, 'x-slack-request-timestamp'),
          signature: header(request, 'x-slack-signature'),
        },
        raw,
        this.replay,
      );
      const body = parseBody(raw, header(request, 'content-type'));
      if (refused !== undefined) {
        // Audited before the answer: once Slack (or whoever sent it) hears 401, the attempt is on the trail.
        await this.options.onRefused(refused, body);
        response.writeHead(401, { 'content-type': 'application/json' }).end(JSON.stringify({ error: refused }));
        return;
      }
      if (isRecord(body) && body['type'] === 'url_verification') {
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ challenge: body['challenge'] }));
        return;
      }
      await this.dispatch(body, request, response);
    } catch {
      if (!response.headersSent) response.writeHead(500).end();
    }
  }

  private async dispatch(body: unknown, request: IncomingMessage, response: ServerResponse): Promise<void> {
    if (this.app === undefined || !isRecord(body)) {
      response.writeHead(400).end();
      return;
    }
    let acked = false;
    const ack = async (answer?: unknown) => {
      if (acked) return;
      acked = true;
      if (answer === undefined || answer === '') response.writeHead(200).end();
      else {
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(typeof answer === 'string' ? answer : JSON.stringify(answer));
      }
    };
    const retry = header(request, 'x-slack-retry-num');
    await this.app.processEvent({
      body,
      ack,
      ...(retry === undefined ? {} : { retryNum: Number(retry) }),
      ...(header(request, 'x-slack-retry-reason') === undefined
        ? {}
        : { retryReason: header(request, 'x-slack-retry-reason') as string }),
    });
    // Nothing listened: Slack still gets its acknowledgement, so it does not retry.
    await ack();
  }
}

function header(request: IncomingMessage, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** A Slack body: JSON (events), or a form whose `payload` is JSON (interactions). Unreadable → undefined. */
function parseBody(raw: Buffer, contentType: string | undefined): unknown {
  const text = raw.toString('utf8');
  try {
    if ((contentType ?? '').startsWith('application/x-www-form-urlencoded')) {
      const form = new URLSearchParams(text);
      const payload = form.get('payload');
      return payload === null ? Object.fromEntries(form) : (JSON.parse(payload) as unknown);
    }
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
