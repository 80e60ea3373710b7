import { afterEach, describe, expect, it } from 'vitest';
import { startWhatsAppConnector } from './whatsapp-connector.js';
import { FakeWhatsApp, postWebhook, webhookOf, type SentMessage } from './testing/fake-whatsapp.js';
import { MAX_PLATFORM_BODY, type ApprovalCard } from '@interlock/chat';
import { createDeployChat, HOSTILE_NOTE, nextEvent } from '@interlock/chat/testing';
import { InterlockError } from '@interlock/core';
import { SERVICE_WINDOW_MS, WhatsAppPlatform } from './whatsapp-platform.js';

const SECRET = 'app-secret-for-tests';
const ALICE = '15551230001';
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

async function setUp(options: { template?: boolean } = {}) {
  const whatsapp = new FakeWhatsApp();
  await whatsapp.start();
  // One clock for the engine (the approval's 10-minute deadline) and the connector (the 5-minute window, the 24-hour one).
  let now = 1_800_000_000_000;
  const agent = await createDeployChat({ clock: { now: () => now } });
  const warnings: string[] = [];
  let warned: (() => void) | undefined;
  /** Resolves once the connector has warned of something it could not show. */
  const untilWarned = () =>
    warnings.length > 0 ? Promise.resolve() : new Promise<void>((resolve) => (warned = resolve));
  const connector = await startWhatsAppConnector({
    chat: agent.chat,
    phoneNumberId: 'PN1',
    accessToken: 'access-token',
    appSecret: SECRET,
    verifyToken: 'verify-me',
    approvers: { [ALICE]: 'alice' },
    apiUrl: whatsapp.apiUrl,
    port: 0,
    now: () => now,
    warn: (message) => {
      warnings.push(message);
      warned?.();
    },
    ...(options.template === true ? { approvalTemplate: { name: 'approval_request', language: 'en' } } : {}),
  });
  closers.push(
    () => whatsapp.stop(),
    agent.close,
    () => connector.stop(),
  );
  const seconds = () => Math.floor(now / 1000);
  const say = (
    from: string,
    content: { text: string } | { button: string },
    extra: { id?: string; context?: string } = {},
  ) => postWebhook(connector.url, webhookOf(from, content, { timestamp: seconds(), ...extra }), SECRET);
  return {
    whatsapp,
    agent,
    connector,
    say,
    seconds,
    advance: (ms: number) => (now += ms),
    now: () => now,
    warnings,
    untilWarned,
  };
}

const interactive = (sent: readonly SentMessage[]) => sent.filter((message) => message.body['type'] === 'interactive');
/** A text message's body ('' for other kinds). */
const textOf = (message: SentMessage) => String((message.body['text'] as { body?: unknown } | undefined)?.body ?? '');
/** Whether `message` was sent as a reply to `approval`. */
const repliesTo = (message: SentMessage, approval: SentMessage) =>
  (message.body['context'] as { message_id?: string } | undefined)?.message_id === approval.id;

