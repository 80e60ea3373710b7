import { afterEach, describe, expect, it } from 'vitest';
import { startSlackConnector, type SlackConnector } from './slack-connector.js';
import {
  buttonPayload,
  editSubmission,
  FakeSlack,
  formPayload,
  messageEvent,
  postSigned,
  type SlackCall,
} from './testing/fake-slack.js';
import { MAX_PLATFORM_BODY } from '@interlock/chat';
import { createDeployChat, HOSTILE_NOTE } from '@interlock/chat/testing';

const SECRET = 'signing-secret-for-tests';
const FORM = 'application/x-www-form-urlencoded';
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

async function setUp() {
  const slack = new FakeSlack();
  await slack.start();
  // One clock for the engine (the approval's 10-minute deadline) and the connector (the signature window).
  let now = 1_800_000_000_000;
  const agent = await createDeployChat({ clock: { now: () => now } });
  const connector: SlackConnector = await startSlackConnector({
    chat: agent.chat,
    botToken: 'xoxb-test',
    transport: { type: 'http', signingSecret: SECRET, port: 0 },
    approvers: { U1: 'alice', U2: 'bob', U3: 'mallory' },
    apiUrl: slack.apiUrl,
    now: () => now,
  });
  closers.push(
    () => slack.stop(),
    agent.close,
    () => connector.stop(),
  );
  const url = connector.url as string;
  const seconds = Math.floor(now / 1000);
  const send = (body: string, options: { timestamp?: number; signature?: string; contentType?: string } = {}) =>
    postSigned(url, body, { secret: SECRET, timestamp: options.timestamp ?? seconds, ...options });
  const press = (user: string, action: string, value: string) =>
    send(formPayload(buttonPayload(user, action, value)), { contentType: FORM });
  /** Sends "deploy api" and resolves with the approval message once Slack has it. */
  const askToDeploy = async () => {
    expect((await send(messageEvent('U1', 'deploy api'))).status).toBe(200);
    await slack.until((calls) => calls.some(isApproval));
    const approval = slack.calls.find(isApproval) as SlackCall;
    const interactionId = actionsOf(approval)[0]?.value as string;
    return { approval, interactionId, ts: String(approval.answer['ts']) };
  };
  return { slack, agent, url, send, press, askToDeploy, seconds, advance: (ms: number) => (now += ms) };
}

function isApproval(call: SlackCall): boolean {
  return call.method === 'chat.postMessage' && actionsOf(call).length > 0;
}

function actionsOf(call: SlackCall): { action_id: string; value: string }[] {
  const blocks = (call.body['blocks'] ?? []) as { type: string; elements?: { action_id: string; value: string }[] }[];
  return blocks.filter((block) => block.type === 'actions').flatMap((block) => block.elements ?? []);
}

/** Every text object of a message's blocks. */
function textObjects(call: SlackCall): { type: string; text: string }[] {
  const found: { type: string; text: string }[] = [];
  const visit = (value: unknown) => {
    if (Array.isArray(value)) value.forEach(visit);
    else if (typeof value === 'object' && value !== null) {
      const record = value as Record<string, unknown>;
      if (typeof record['type'] === 'string' && typeof record['text'] === 'string')
        found.push({ type: record['type'], text: record['text'] });
      Object.values(record).forEach(visit);
    }
  };
  visit(call.body['blocks']);
  return found;
}

