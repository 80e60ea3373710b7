import { afterEach, describe, expect, it } from 'vitest';
import { startFeishuConnector } from './feishu-connector.js';
import { cardAction, FakeFeishu, messageEvent, postCallback, type FeishuCall } from './__fixtures__/fake-feishu.js';
import { MAX_PLATFORM_BODY } from '@interlock/chat';
import { createDeployChat, HOSTILE_NOTE } from '@interlock/chat/testing';

const KEY = 'encrypt-key-for-tests';
const APP = 'cli_0123456789abcdef';
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

const cards = (calls: readonly FeishuCall[]) =>
  calls.filter((call) => call.method === 'POST' && call.body['msg_type'] === 'interactive');
const patches = (calls: readonly FeishuCall[]) => calls.filter((call) => call.method === 'PATCH');
const texts = (calls: readonly FeishuCall[]) =>
  calls
    .filter((call) => call.body['msg_type'] === 'text')
    .map((call) => String(JSON.parse(String(call.body['content'])).text));

/** Every `tag` of a card, and every text it shows. */
function cardParts(call: FeishuCall | undefined): { tags: string[]; text: string } {
  const tags: string[] = [];
  const shown: string[] = [];
  const visit = (value: unknown) => {
    if (Array.isArray(value)) value.forEach(visit);
    else if (typeof value === 'object' && value !== null) {
      const record = value as Record<string, unknown>;
      if (typeof record['tag'] === 'string') tags.push(record['tag']);
      if (typeof record['content'] === 'string') shown.push(record['content']);
      Object.values(record).forEach(visit);
    }
  };
  visit(JSON.parse(String(call?.body['content'] ?? '{}')));
  return { tags, text: shown.join('\n') };
}

async function setUp(options: { verificationToken?: string } = {}) {
  const feishu = new FakeFeishu();
  await feishu.start();
  // One clock for the engine (the approval's 10-minute deadline) and the connector (the 5-minute window).
  let now = 1_800_000_000_000;
  const agent = await createDeployChat({ clock: { now: () => now } });
  const connector = await startFeishuConnector({
    chat: agent.chat,
    appId: APP,
    appSecret: 'app-secret',
    transport: { type: 'http', encryptKey: KEY, port: 0 },
    approvers: { ou_alice: 'alice' },
    domain: feishu.domain,
    now: () => now,
    ...options,
  });
  closers.push(
    () => feishu.stop(),
    agent.close,
    () => connector.stop(),
  );
  const seconds = Math.floor(now / 1000);
  const send = (body: unknown, options: { timestamp?: number; signature?: string; nonce?: string } = {}) =>
    postCallback(connector.url as string, body, { key: KEY, timestamp: seconds, ...options });
  const token = options.verificationToken === undefined ? {} : { token: options.verificationToken };
  const askToDeploy = async () => {
    expect((await send(messageEvent('ou_alice', 'deploy api', { now, ...token }))).status).toBe(200);
    await feishu.until((calls) => cards(calls).length === 1);
    const interactionId = await approvalWaiting(agent);
    return { card: cards(feishu.calls)[0] as FeishuCall, interactionId };
  };
  return {
    feishu,
    agent,
    url: connector.url as string,
    now,
    seconds,
    send,
    askToDeploy,
    advance: (ms: number) => (now += ms),
  };
}