describe('WhatsApp connector (F57)', () => {
  it('answers the verify-token handshake only to the one who knows the token (F57)', async () => {
    const { connector } = await setUp();
    const ask = (token: string) =>
      fetch(`${connector.url}?hub.mode=subscribe&hub.verify_token=${token}&hub.challenge=12345`).then(
        async (response) => [response.status, await response.text()],
      );
    expect(await ask('verify-me')).toEqual([200, '12345']);
    expect((await ask('guess'))[0]).toBe(403);
  });

  it('sends a waiting call as reply buttons, runs it once on Approve, says how it ended, and "no" rejects the next with the reason (F31, F57)', async () => {
    const { whatsapp, agent, say } = await setUp();
    expect(await say(ALICE, { text: 'deploy api' })).toBe(200);
    await whatsapp.until((sent) => interactive(sent).length === 1);
    const approval = interactive(whatsapp.sent)[0] as SentMessage;
    const body = approval.body['interactive'] as {
      body: { text: string };
      action: { buttons: { reply: { id: string } }[] };
    };
    expect(body.body.text).toContain('ok⟨U+202E⟩gnp.exe');
    expect(body.body.text).not.toContain('\u202E');
    expect(approval.token).toBe('access-token');
    const approve = body.action.buttons[0]?.reply.id as string;

    await say(ALICE, { button: approve });
    await whatsapp.until((sent) => sent.some((message) => JSON.stringify(message.body).includes('Result:')));
    expect(agent.runs).toHaveLength(1);
    const ended = whatsapp.sent.find(
      (message) => (message.body['context'] as { message_id?: string } | undefined)?.message_id === approval.id,
    );
    expect(JSON.stringify(ended?.body)).toContain('Approved by alice');

    await say(ALICE, { text: 'deploy web' });
    await whatsapp.until((sent) => interactive(sent).length === 2);
    await say(ALICE, { text: 'no' });
    await whatsapp.until(
      (sent) => sent.filter((message) => JSON.stringify(message.body).includes('Result:')).length === 2,
    );
    expect(agent.runs).toHaveLength(1);
    expect(agent.model.requests.at(-1)?.messages.at(-1)?.content).toContain('alice said no in WhatsApp');
  });

  it('approves on "yes" as a reply to the approval message: the call runs once, a reply says so, and the agent never sees the yes (F31, F32, F57)', async () => {
    const { whatsapp, agent, say } = await setUp();
    await say(ALICE, { text: 'deploy api' });
    await whatsapp.until((sent) => interactive(sent).length === 1);
    const approval = interactive(whatsapp.sent)[0] as SentMessage;

    expect(await say(ALICE, { text: 'yes' }, { context: approval.id })).toBe(200);
    await whatsapp.until((sent) => sent.some((message) => repliesTo(message, approval)));
    await whatsapp.until((sent) => sent.some((message) => textOf(message).startsWith('Result:')));

    expect(agent.runs).toEqual([{ service: 'api', note: HOSTILE_NOTE }]);
    const ended = whatsapp.sent.filter((message) => repliesTo(message, approval));
    expect(ended.map(textOf)).toEqual(['Approved by alice: deploy. The buttons above no longer decide anything.']);
    const threadId = (await agent.interlock.threads())[0]?.threadId as string;
    const said = (await agent.interlock.thread(threadId))?.conversation
      .filter((message) => message.role === 'user')
      .map((message) => message.content);
    expect(said).toEqual(['deploy api']);
  });

  it('says how the approval ended in a reply to it when nobody answers in time (WhatsApp cannot edit a message) (F28, F57)', async () => {
    const { whatsapp, agent, say, advance } = await setUp();
    await say(ALICE, { text: 'deploy api' });
    await whatsapp.until((sent) => interactive(sent).length === 1);
    const approval = interactive(whatsapp.sent)[0] as SentMessage;

    // The 10-minute deadline passes on the injected clock, and the question is timed out as
    // the engine's deadline timer does it: failed in the store, then the thread goes on.
    const threadId = (await agent.interlock.pending())[0]?.threadId as string;
    advance(11 * 60_000);
    expect(await agent.interlock.expireOverdue()).toBe(1);
    await agent.interlock.resume(threadId);
    await whatsapp.until((sent) => sent.some((message) => repliesTo(message, approval)));

    const ended = whatsapp.sent.filter((message) => repliesTo(message, approval));
    expect(ended.map((message) => [message.body['to'], textOf(message)])).toEqual([
      [ALICE, 'Nobody answered in time: deploy did not run. The buttons above no longer decide anything.'],
    ]);
    await whatsapp.until((sent) => sent.some((message) => textOf(message).startsWith('Result:')));
    expect(agent.runs).toEqual([]);
    expect((await agent.interlock.pending()).filter((request) => request.operationType === 'TOOL_APPROVAL')).toEqual(
      [],
    );
  });

  it('refuses a forged signature, a replayed or stale message and an unknown number, and audits each (F51, F57)', async () => {
    const { whatsapp, agent, connector, say, seconds } = await setUp();
    await say(ALICE, { text: 'deploy api' });
    await whatsapp.until((sent) => interactive(sent).length === 1);
    const interactionId = (await agent.interlock.pending()).find((request) => request.operationType === 'TOOL_APPROVAL')
      ?.interactionId as string;
    const approve = `approve:${interactionId}`;

    const forged = await postWebhook(
      connector.url,
      webhookOf(ALICE, { button: approve }, { timestamp: seconds() }),
      SECRET,
      `sha256=${'0'.repeat(64)}`,
    );
    expect(await say(ALICE, { button: approve })).toBe(200); // the one valid press: it approves
    await postWebhook(
      connector.url,
      webhookOf(ALICE, { button: approve }, { timestamp: seconds() - 600, id: 'wamid.old' }),
      SECRET,
    );
    await say('15559999999', { button: approve });
    await whatsapp.until((sent) => sent.some((message) => message.body['to'] === '15559999999'));

    expect(forged).toBe(401);
    // The one valid press approved it; the same message again is a replay.
    await whatsapp.until((sent) => sent.some((message) => JSON.stringify(message.body).includes('Result:')));
    const again = webhookOf(ALICE, { button: approve }, { timestamp: seconds(), id: 'wamid.again' });
    expect([await postWebhook(connector.url, again, SECRET), await postWebhook(connector.url, again, SECRET)]).toEqual([
      200, 200,
    ]);
    await whatsapp.until((sent) =>
      sent.some((message) => message.body['to'] === ALICE && textOf(message).includes('already answered')),
    );
    // Alice's messages are taken in order: once her next one is answered, the replay before it was dealt with.
    await say(ALICE, { text: 'hello' });
    await whatsapp.until((sent) => sent.some((message) => textOf(message) === 'You said: "hello"'));

    const attempts = (await agent.interlock.audit())
      .filter((entry) => entry.decidedBy === 'attempt')
      .map((entry) => `${entry.responder ?? ''} | ${entry.reason ?? ''}`)
      .sort();
    expect(attempts).toEqual([
      // The first of the two same messages was taken: a press on an approval already answered.
      expect.stringMatching(/^alice \| approve .* was already answered\.$/),
      `whatsapp:${ALICE} (unverified) | WhatsApp message refused: replayed`,
      `whatsapp:${ALICE} (unverified) | WhatsApp message refused: stale`,
      `whatsapp:${ALICE} (unverified) | WhatsApp webhook refused: bad signature`,
      expect.stringMatching(/^whatsapp:15559999999 \| .*not an approver/),
    ]);
    expect(agent.runs).toHaveLength(1);
  });

  it('refuses a webhook too large to read (413) and one that cannot be read (401), and audits both against the waiting call (F51, F57)', async () => {
    const { whatsapp, agent, connector, say } = await setUp();
    await say(ALICE, { text: 'deploy api' });
    await whatsapp.until((sent) => interactive(sent).length === 1);

    const large = await postWebhook(connector.url, 'x'.repeat(MAX_PLATFORM_BODY + 1), SECRET);
    const unreadable = await postWebhook(connector.url, '{"entry": not json', 'not-the-secret');

    expect([large, unreadable]).toEqual([413, 401]);
    const attempts = (await agent.interlock.audit()).filter((entry) => entry.decidedBy === 'attempt');
    expect(attempts.map((entry) => [entry.toolCallId, entry.responder, entry.reason])).toEqual([
      ['deploy-1', 'whatsapp:unknown (unverified)', 'WhatsApp webhook refused: too large'],
      ['deploy-1', 'whatsapp:unknown (unverified)', 'WhatsApp webhook refused: bad signature'],
    ]);
    expect(agent.runs).toEqual([]);
  });

  it('outside the 24-hour window sends the approval as the configured template, with the tool and its arguments (F57)', async () => {
    const { whatsapp, agent, say, advance, warnings } = await setUp({ template: true });
    await say(ALICE, { text: 'hello' });
    await whatsapp.until((sent) => sent.some((message) => JSON.stringify(message.body).includes('You said')));
    advance(25 * 60 * 60_000);
    // Alice last wrote 25 hours ago (a message of hers sent now would be stale, so it comes another way).
    const threadId = (await agent.interlock.threads())[0]?.threadId as string;
    await agent.chat.receive(threadId, 'deploy api', 'alice');
    await whatsapp.until((sent) => sent.some((message) => message.body['type'] === 'template'));

    const template = whatsapp.sent.find((message) => message.body['type'] === 'template');
    expect(template?.body['to']).toBe(ALICE);
    expect(template?.body['template']).toMatchObject({
      name: 'approval_request',
      language: { code: 'en' },
      components: [
        {
          type: 'body',
          parameters: [
            { type: 'text', text: 'deploy' },
            { type: 'text', text: expect.stringContaining('"service": "api"') },
          ],
        },
      ],
    });
    expect(interactive(whatsapp.sent)).toEqual([]);
    expect(warnings).toEqual([]);
  });

  it('outside the 24-hour window with no template, refuses to send the approval (CHAT_PLATFORM_WINDOW_CLOSED); it waits in the inbox and runs once answered there (F57)', async () => {
    const { whatsapp, agent, say, advance, warnings, untilWarned } = await setUp();
    await say(ALICE, { text: 'hello' });
    await whatsapp.until((sent) => sent.some((message) => JSON.stringify(message.body).includes('You said')));
    advance(25 * 60 * 60_000);
    const threadId = (await agent.interlock.threads())[0]?.threadId as string;
    await agent.chat.receive(threadId, 'deploy api', 'alice');
    await untilWarned();

    expect(warnings[0]).toContain('CHAT_PLATFORM_WINDOW_CLOSED');
    expect(warnings[0]).toContain(`${ALICE} last wrote more than 24 hours ago`);
    const asked = whatsapp.sent.filter((message) => ['interactive', 'template'].includes(String(message.body['type'])));
    expect(asked).toEqual([]);
    const waiting = (await agent.interlock.pending()).filter((request) => request.operationType === 'TOOL_APPROVAL');
    expect(waiting.map((request) => request.toolApproval?.toolName)).toEqual(['deploy']);

    const ran = nextEvent(agent.interlock, (event) => event.type === 'TOOL_CALL_COMPLETED');
    await agent.interlock.respond(waiting[0]?.interactionId as string, { approved: true }, { responder: 'alice' });
    await ran;
    expect(agent.runs).toEqual([{ service: 'api', note: HOSTILE_NOTE }]);
  });
});

