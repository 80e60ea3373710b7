import { afterEach, describe, expect, it } from 'vitest';
import { startSlackConnector } from './slack-connector.js';
import { buttonPayload, FakeSlack, isApprovalMessage, messageEvent, type SlackCall } from './testing/fake-slack.js';
import { createDeployChat } from '@interlock/chat/testing';

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

function approvalOf(calls: readonly SlackCall[]): SlackCall | undefined {
  return calls.find(isApprovalMessage);
}

describe('Slack connector in Socket Mode (F57)', () => {
  it('needs no public URL: a message and a button arrive over the WebSocket, are acknowledged, and the call runs once (F31, F57)', async () => {
    const slack = new FakeSlack();
    await slack.start();
    const agent = await createDeployChat();
    const connector = await startSlackConnector({
      chat: agent.chat,
      botToken: 'xoxb-test',
      transport: { type: 'socket', appToken: 'xapp-test' },
      approvers: { U1: 'alice' },
      apiUrl: slack.apiUrl,
    });
    closers.push(
      () => slack.stop(),
      agent.close,
      () => connector.stop(),
    );
    await slack.whenConnected();
    expect(connector.url).toBeUndefined();
    expect(slack.of('apps.connections.open')[0]?.token).toBe('xapp-test');

    const event = JSON.parse(messageEvent('U1', 'deploy api')) as Record<string, unknown>;
    await slack.sendEnvelope('events_api', event);
    await slack.until((calls) => approvalOf(calls) !== undefined);
    const interactionId = (await agent.interlock.pending()).find((request) => request.operationType === 'TOOL_APPROVAL')
      ?.interactionId as string;
    await slack.sendEnvelope('interactive', buttonPayload('U1', 'interlock_approve', interactionId));
    await slack.until((calls) => calls.some((call) => call.method === 'chat.update'));
    await slack.until((calls) => calls.some((call) => String(call.body['text']).startsWith('Result:')));

    expect(agent.runs).toHaveLength(1);
    expect(slack.of('chat.update')[0]?.body['ts']).toBe(approvalOf(slack.calls)?.answer['ts']);
  });
});