describe('Feishu / Lark connector over callbacks (F57)', () => {
  it('refuses to start without a verification key, where the SDK would check nothing (F57)', async () => {
    const agent = await createDeployChat();
    closers.push(agent.close);
    await expect(
      startFeishuConnector({
        chat: agent.chat,
        appId: APP,
        appSecret: 's',
        transport: { type: 'http', encryptKey: '' },
        approvers: {},
      }),
    ).rejects.toMatchObject({ code: 'CHAT_PLATFORM_SECRET_MISSING' });
  });

  it('sends a card with the arguments as plain text, runs the call once on Approve, and updates the card (F31, F57)', async () => {
    const { feishu, agent, now, send, askToDeploy } = await setUp();
    const { card, interactionId } = await askToDeploy();
    const parts = cardParts(card);
    expect(parts.tags).not.toContain('lark_md');
    expect(parts.tags).not.toContain('markdown');
    expect(parts.text).toContain('<!channel> *now* <https://evil.example|docs> ok⟨U+202E⟩gnp.exe');
    expect(parts.text).not.toContain('\u202E');
    expect(card.token).toBe('t-test');

    const pressed = await send(cardAction('ou_alice', { action: 'approve', interactionId }, { now }));
    expect(pressed.status).toBe(200);
    await feishu.until((calls) => patches(calls).length === 1);
    await feishu.until((calls) => texts(calls).some((text) => text.startsWith('Result:')));

    expect(agent.runs).toEqual([{ service: 'api', note: HOSTILE_NOTE }]);
    expect(patches(feishu.calls)[0]?.path).toContain(card.messageId as string);
    const updated = cardParts(patches(feishu.calls)[0]);
    expect(updated.tags).not.toContain('button');
    expect(updated.text).toContain('Approved by alice');
  });

  it('approves on "yes" as a reply to the card: the call runs once, the card is updated, and the agent never sees the yes (F31, F32, F57)', async () => {
    const { feishu, agent, now, send, askToDeploy } = await setUp();
    const { card } = await askToDeploy();

    expect((await send(messageEvent('ou_alice', 'yes', { now, parentId: card.messageId as string }))).status).toBe(200);
    await feishu.until((calls) => patches(calls).length === 1);
    await feishu.until((calls) => texts(calls).some((text) => text.startsWith('Result:')));

    expect(agent.runs).toEqual([{ service: 'api', note: HOSTILE_NOTE }]);
    expect(patches(feishu.calls)[0]?.path).toContain(card.messageId as string);
    const updated = cardParts(patches(feishu.calls)[0]);
    expect(updated.tags).not.toContain('button');
    expect(updated.text).toContain('Approved by alice: deploy.');
    const threadId = (await agent.interlock.threads())[0]?.threadId as string;
    const said = (await agent.interlock.thread(threadId))?.conversation
      .filter((message) => message.role === 'user')
      .map((message) => message.content);
    expect(said).toEqual(['deploy api']);
  });

  it('updates the card when nobody answers in time: its buttons and form are gone and it says the call did not run (F28, F57)', async () => {
    const { feishu, agent, askToDeploy, advance } = await setUp();
    const { card } = await askToDeploy();

    // The 10-minute deadline passes on the injected clock, and the question is timed out as
    // the engine's deadline timer does it: failed in the store, then the thread goes on.
    const threadId = (await agent.interlock.pending())[0]?.threadId as string;
    advance(11 * 60_000);
    expect(await agent.interlock.expireOverdue()).toBe(1);
    await agent.interlock.resume(threadId);
    await feishu.until((calls) => patches(calls).length === 1);

    expect(patches(feishu.calls)[0]?.path).toContain(card.messageId as string);
    const updated = cardParts(patches(feishu.calls)[0]);
    expect(updated.tags).not.toContain('button');
    expect(updated.tags).not.toContain('form');
    expect(updated.text).toContain('Nobody answered in time: deploy did not run.');
    await feishu.until((calls) => texts(calls).some((text) => text.startsWith('Result:')));
    expect(agent.runs).toEqual([]);
    expect((await agent.interlock.pending()).filter((request) => request.operationType === 'TOOL_APPROVAL')).toEqual(
      [],
    );
  });

  it('edits through the card\'s form, refusing arguments that do not fit; "no" to the next card rejects it with the reason (F19, F57)', async () => {
    const { feishu, agent, now, send, askToDeploy } = await setUp();
    const { interactionId } = await askToDeploy();

    const wrong = await send(
      cardAction('ou_alice', { action: 'edit', interactionId }, { now, form: { arguments: '{"service": 1}' } }),
    );
    expect(wrong.body).toMatchObject({ toast: { type: 'error' } });
    const right = await send(
      cardAction(
        'ou_alice',
        { action: 'edit', interactionId },
        { now, form: { arguments: '{"service": "web", "note": "edited"}' } },
      ),
    );
    expect(right.body).toMatchObject({ toast: { type: 'success' } });
    await feishu.until((calls) => texts(calls).some((text) => text.startsWith('Result:')));
    expect(agent.runs).toEqual([{ service: 'web', note: 'edited' }]);

    await send(messageEvent('ou_alice', 'deploy db', { now }));
    await feishu.until((calls) => cards(calls).length === 2);
    await send(messageEvent('ou_alice', 'no', { now, parentId: cards(feishu.calls)[1]?.messageId as string }));
    await feishu.until((calls) => texts(calls).filter((text) => text.startsWith('Result:')).length === 2);
    expect(agent.runs).toHaveLength(1);
    expect(agent.model.requests.at(-1)?.messages.at(-1)?.content).toContain('alice said no in Feishu');
  });

  it('refuses a forged signature, a stale or future timestamp, a replay and an unknown user, and audits each (F51, F57)', async () => {
    const { feishu, agent, now, seconds, send, askToDeploy } = await setUp();
    const { interactionId } = await askToDeploy();
    const press = (user: string, eventId?: string) =>
      cardAction(user, { action: 'approve', interactionId }, { now, ...(eventId === undefined ? {} : { eventId }) });

    const forged = await send(press('ou_alice'), { signature: '0'.repeat(64) });
    const stale = await send(press('ou_alice'), { timestamp: seconds - 360 });
    const future = await send(press('ou_alice'), { timestamp: seconds + 360 });
    const first = await send(press('ou_mallory', 'ev-same'), { nonce: 'same' });
    // Mallory is told she may not answer (and that is audited) before the same callback comes again.
    await feishu.until((calls) => calls.some((call) => call.path.includes('receive_id_type=open_id')));
    const replayed = await send(press('ou_mallory', 'ev-same'), { nonce: 'same' });

    expect([forged.status, stale.status, future.status, replayed.status]).toEqual([401, 401, 401, 401]);
    expect(first.status).toBe(200);
    const reasons = (await agent.interlock.audit())
      .filter((entry) => entry.decidedBy === 'attempt')
      .map((entry) => entry.reason);
    expect(reasons).toEqual([
      expect.stringContaining('bad signature'),
      expect.stringContaining('stale'),
      expect.stringContaining('stale'),
      expect.stringContaining('not an approver'),
      expect.stringContaining('replayed'),
    ]);
    expect(agent.runs).toEqual([]);
  });
});

