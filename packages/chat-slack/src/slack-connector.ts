import { ChatPlatformBridge, refusalText, type ChatChannel, type RefusedRequest } from '@interlock/chat';
import { InterlockError } from '@interlock/core';
import { App, LogLevel } from '@slack/bolt';
import { isRecord, SlackHttpReceiver } from './slack-http-receiver.js';
import { registerSlackListeners } from './slack-listeners.js';
import { SlackPlatform } from './slack-platform.js';
import { SlackSocketReceiver } from './slack-socket-receiver.js';

/** How Slack reaches the connector. */
export type SlackTransport =
  /** Events and interactions posted to a public URL, each signed with the app's signing secret. */
  | { type: 'http'; signingSecret: string; host?: string; port?: number; path?: string }
  /** Socket Mode: the connector opens a WebSocket to Slack with the app-level token; no public URL. */
  | { type: 'socket'; appToken: string };

export interface SlackConnectorOptions {
  /** The chat channel whose chats this connector shows on Slack. */
  chat: ChatChannel;
  /** The bot token (`xoxb-…`): scopes `chat:write`, `channels:history`, `im:history`. */
  botToken: string;
  transport: SlackTransport;
  /** Slack user id → approver name (as in the approvers file); anyone else is refused. */
  approvers: Readonly<Record<string, string>>;
  /** Slack's Web API base URL. Default `https://slack.com/api/`. */
  apiUrl?: string;
  /** Messages and actions one Slack user may send a minute. Default 30. */
  perMinute?: number;
  /** The time, for the signature window and the rate limit. Default `Date.now`. */
  now?: () => number;
  /** Hears of what could not be done on Slack (never a secret). Default: nothing. */
  warn?: (message: string) => void;
}

/** A running Slack connector. */
export interface SlackConnector {
  /** Where Slack posts events and interactions (HTTP transport only). */
  url: string | undefined;
  bridge: ChatPlatformBridge;
  stop(): Promise<void>;
}

/**
 * Starts the Slack connector of a chat channel (F57), on Slack's official SDK (Bolt): an
 * approval becomes a Block Kit message with Approve / Reject / Edit buttons and a thread for
 * "yes" / "no" replies; Edit opens a modal checked against the tool's schema. Over HTTP every
 * request is verified before Bolt reads it (signature over the raw body, 5 minutes either
 * way, no replay); in Socket Mode no public URL is needed. Refuses to start without its secrets.
 *
 * @throws InterlockError CHAT_PLATFORM_SECRET_MISSING when a token or the signing secret is empty.
 * @example
 * const slack = await startSlackConnector({
 *   chat, botToken: process.env.SLACK_BOT_TOKEN!, approvers: { U024BE7LH: 'alice' },
 *   transport: { type: 'socket', appToken: process.env.SLACK_APP_TOKEN! },
 * });
 */
export async function startSlackConnector(options: SlackConnectorOptions): Promise<SlackConnector> {
  required(options.botToken, 'the Slack bot token');
  const { transport } = options;
  if (transport.type === 'http') required(transport.signingSecret, 'the Slack signing secret');
  else required(transport.appToken, 'the Slack app-level token');
  const warn = options.warn ?? (() => undefined);
  // The receiver audits refused requests through the bridge, which is made once the app is.
  const made: { bridge?: ChatPlatformBridge } = {};
  const receiver =
    transport.type === 'http'
      ? new SlackHttpReceiver({
          signingSecret: transport.signingSecret,
          ...(transport.host === undefined ? {} : { host: transport.host }),
          ...(transport.port === undefined ? {} : { port: transport.port }),
          ...(transport.path === undefined ? {} : { path: transport.path }),
          ...(options.now === undefined ? {} : { now: options.now }),
          onRefused: (reason, body) =>
            auditRefused(made.bridge, reason, body).catch((error: unknown) =>
              warn(
                `Slack: a refused request could not be audited: ${error instanceof Error ? error.message : String(error)}`,
              ),
            ),
        })
      : new SlackSocketReceiver({
          appToken: transport.appToken,
          ...(options.apiUrl === undefined ? {} : { apiUrl: options.apiUrl }),
        });
  const app = new App({
    token: options.botToken,
    receiver,
    logLevel: LogLevel.ERROR,
    ...(options.apiUrl === undefined ? {} : { clientOptions: { slackApiUrl: options.apiUrl } }),
  });
  const platform = new SlackPlatform(app.client);
  const bridge = new ChatPlatformBridge({
    chat: options.chat,
    platform,
    approverOf: (user) => (Object.hasOwn(options.approvers, user) ? options.approvers[user] : undefined),
    ...(options.perMinute === undefined ? {} : { perMinute: options.perMinute }),
    ...(options.now === undefined ? {} : { now: options.now }),
    warn,
  });
  made.bridge = bridge;
  registerSlackListeners(app, { bridge, platform, chat: options.chat, warn });
  const started = (await app.start()) as unknown;
  return {
    url: typeof started === 'string' ? started : undefined,
    bridge,
    async stop() {
      bridge.close();
      await app.stop();
    },
  };
}

function required(value: string, what: string): void {
  if (value.trim() === '')
    throw new InterlockError(
      'CHAT_PLATFORM_SECRET_MISSING',
      `${what} is empty: the Slack connector does not start without it`,
    );
}

/**
 * A request that failed verification: written to the audit trail against the approval it
 * names (a button's value, the edit modal's metadata), or every approval its conversation
 * waits on (a message), or, when it cannot be read (too large, not JSON), every approval
 * waiting in the chats the connector shows. What it names is unverified: it only says what
 * was tried.
 */
async function auditRefused(
  bridge: ChatPlatformBridge | undefined,
  reason: RefusedRequest,
  body: unknown,
): Promise<void> {
  if (bridge === undefined) return;
  const why = `Slack request refused: ${refusalText(reason)}`;
  if (!isRecord(body)) return bridge.auditRefused({}, why);
  const user = isRecord(body['user'])
    ? body['user']['id']
    : isRecord(body['event'])
      ? body['event']['user']
      : undefined;
  const ids: string[] = [];
  const actions = body['actions'];
  if (Array.isArray(actions))
    for (const action of actions as unknown[])
      if (isRecord(action) && typeof action['value'] === 'string') ids.push(action['value']);
  const view = body['view'];
  if (isRecord(view) && typeof view['private_metadata'] === 'string') {
    try {
      const meta = JSON.parse(view['private_metadata']) as unknown;
      if (isRecord(meta) && typeof meta['interactionId'] === 'string') ids.push(meta['interactionId']);
    } catch {
      // Unreadable metadata names nothing.
    }
  }
  const event = body['event'];
  const channel = isRecord(event) ? event['channel'] : isRecord(body['channel']) ? body['channel']['id'] : undefined;
  await bridge.auditRefused(
    {
      user: typeof user === 'string' ? user : undefined,
      conversation: typeof channel === 'string' ? channel : undefined,
      interactionIds: ids,
    },
    why,
  );
}
