import { FakeFeishu, messageEvent as feishuMessage, postCallback } from '@interlock/chat-feishu/testing';
import { FakeSlack, isApprovalMessage, messageEvent as slackMessage, postSigned } from '@interlock/chat-slack/testing';
import { FakeWhatsApp, postWebhook, webhookOf } from '@interlock/chat-whatsapp/testing';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { api, dropDeploymentSchemas, until } from './deployment/deployment-harness.js';
import { startPlatformDeployment, type PlatformDeployment } from './deployment/platform-deployment.js';

/*
 * A call answered outside the chat is shown as ended on the platform (F57), in the shape of a
 * deployment (docs/chat.md): the connectors run in `interlock-web`, the chat's agent in a
 * worker, and the answer comes from elsewhere — the inbox of another web server, `interlock
 * respond`, the chat view of another web server — or nobody answers in time. The server that
 * posted the approval message hears of it only through the store's change feed (PostgreSQL
 * NOTIFY), and updates the message in place (Slack, Feishu: its buttons gone) or replies to
 * it (WhatsApp, which cannot edit a message).
 */

const closers: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});
afterAll(() => dropDeploymentSchemas());

/** An approval message the connector posted: where it is, and the interaction its buttons name. */
interface Posted {
  ref: string;
  interactionId: string;
}

/** What a test needs of one platform's stand-in. */
interface Platform {
  /** The `[chat.<platform>]` table, pointed at the stand-in, and the secrets it names. */
  toml: string;
  environment: Record<string, string>;
  /** The chat id of the conversation the test writes in. */
  chatId: string;
  /** Writes `text` in the conversation, to the connector at `url`, as the platform sends it. */
  say(url: string, text: string): Promise<number>;
  /** The approval messages posted, oldest first. */
  approvals(): Posted[];
  /** What was shown of the approval at `ref` since it was posted: the updated message, or the replies to it. */
  shownAfter(ref: string): { text: string; buttons: boolean }[];
  /** The lines posted in the conversation. */
  lines(): string[];
}

const MINUTE = 60_000;

/**
 * Four calls in one chat, each answered outside it: the inbox of the other server, the CLI,
 * the other server's chat view ("yes"), and the deadline. Each approval message ends showing
 * how, with nothing left to press; the approved calls run once each.
 */
async function answeredElsewhere(platform: Platform, connector: string, on: 'PostgreSQL' | 'SQLite' = 'PostgreSQL') {
  const deployment: PlatformDeployment = await startPlatformDeployment(platform.toml, platform.environment, { on });
  closers.push(() => deployment.close());
  const url = deployment.web.connectors.get(connector);
  if (url === undefined) return expect.unreachable(`interlock-web started no ${connector} connector`);
  const ask = async (service: string, count: number): Promise<Posted> => {
    expect(await platform.say(url, `deploy ${service}`)).toBe(200);
    const posted = await until(
      `the approval of "deploy ${service}" on ${connector}`,
      () => platform.approvals(),
      (approvals) => approvals.length === count,
      30_000,
    );
    return posted[count - 1] as Posted;
  };
  const untilShown = (posted: Posted, ending: RegExp) =>
    until(
      `the ${connector} approval to show ${String(ending)}`,
      () => platform.shownAfter(posted.ref),
      (shown) => shown.some(({ text }) => ending.test(text)),
      30_000,
    );
  const untilResult = (service: string) =>
    until(
      `the result of deploying ${service} on ${connector}`,
      () => platform.lines(),
      (lines) => lines.some((line) => line.includes(`deployed ${service}`)),
      30_000,
    );
  const { other } = deployment;

  // In the inbox of another web server.
  const first = await ask('api', 1);
  const inbox = await api(other.baseUrl, other.token, `/api/interactions/${first.interactionId}/respond`, {
    action: 'approve',
  });
  expect(inbox.status).toBe(200);
  const inboxShown = await untilShown(first, /Approved by web:admin/);
  expect(inboxShown.every(({ buttons }) => !buttons)).toBe(true);
  await untilResult('api');

  // With `interlock respond` in a terminal.
  const second = await ask('web', 2);
  const cli = await deployment.respondInCli(second.interactionId, 'approve');
  expect(cli.code, cli.output).toBe(0);
  const cliShown = await untilShown(second, /Approved by cli:/);
  expect(cliShown.every(({ buttons }) => !buttons)).toBe(true);
  await untilResult('web');

  // In another chat: the other server's chat view of the same conversation.
  const third = await ask('db', 3);
  const chat = await api(other.baseUrl, other.token, `/api/chats/${platform.chatId}/messages`, { text: 'yes' });
  expect(chat.body.result).toMatchObject({ kind: 'approval', interactionId: third.interactionId });
  const chatShown = await untilShown(third, /Approved by admin/);
  expect(chatShown.every(({ buttons }) => !buttons)).toBe(true);
  await untilResult('db');

  // Nobody answers: its deadline passes, and the worker times it out.
  const fourth = await ask('cache', 4);
  deployment.advance(11 * MINUTE);
  expect(await deployment.worker.interlock.expireOverdue()).toBe(1);
  const expiredShown = await untilShown(fourth, /Nobody answered in time/);
  expect(expiredShown.every(({ buttons }) => !buttons)).toBe(true);

  expect(deployment.runs.map((deployed) => deployed.service)).toEqual(['api', 'web', 'db']);
  expect(await deployment.inboxApprovals(other)).toEqual([]);
}

