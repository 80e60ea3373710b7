import type { ChatChannel } from '@interlock/chat';
import { startSlackConnector } from '@interlock/chat-slack';
import { FakeSlack, postSigned } from '@interlock/chat-slack/testing';

const SECRET = 'slack-signing-secret';

/**
 * Slack for a chat channel: a local Slack Web API and the real connector, over HTTP on
 * 127.0.0.1, with `approvers` (Slack user id → name); both are stopped by `closers`.
 * `send` posts to the connector as Slack does, signed, a form when `form` (a button's payload).
 */
export async function slackFor(
  chat: ChatChannel,
  approvers: Record<string, string>,
  closers: (() => Promise<unknown>)[],
): Promise<{ slack: FakeSlack; send: (body: string, form?: boolean) => Promise<{ status: number; text: string }> }> {
  const slack = new FakeSlack();
  await slack.start();
  closers.push(() => slack.stop());
  const connector = await startSlackConnector({
    chat,
    botToken: 'xoxb-test',
    transport: { type: 'http', signingSecret: SECRET, port: 0 },
    approvers,
    apiUrl: slack.apiUrl,
  });
  closers.push(() => connector.stop());
  const send = (body: string, form = false) =>
    postSigned(connector.url as string, body, {
      secret: SECRET,
      timestamp: Math.floor(Date.now() / 1000),
      ...(form ? { contentType: 'application/x-www-form-urlencoded' } : {}),
    });
  return { slack, send };
}