describe('Feishu / Lark verification token and unreadable callbacks (F57)', () => {
  it('checks the verification token when it is configured: a callback without it is refused (401) and audited, one with it is taken (F51, F57)', async () => {
    const { feishu, agent, now, send, askToDeploy } = await setUp({ verificationToken: 'the-app-token' });
    const { interactionId } = await askToDeploy();

    const press = (token: string) => cardAction('ou_alice', { action: 'approve', interactionId }, { now, token });
    const wrong = await send(press('a-guessed-token'));
    const right = await send(press('the-app-token'));

    expect([wrong.status, right.status]).toEqual([401, 200]);
    expect(wrong.body).toEqual({ error: 'bad_token' });
    await feishu.until((calls) => patches(calls).length === 1);
    await feishu.until((calls) => texts(calls).some((text) => text.startsWith('Result:')));
    expect(agent.runs).toHaveLength(1);
    const attempts = (await agent.interlock.audit()).filter((entry) => entry.decidedBy === 'attempt');
    expect(attempts.map((entry) => [entry.toolCallId, entry.responder, entry.reason])).toEqual([
      ['deploy-1', 'feishu:ou_alice (unverified)', 'Feishu callback refused: bad token'],
    ]);
  });

  it('refuses a body too large to read (413) and one that cannot be read (401), and audits both against the waiting call (F51, F57)', async () => {
    const { agent, url, seconds, askToDeploy } = await setUp();
    const { interactionId } = await askToDeploy();

    const large = await postCallback(url, 'x'.repeat(MAX_PLATFORM_BODY + 1), { key: KEY, timestamp: seconds });
    const unreadable = await postCallback(url, '{"encrypt": not json', { key: 'not-the-key', timestamp: seconds });

    expect([large.status, unreadable.status]).toEqual([413, 401]);
    const attempts = (await agent.interlock.audit()).filter((entry) => entry.decidedBy === 'attempt');
    expect(attempts.map((entry) => [entry.toolCallId, entry.responder, entry.reason])).toEqual([
      ['deploy-1', 'feishu:unknown (unverified)', 'Feishu callback refused: too large'],
      ['deploy-1', 'feishu:unknown (unverified)', 'Feishu callback refused: bad signature'],
    ]);
    expect(agent.runs).toEqual([]);
    expect((await agent.interlock.pending()).map((request) => request.interactionId)).toEqual([interactionId]);
  });
});