/** Slack's stand-in: the Web API on loopback, for the SDK pointed at it (`apiUrl`). */
async function slackStandIn(): Promise<Platform> {
  const slack = new FakeSlack();
  await slack.start();
  closers.push(() => slack.stop());
  const secret = 'slack-signing-secret';
  const blocksOf = (body: Record<string, unknown>) => JSON.stringify(body['blocks'] ?? []);
  return {
    toml: [
      '[chat.slack]',
      'transport = "http"',
      'botTokenEnv = "SLACK_BOT_TOKEN"',
      'signingSecretEnv = "SLACK_SIGNING_SECRET"',
      'port = 0',
      `apiUrl = "${slack.apiUrl}"`,
      'approvers = { U1 = "alice" }',
    ].join('\n'),
    environment: { SLACK_BOT_TOKEN: 'xoxb-test', SLACK_SIGNING_SECRET: secret },
    chatId: 'slack-C1',
    say: async (url, text) =>
      (await postSigned(url, slackMessage('U1', text), { secret, timestamp: Math.floor(Date.now() / 1000) })).status,
    approvals: () =>
      slack.calls.filter(isApprovalMessage).map((call) => ({
        ref: String(call.answer['ts']),
        interactionId: String(/"value":"([^"]+)"/.exec(blocksOf(call.body))?.[1]),
      })),
    shownAfter: (ref) =>
      slack
        .of('chat.update')
        .filter((call) => call.body['ts'] === ref)
        .map((call) => ({
          text: `${String(call.body['text'])} ${blocksOf(call.body)}`,
          buttons: blocksOf(call.body).includes('"type":"button"'),
        })),
    lines: () => slack.of('chat.postMessage').map((call) => String(call.body['text'])),
  };
}

