import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ChatChannel } from '@interlock/chat';
import { deployChatParts } from '@interlock/chat/testing';
import {
  buttonPayload,
  formPayload,
  isApprovalMessage,
  messageEvent,
  type FakeSlack,
  type SlackCall,
} from '@interlock/chat-slack/testing';
import { createInterlock, openStore } from '@interlock/core';
import { afterEach, describe, expect, it } from 'vitest';
import { ApproverDirectory, chatChecks } from '../src/server/auth/approver-directory.js';
import { createToken, hashToken } from '../src/server/auth/approvers.js';
import { createWebServer } from '../src/server/create-web-server.js';
import { api, until } from './deployment/deployment-harness.js';
import { slackFor } from './deployment/slack-chat.js';

/*
 * In a shared channel, the requester of a call is whoever asked for it (F51): separation of
 * duties binds the member whose message led the agent to the call — in the chat (a button,
 * a "yes" in its thread) and in the web inbox — as well as the one who opened the chat.
 */

const closers: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

async function sharedChannel() {
  const dir = await mkdtemp(join(tmpdir(), 'interlock-shared-channel-'));
  closers.push(() => rm(dir, { recursive: true, force: true }));
  const store = await openStore({ type: 'sqlite', path: join(dir, 'interlock.db') });
  const { runs, tool, model, workflow } = deployChatParts();
  const interlock = await createInterlock({
    store: { type: 'custom', store },
    tools: [tool],
    models: { default: model },
  });
  closers.push(() => interlock.close());
  interlock.registerWorkflow(workflow);
  const tokens = { alice: createToken(), bob: createToken(), carol: createToken() };
  // Every member may approve; a HIGH call's requester may not approve it (the approvers file's separationOfDuties).
  const access = ApproverDirectory.of({
    approvers: Object.entries(tokens).map(([name, token]) => ({ name, tokenSha256: hashToken(token) })),
    workflowApprovers: {},
    separationOfDuties: { [workflow.id]: ['HIGH'] },
  });
  const chat = new ChatChannel({ interlock, workflow: workflow.id, ...chatChecks(access) });
  interlock.setHandler(chat.channel, chat.handler);
  closers.push(async () => chat.close());
  const { slack, send } = await slackFor(chat, { U1: 'alice', U2: 'bob', U3: 'carol' }, closers);
  const app = await createWebServer({ interlock, store, approvers: access, chat });
  const baseUrl = await app.listen({ host: '127.0.0.1', port: 0 });
  closers.push(() => app.close());
  return { interlock, slack, runs, send, baseUrl, tokens };
}

const toldTo = (slack: FakeSlack, user: string) =>
  slack
    .of('chat.postEphemeral')
    .filter((call) => call.body['user'] === user)
    .map((call) => String(call.body['text']));

describe('the requester of a call in a shared channel (F51, F57)', () => {
  it('binds whoever asked for the call, not only who opened the chat: her button, her "yes" and her inbox answer are refused', async () => {
    const { interlock, slack, runs, send, baseUrl, tokens } = await sharedChannel();
    // Bob opens the chat; Alice, in the same channel, asks the agent for a HIGH call.
    expect((await send(messageEvent('U2', 'hello'))).status).toBe(200);
    await slack.until((calls) => calls.some((call) => String(call.body['text']).includes('You said')));
    expect((await send(messageEvent('U1', 'deploy api'))).status).toBe(200);
    await slack.until((calls) => calls.some(isApprovalMessage));
    const posted = slack.calls.find(isApprovalMessage) as SlackCall;
    const [request] = await interlock.pending();
    const interactionId = request?.interactionId as string;

    await send(formPayload(buttonPayload('U1', 'interlock_approve', interactionId)), true);
    await slack.until(() => toldTo(slack, 'U1').length === 1);
    await send(messageEvent('U1', 'yes', { threadTs: String(posted.answer['ts']) }));
    await slack.until(() => toldTo(slack, 'U1').length === 2);
    const inbox = await api(baseUrl, tokens.alice, `/api/interactions/${interactionId}/respond`, { action: 'approve' });
    // Bob opened the chat: he is bound too.
    await send(formPayload(buttonPayload('U2', 'interlock_approve', interactionId)), true);
    await slack.until(() => toldTo(slack, 'U2').length === 1);

    expect(toldTo(slack, 'U1')).toEqual([
      expect.stringContaining('alice asked for this call'),
      expect.stringContaining('alice asked for this call'),
    ]);
    expect(inbox).toMatchObject({ status: 403, body: { code: 'SEPARATION_OF_DUTIES' } });
    expect(toldTo(slack, 'U2')).toEqual([expect.stringContaining('bob opened this chat')]);
    expect(runs).toEqual([]);
    expect((await interlock.pending()).map((pending) => pending.interactionId)).toEqual([interactionId]);
    const attempts = (await interlock.audit()).filter((entry) => entry.decidedBy === 'attempt');
    expect(attempts.map((entry) => entry.responder)).toEqual(['alice', 'alice', 'web:alice', 'bob']);

    // Carol, who neither opened the chat nor asked, approves: the call runs once.
    await send(formPayload(buttonPayload('U3', 'interlock_approve', interactionId)), true);
    await until(
      'the call to run',
      () => runs.length,
      (count) => count === 1,
    );
    expect(runs.map((run) => run.service)).toEqual(['api']);
  });
});