/**
 * The connector over the long connection to a local Feishu (`extra`: more of its options), on
 * a chat whose agent deploys; all stopped after the test. `now` is the connector's clock.
 */
async function overLongConnection(extra: { verificationToken?: string } = {}) {
  const feishu = new FakeFeishu();
  await feishu.start();
  const agent = await createDeployChat();
  const now = Date.now();
  const connector = await startFeishuConnector({
    chat: agent.chat,
    appId: APP,
    appSecret: 'app-secret',
    transport: { type: 'long-connection' },
    approvers: { ou_alice: 'alice' },
    domain: feishu.domain,
    ...extra,
    now: () => now,
  });
  closers.push(
    () => feishu.stop(),
    agent.close,
    () => connector.stop(),
  );
  await feishu.whenConnected();
  return { feishu, agent, now };
}

/** The id of the tool approval the chat's agent waits on. */
async function approvalWaiting(agent: Awaited<ReturnType<typeof createDeployChat>>): Promise<string> {
  return (await agent.interlock.pending()).find((request) => request.operationType === 'TOOL_APPROVAL')
    ?.interactionId as string;
}

describe('Feishu / Lark connector over the long connection (F57)', () => {
  it('takes a message and a card action over the WebSocket, answers the action on its frame, and refuses a repeated event (F57)', async () => {
    const { feishu, agent, now } = await overLongConnection();

    await feishu.sendEvent(messageEvent('ou_alice', 'deploy api', { now }));
    await feishu.until((calls) => cards(calls).length === 1);
    const interactionId = await approvalWaiting(agent);
    const action = cardAction('ou_alice', { action: 'approve', interactionId }, { now, eventId: 'ev-ws-1' });
    const answer = await feishu.sendEvent(action);
    const again = await feishu.sendEvent(action);
    await feishu.until((calls) => patches(calls).length === 1);

    expect(answer).toMatchObject({ toast: { type: 'info' } });
    expect(again).toMatchObject({ toast: { type: 'error', content: expect.stringContaining('replayed') } });
    await feishu.until((calls) => texts(calls).some((text) => text.startsWith('Result:')));
    expect(agent.runs).toHaveLength(1);
  });

  it('refuses an event without the configured verification token there too, and audits it (F51, F57)', async () => {
    const { feishu, agent, now } = await overLongConnection({ verificationToken: 'the-app-token' });

    await feishu.sendEvent(messageEvent('ou_alice', 'deploy api', { now, token: 'the-app-token' }));
    await feishu.until((calls) => cards(calls).length === 1);
    const interactionId = await approvalWaiting(agent);
    const forged = await feishu.sendEvent(
      cardAction('ou_alice', { action: 'approve', interactionId }, { now, token: 'a-guessed-token' }),
    );

    expect(forged).toMatchObject({ toast: { type: 'error', content: expect.stringContaining('bad token') } });
    const attempts = (await agent.interlock.audit()).filter((entry) => entry.decidedBy === 'attempt');
    expect(attempts.map((entry) => entry.reason)).toEqual(['Feishu callback refused: bad token']);
    expect(agent.runs).toEqual([]);
    expect((await agent.interlock.pending()).map((request) => request.interactionId)).toContain(interactionId);
  });
});