describe('a call answered outside the chat is shown as ended on the platform, web and worker apart (F57)', () => {
  it('Slack: the approval message is updated in place (chat.update), its buttons gone (F43, F57)', async () => {
    await answeredElsewhere(await slackStandIn(), 'Slack');
  });

  it('Slack, the servers and the worker on one SQLite file: the same, heard by looking at the store (F57)', async () => {
    await answeredElsewhere(await slackStandIn(), 'Slack', 'SQLite');
  });

  it('Feishu: the approval card is patched in place, its buttons and form gone (F43, F57)', async () => {
    const feishu = new FakeFeishu();
    await feishu.start();
    closers.push(() => feishu.stop());
    const key = 'feishu-encrypt-key';
    const sent = () =>
      feishu.calls.filter((call) => call.method === 'POST' && call.path.startsWith('/open-apis/im/v1/messages'));
    const contentOf = (body: Record<string, unknown>) => String(body['content'] ?? '');
    await answeredElsewhere(
      {
        toml: [
          '[chat.feishu]',
          'transport = "http"',
          'appId = "cli_0123456789abcdef"',
          'appSecretEnv = "FEISHU_APP_SECRET"',
          'encryptKeyEnv = "FEISHU_ENCRYPT_KEY"',
          'port = 0',
          `domain = "${feishu.domain}"`,
          'approvers = { ou_alice = "alice" }',
        ].join('\n'),
        environment: { FEISHU_APP_SECRET: 'app-secret', FEISHU_ENCRYPT_KEY: key },
        chatId: 'feishu-oc_1',
        say: async (url, text) =>
          (
            await postCallback(url, feishuMessage('ou_alice', text, { now: Date.now() }), {
              key,
              timestamp: Math.floor(Date.now() / 1000),
            })
          ).status,
        approvals: () =>
          sent()
            .filter((call) => call.body['msg_type'] === 'interactive')
            .map((call) => ({
              ref: String(call.messageId),
              interactionId: String(/"interactionId":"([^"]+)"/.exec(contentOf(call.body))?.[1]),
            })),
        shownAfter: (ref) =>
          feishu.calls
            .filter((call) => call.method === 'PATCH' && call.path.startsWith(`/open-apis/im/v1/messages/${ref}`))
            .map((call) => ({
              text: contentOf(call.body),
              buttons: contentOf(call.body).includes('"tag":"button"'),
            })),
        lines: () =>
          sent()
            .filter((call) => call.body['msg_type'] === 'text')
            .map((call) => contentOf(call.body)),
      },
      'Feishu',
    );
  });

  it('WhatsApp: a reply to the approval message says how it ended (F43, F57)', async () => {
    const whatsapp = new FakeWhatsApp();
    await whatsapp.start();
    closers.push(() => whatsapp.stop());
    const secret = 'whatsapp-app-secret';
    const alice = '15551230001';
    const interactive = () => whatsapp.sent.filter((message) => message.body['type'] === 'interactive');
    await answeredElsewhere(
      {
        toml: [
          '[chat.whatsapp]',
          'phoneNumberId = "106540352242922"',
          'accessTokenEnv = "WHATSAPP_TOKEN"',
          'appSecretEnv = "WHATSAPP_APP_SECRET"',
          'verifyTokenEnv = "WHATSAPP_VERIFY_TOKEN"',
          'port = 0',
          `apiUrl = "${whatsapp.apiUrl}"`,
          `approvers = { "${alice}" = "alice" }`,
        ].join('\n'),
        environment: { WHATSAPP_TOKEN: 'access-token', WHATSAPP_APP_SECRET: secret, WHATSAPP_VERIFY_TOKEN: 'verify' },
        chatId: `whatsapp-${alice}`,
        say: (url, text) =>
          postWebhook(url, webhookOf(alice, { text }, { timestamp: Math.floor(Date.now() / 1000) }), secret),
        approvals: () =>
          interactive().map((message) => ({
            ref: message.id,
            interactionId: String(/"id":"approve:([^"]+)"/.exec(JSON.stringify(message.body))?.[1]),
          })),
        shownAfter: (ref) =>
          whatsapp.sent
            .filter((message) => (message.body['context'] as { message_id?: string } | undefined)?.message_id === ref)
            .map((message) => ({
              text: JSON.stringify(message.body),
              buttons: message.body['type'] === 'interactive',
            })),
        lines: () =>
          whatsapp.sent
            .filter((message) => message.body['type'] === 'text')
            .map((message) => JSON.stringify(message.body)),
      },
      'WhatsApp',
    );
  });
});