describe('Slack connector over HTTP (F57)', () => {
  it("refuses a button from an approver not on the workflow's list, audits it and says so to them alone (F51, F57)", async () => {
    const { slack, agent, press, askToDeploy } = await setUp();
    const { interactionId } = await askToDeploy();

    expect((await press('U3', 'interlock_approve', interactionId)).status).toBe(200);
    await slack.until((calls) => calls.some((call) => call.method === 'chat.postEphemeral'));

    expect(slack.of('chat.postEphemeral')[0]?.body).toMatchObject({
      user: 'U3',
      text: expect.stringContaining('mallory may not answer'),
    });
    expect((await agent.interlock.audit()).filter((entry) => entry.decidedBy === 'attempt')).toMatchObject([
      { responder: 'mallory', rule: 'attempt:refused', reason: expect.stringContaining('not on the approver list') },
    ]);
    expect(agent.runs).toEqual([]);
  });

  it('posts a waiting call with its arguments shown safely, runs it once on Approve, and updates the message (F31, F57)', async () => {
    const { slack, agent, press, askToDeploy } = await setUp();
    const { approval, interactionId } = await askToDeploy();

    expect(actionsOf(approval).map((action) => action.action_id)).toEqual([
      'interlock_approve',
      'interlock_reject',
      'interlock_edit',
    ]);
    // No mention, no hidden link, no direction override: plain text only, the fallback escaped.
    expect(textObjects(approval).every((text) => text.type === 'plain_text' || text.type === 'button')).toBe(true);
    const shown = textObjects(approval)
      .map((text) => text.text)
      .join('\n');
    expect(shown).toContain('<!channel> *now* <https://evil.example|docs> ok⟨U+202E⟩gnp.exe');
    expect(shown).not.toContain('\u202E');
    expect(String(approval.body['text'])).not.toMatch(/<!channel>|<https?:/);
    expect(String(approval.body['mrkdwn'])).toBe('false');

    expect((await press('U1', 'interlock_approve', interactionId)).status).toBe(200);
    await slack.until((calls) => calls.some((call) => call.method === 'chat.update'));
    await slack.until((calls) =>
      calls.some((call) => call.method === 'chat.postMessage' && String(call.body['text']).startsWith('Result:')),
    );

    expect(agent.runs).toEqual([{ service: 'api', note: HOSTILE_NOTE }]);
    const update = slack.of('chat.update')[0] as SlackCall;
    expect(update.body['ts']).toBe(approval.answer['ts']);
    expect(actionsOf(update)).toEqual([]);
    expect(textObjects(update)[0]?.text).toBe('Approved by alice: deploy.');
  });

  it('rejects on "no" in the approval\'s thread: the model is told the reason and nothing runs (F32, F57)', async () => {
    const { slack, agent, send, askToDeploy } = await setUp();
    const { ts } = await askToDeploy();

    expect((await send(messageEvent('U1', 'no', { threadTs: ts }))).status).toBe(200);
    await slack.until((calls) => calls.some((call) => call.method === 'chat.update'));
    await slack.until((calls) => calls.some((call) => String(call.body['text']).startsWith('Result:')));

    expect(agent.runs).toEqual([]);
    const told = agent.model.requests.at(-1)?.messages.at(-1)?.content ?? '';
    expect(told).toContain('alice said no in Slack');
    expect(textObjects(slack.of('chat.update')[0] as SlackCall)[0]?.text).toBe('Rejected by alice: deploy.');
  });

  it.each(['yes', 'YES'])(
    'approves on "%s" in the approval\'s thread: the call runs once, the message is updated, and the agent never sees the reply (F31, F32, F57)',
    async (reply) => {
      const { slack, agent, send, askToDeploy } = await setUp();
      const { ts } = await askToDeploy();

      expect((await send(messageEvent('U1', reply, { threadTs: ts }))).status).toBe(200);
      await slack.until((calls) => calls.some((call) => call.method === 'chat.update'));
      await slack.until((calls) => calls.some((call) => String(call.body['text']).startsWith('Result:')));

      expect(agent.runs).toEqual([{ service: 'api', note: HOSTILE_NOTE }]);
      const update = slack.of('chat.update')[0] as SlackCall;
      expect(update.body['ts']).toBe(ts);
      expect(actionsOf(update)).toEqual([]);
      expect(textObjects(update)[0]?.text).toBe('Approved by alice: deploy.');
      const threadId = (await agent.interlock.threads())[0]?.threadId as string;
      const said = (await agent.interlock.thread(threadId))?.conversation
        .filter((message) => message.role === 'user')
        .map((message) => message.content);
      expect(said).toEqual(['deploy api']);
    },
  );

  it('updates the message when nobody answers in time: its buttons are gone and it says the call did not run (F28, F57)', async () => {
    const { slack, agent, askToDeploy, advance } = await setUp();
    const { ts } = await askToDeploy();

    // The 10-minute deadline passes on the injected clock, and the question is timed out as
    // the engine's deadline timer does it: failed in the store, then the thread goes on.
    const threadId = (await agent.interlock.pending())[0]?.threadId as string;
    advance(11 * 60_000);
    expect(await agent.interlock.expireOverdue()).toBe(1);
    await agent.interlock.resume(threadId);
    await slack.until((calls) => calls.some((call) => call.method === 'chat.update'));

    const update = slack.of('chat.update')[0] as SlackCall;
    expect(update.body['ts']).toBe(ts);
    expect(actionsOf(update)).toEqual([]);
    expect(textObjects(update)[0]?.text).toBe('Nobody answered in time: deploy did not run.');
    // The agent is told, and nothing of the call waits any more.
    await slack.until((calls) => calls.some((call) => String(call.body['text']).startsWith('Result:')));
    expect(agent.runs).toEqual([]);
    expect((await agent.interlock.pending()).filter((request) => request.operationType === 'TOOL_APPROVAL')).toEqual(
      [],
    );
  });

  it('edits through the modal: arguments that do not fit are refused in the form, then the call runs with the edit (F19, F57)', async () => {
    const { slack, agent, send, press, askToDeploy } = await setUp();
    const { interactionId } = await askToDeploy();

    await press('U1', 'interlock_edit', interactionId);
    await slack.until((calls) => calls.some((call) => call.method === 'views.open'));
    const view = slack.of('views.open')[0]?.body['view'] as { blocks: { element?: { initial_value?: string } }[] };
    expect(view.blocks[1]?.element?.initial_value).toContain('"service": "api"');

    const wrong = await send(formPayload(editSubmission('U1', interactionId, '{"service": 7}')), { contentType: FORM });
    expect(JSON.parse(wrong.text)).toMatchObject({ response_action: 'errors' });
    expect(agent.runs).toEqual([]);

    const right = await send(formPayload(editSubmission('U1', interactionId, '{"service": "web", "note": "edited"}')), {
      contentType: FORM,
    });
    expect(right).toEqual({ status: 200, text: '' });
    await slack.until((calls) => calls.some((call) => String(call.body['text']).startsWith('Result:')));
    expect(agent.runs).toEqual([{ service: 'web', note: 'edited' }]);
  });

  it('refuses a forged signature, a timestamp 6 minutes off either way, a replay and an unknown user, and audits each against the waiting call (F51, F57)', async () => {
    const { slack, agent, send, askToDeploy, seconds } = await setUp();
    const { interactionId } = await askToDeploy();
    const body = formPayload(buttonPayload('U1', 'interlock_approve', interactionId));

    const forged = await send(body, { contentType: FORM, signature: `v0=${'0'.repeat(64)}` });
    const stale = await send(body, { contentType: FORM, timestamp: seconds - 360 });
    const future = await send(body, { contentType: FORM, timestamp: seconds + 360 });
    // Someone Slack knows but Interlock does not presses Approve; the same signed request is then sent again.
    const pressByStranger = formPayload(buttonPayload('U9', 'interlock_approve', interactionId));
    const unknown = await send(pressByStranger, { contentType: FORM });
    await slack.until((calls) => calls.some((call) => call.method === 'chat.postEphemeral'));
    const replayed = await send(pressByStranger, { contentType: FORM });

    expect([forged.status, stale.status, future.status, replayed.status]).toEqual([401, 401, 401, 401]);
    expect(JSON.parse(replayed.text)).toEqual({ error: 'replayed' });
    expect(unknown.status).toBe(200);
    expect(slack.of('chat.postEphemeral')).toHaveLength(1);
    expect(slack.of('chat.postEphemeral')[0]?.body).toMatchObject({
      user: 'U9',
      text: expect.stringContaining('not an approver'),
    });
    const attempts = (await agent.interlock.audit()).filter((entry) => entry.decidedBy === 'attempt');
    expect(attempts.map((entry) => [entry.toolCallId, entry.responder, entry.reason])).toEqual([
      ['deploy-1', 'slack:U1 (unverified)', 'Slack request refused: bad signature'],
      ['deploy-1', 'slack:U1 (unverified)', 'Slack request refused: stale'],
      ['deploy-1', 'slack:U1 (unverified)', 'Slack request refused: stale'],
      ['deploy-1', 'slack:U9', expect.stringContaining('not an approver')],
      ['deploy-1', 'slack:U9 (unverified)', 'Slack request refused: replayed'],
    ]);
    expect(agent.runs).toEqual([]);
    expect((await agent.interlock.pending()).map((request) => request.interactionId)).toContain(interactionId);
  });

  it('refuses a body too large to read (413) and one that cannot be read (401), and audits both against the waiting call (F51, F57)', async () => {
    const { agent, url, askToDeploy, seconds } = await setUp();
    const { interactionId } = await askToDeploy();

    // More than MAX_PLATFORM_BODY: not read on, so it cannot be verified, nor say what it names.
    const large = await postSigned(url, 'x'.repeat(MAX_PLATFORM_BODY + 1), { secret: SECRET, timestamp: seconds });
    const unreadable = await postSigned(url, '{"payload": not json', {
      secret: 'not-the-secret',
      timestamp: seconds,
      contentType: FORM,
    });

    expect([large.status, unreadable.status]).toEqual([413, 401]);
    const attempts = (await agent.interlock.audit()).filter((entry) => entry.decidedBy === 'attempt');
    expect(attempts.map((entry) => [entry.toolCallId, entry.responder, entry.reason])).toEqual([
      ['deploy-1', 'slack:unknown (unverified)', 'Slack request refused: too large'],
      ['deploy-1', 'slack:unknown (unverified)', 'Slack request refused: bad signature'],
    ]);
    expect(agent.runs).toEqual([]);
    expect((await agent.interlock.pending()).map((request) => request.interactionId)).toEqual([interactionId]);
  });

  it('passes messages that are not approval replies to the agent, in order, while a call waits (F32)', async () => {
    const { slack, agent, send, press, askToDeploy } = await setUp();
    const { interactionId } = await askToDeploy();
    const threadId = (await agent.interlock.pending())[0]?.threadId as string;

    await send(messageEvent('U1', 'first'));
    await send(messageEvent('U2', 'second'));
    await press('U1', 'interlock_approve', interactionId);
    await slack.until((calls) => calls.some((call) => String(call.body['text']).includes('You said: "second"')));

    const said = (await agent.interlock.thread(threadId))?.conversation
      .filter((message) => message.role === 'user')
      .map((message) => message.content);
    expect(said).toEqual(['deploy api', 'first', 'second']);
    expect(agent.runs).toHaveLength(1);
  });
});
