import { ChatChannel } from '@interlock/chat';
import { deployChatParts } from '@interlock/chat/testing';
import {
  buttonPayload,
  formPayload,
  isApprovalMessage,
  messageEvent,
  type SlackCall,
} from '@interlock/chat-slack/testing';
import { createWorker } from '@interlock/core';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { api, dropDeploymentSchemas, newDeployment, startWebServer, until } from './deployment/deployment-harness.js';
import { slackFor } from './deployment/slack-chat.js';

/*
 * Two processes on one PostgreSQL (issue 25): the team's service runs the chat's agent in a
 * worker and shows its chats on Slack; the built interlock-web serves the inbox. An answer in
 * either place is seen in the other.
 */

const closers: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});
afterAll(() => dropDeploymentSchemas());

const { runs, tool, model, workflow } = deployChatParts();

describe('Slack and the web inbox on one PostgreSQL (F57)', () => {
  it('updates the Slack message when the inbox answers, and a Slack answer takes the call out of the inbox (F43, F57)', async () => {
    const deployment = await newDeployment();
    // The service: a worker runs the chat's agent, and shows its chats on Slack.
    const worker = await createWorker({
      store: deployment.store,
      workflows: [workflow],
      tools: [tool],
      models: { default: model },
    });
    closers.push(() => worker.stop());
    const chat = new ChatChannel({ interlock: worker.interlock, workflow: workflow.id });
    worker.interlock.setHandler(chat.channel, chat.handler);
    closers.push(async () => chat.close());
    const { slack, send } = await slackFor(chat, { U1: 'alice' }, closers);
    // The inbox: the built interlock-web, another process on the same database.
    const web = await startWebServer(deployment);
    closers.push(async () => {
      web.server.child.kill('SIGTERM');
      await web.server.exit;
    });
    const inboxApprovals = async () =>
      (
        (await api(web.baseUrl, web.token, '/api/interactions')).body.interactions as {
          interactionId: string;
          operationType: string;
        }[]
      )
        .filter((interaction) => interaction.operationType === 'TOOL_APPROVAL')
        .map((interaction) => interaction.interactionId);

    // Asked in Slack, answered in the inbox: the Slack message is updated.
    await send(messageEvent('U1', 'deploy api'));
    await slack.until((calls) => calls.filter(isApprovalMessage).length === 1);
    const [first] = await until('the call in the inbox', inboxApprovals, (ids) => ids.length === 1);
    const answered = await api(web.baseUrl, web.token, `/api/interactions/${first}/respond`, { action: 'approve' });
    expect(answered.status).toBe(200);
    await slack.until((calls) => calls.some((call) => call.method === 'chat.update'));
    const update = slack.of('chat.update')[0] as SlackCall;
    expect(update.body['ts']).toBe(slack.calls.find(isApprovalMessage)?.answer['ts']);
    expect(JSON.stringify(update.body['blocks'])).toContain('Approved by web:admin');
    expect(JSON.stringify(update.body['blocks'])).not.toContain('interlock_approve');
    await slack.until((calls) =>
      calls.some((call) => String(call.body['text']).startsWith('Result: [SUCCESS] deployed api')),
    );

    // Asked and answered in Slack: the inbox no longer lists it.
    await send(messageEvent('U1', 'deploy web'));
    await slack.until((calls) => calls.filter(isApprovalMessage).length === 2);
    const [second] = await until('the second call in the inbox', inboxApprovals, (ids) => ids.length === 1);
    await send(formPayload(buttonPayload('U1', 'interlock_approve', second as string)), true);
    await until('the inbox without the call', inboxApprovals, (ids) => ids.length === 0);
    await slack.until((calls) =>
      calls.some((call) => String(call.body['text']).startsWith('Result: [SUCCESS] deployed web')),
    );
    expect(runs.map((run) => run.service)).toEqual(['api', 'web']);
  });
});
