import type { App, Receiver } from '@slack/bolt';
import { SocketModeClient } from '@slack/socket-mode';

export interface SlackSocketReceiverOptions {
  /** The app-level token (`xapp-…`, scope `connections:write`). */
  appToken: string;
  /** Slack's Web API base URL; `apps.connections.open` there gives the WebSocket URL. */
  apiUrl?: string;
}

/**
 * Slack's Socket Mode transport for Bolt (no public URL needed): Bolt's own Socket Mode
 * receiver does not pass the Web API's base URL on, so this one builds the
 * `SocketModeClient` with it. Slack does not sign Socket Mode messages: the connection is
 * authenticated by the app token.
 */
export class SlackSocketReceiver implements Receiver {
  private app: App | undefined;
  readonly client: SocketModeClient;

  constructor(options: SlackSocketReceiverOptions) {
    this.client = new SocketModeClient({
      appToken: options.appToken,
      ...(options.apiUrl === undefined ? {} : { clientOptions: { slackApiUrl: options.apiUrl } }),
    });
    this.client.on(
      'slack_event',
      (event: {
        ack: (response?: unknown) => Promise<void>;
        body: Record<string, unknown>;
        retry_num?: number;
        retry_reason?: string;
      }) => {
        void this.app
          ?.processEvent({
            body: event.body,
            ack: async (response?: unknown) => event.ack(response === undefined ? undefined : response),
            ...(event.retry_num === undefined ? {} : { retryNum: event.retry_num }),
            ...(event.retry_reason === undefined ? {} : { retryReason: event.retry_reason }),
          })
          .catch(() => event.ack());
      },
    );
  }

  init(app: App): void {
    this.app = app;
  }

  async start(): Promise<void> {
    await this.client.start();
  }

  async stop(): Promise<void> {
    await this.client.disconnect();
  }
}