describe('WhatsAppPlatform and the 24-hour window (F57)', () => {
  const card: ApprovalCard = {
    interactionId: 'interaction-1',
    entryId: 'entry-1',
    toolName: 'deploy',
    stage: 'execution',
    riskLevel: 'HIGH',
    arguments: { service: 'api' },
    argumentsText: '{\n  "service": "api"\n}',
    status: 'pending',
    answeredBy: undefined,
    summary: 'The agent wants to run deploy (HIGH risk).',
    actions: ['approve', 'reject', 'edit'],
  };

  it('throws CHAT_PLATFORM_WINDOW_CLOSED, sending nothing, for a person who last wrote more than 24 hours ago or never (F57)', async () => {
    const whatsapp = new FakeWhatsApp();
    await whatsapp.start();
    closers.push(() => whatsapp.stop());
    const now = 1_800_000_000_000;
    const lastWrote: Record<string, number> = { [ALICE]: now - SERVICE_WINDOW_MS - 1, '15551230002': now - 60_000 };
    const platform = new WhatsAppPlatform({
      apiUrl: whatsapp.apiUrl,
      phoneNumberId: 'PN1',
      accessToken: 'access-token',
      lastInbound: (user) => lastWrote[user],
      now: () => now,
    });

    const late = await platform.postApproval(ALICE, card).catch((error: unknown) => error);
    const never = await platform.postApproval('15559999999', card).catch((error: unknown) => error);
    expect(InterlockError.is(late) && late.code).toBe('CHAT_PLATFORM_WINDOW_CLOSED');
    expect(late).toMatchObject({ details: { platform: 'whatsapp', interactionId: 'interaction-1' } });
    expect(InterlockError.is(never) && never.code).toBe('CHAT_PLATFORM_WINDOW_CLOSED');
    expect(whatsapp.sent).toEqual([]);

    // Within the window the same card goes out as reply buttons.
    expect(await platform.postApproval('15551230002', card)).toMatch(/^wamid\./);
    expect(interactive(whatsapp.sent)).toHaveLength(1);
  });
});
