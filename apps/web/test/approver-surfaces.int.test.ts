import { writeFile } from 'node:fs/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { RELEASE_AGENT_WORKFLOW } from '../src/demo/web-demo.js';
import { eventually, request, signIn, startHarness, type WebHarness } from './web-harness.js';

/** Issue 14: approver surfaces a security team signs off, over real HTTP against a running server. */

const respond = (interactionId: string) => `/api/interactions/${interactionId}/respond`;

let harnesses: WebHarness[] = [];
afterEach(async () => {
  for (const harness of harnesses) await harness.close();
  harnesses = [];
});

async function server(options: Parameters<typeof startHarness>[0] = {}): Promise<WebHarness> {
  const harness = await startHarness({
    approvers: ['alice', 'bob', 'carol'],
    workflowApprovers: { [RELEASE_AGENT_WORKFLOW]: ['alice', 'bob'], 'chat-agent': ['alice'] },
    ...options,
  });
  harnesses.push(harness);
  return harness;
}

/** Starts the release agent as `who` over the API and waits for its two approvals: bash (HIGH) first, then write_file (MEDIUM). */
async function startAs(harness: WebHarness, who: string) {
  const started = await request(harness, '/api/threads', {
    token: harness.tokens[who]!,
    body: { workflowId: RELEASE_AGENT_WORKFLOW },
  });
  expect(started.status).toBe(201);
  const threadId = started.body.threadId as string;
  const approvals = await eventually(async () => {
    const listed = (await request(harness, `/api/interactions?threadId=${threadId}`, { token: harness.tokens[who]! }))
      .body.interactions;
    return listed.length === 2
      ? (listed as Array<{ interactionId: string; toolApproval: { toolName: string; riskLevel: string } }>)
      : undefined;
  });
  return { threadId, approvals };
}

describe('ambiguous JSON (class 1)', () => {
  it('refuses a body with a key given twice on every route, and nothing is decided', async () => {
    const harness = await server();
    const { approvals } = await harness.startReleaseAgent();
    const target = approvals[0]!.interactionId;
    const token = harness.tokens['alice']!;
    for (const [path, rawBody] of [
      [respond(target), '{"action":"reject","action":"approve"}'],
      [respond(target), '{"action":"approve","reason":"a","reason":"b"}'],
      ['/api/interactions/approve-batch', `{"interactionIds":["${target}"],"interactionIds":[]}`],
      ['/api/threads', `{"workflowId":"${RELEASE_AGENT_WORKFLOW}","workflowId":"x"}`],
      ['/api/session', '{"token":"a","token":"b"}'],
      ['/api/chats/x/messages', '{"text":"no","text":"yes"}'],
      [respond(target), '{"action":"approve","__proto__":{"admin":true}}'],
    ] as const) {
      const refused = await request(harness, path, { token, rawBody });
      expect(refused.status, `${path} ${rawBody}`).toBe(400);
      expect(refused.body).toMatchObject({
        code: 'BAD_JSON',
        details: { problem: expect.stringMatching(/duplicate-key|prototype-key/) },
      });
    }
    expect((await harness.interlock.pending()).map((request) => request.interactionId)).toContain(target);
  });
});

describe('chat replies (class 2)', () => {
  it('takes only an exact yes over the chat API; "ok", "yes?" and emoji are asked again', async () => {
    const harness = await server();
    const token = harness.tokens['alice']!;
    const opened = await request(harness, '/api/chats', { token, body: {} });
    const chatId = opened.body.chatId as string;
    await request(harness, `/api/chats/${chatId}/messages`, { token, body: { text: 'write the notes' } });
    await eventually(async () =>
      (await harness.interlock.pending()).some(
        (pending) => pending.session.chatId === chatId && pending.operationType === 'TOOL_APPROVAL',
      )
        ? true
        : undefined,
    );
    for (const text of ['ok', 'yes?', '👍🏻?', 'approve?', 'sure', 'Yes!']) {
      const reply = await request(harness, `/api/chats/${chatId}/messages`, { token, body: { text } });
      expect(reply.body.result, text).toMatchObject({
        kind: 'clarify',
        text: expect.stringContaining('reply exactly "yes" or "no"'),
      });
    }
    expect(
      (await harness.interlock.pending()).some(
        (pending) => pending.session.chatId === chatId && pending.operationType === 'TOOL_APPROVAL',
      ),
    ).toBe(true);
    const yes = await request(harness, `/api/chats/${chatId}/messages`, { token, body: { text: 'yes' } });
    expect(yes.body.result).toMatchObject({ kind: 'approval', decision: 'approve' });
  });
});

describe('authorization before lookup (class 3)', () => {
  it('answers "not found" alike for a real id that is not yours and an id that does not exist, and shows no arguments', async () => {
    const harness = await server();
    const { approvals, threadId } = await harness.startReleaseAgent();
    const carol = { token: harness.tokens['carol']! };
    const real = approvals[0]!.interactionId;
    const invented = '00000000-0000-4000-8000-000000000000';
    const strip = (body: { code: string; message: string }) => ({
      code: body.code,
      message: body.message.replace(real, 'ID').replace(invented, 'ID'),
    });
    for (const [method, path] of [
      ['GET', (id: string) => `/api/interactions/${id}`],
      ['POST', (id: string) => respond(id)],
    ] as const) {
      const mine = await request(harness, path(real), {
        ...carol,
        method,
        ...(method === 'POST' ? { body: { action: 'approve' } } : {}),
      });
      const none = await request(harness, path(invented), {
        ...carol,
        method,
        ...(method === 'POST' ? { body: { action: 'approve' } } : {}),
      });
      expect(mine.status).toBe(404);
      expect(strip(mine.body)).toEqual(strip(none.body));
      expect(JSON.stringify(mine.body)).not.toMatch(/alice|bob|release-agent/);
    }
    expect((await request(harness, '/api/interactions', carol)).body.interactions).toEqual([]);
    expect((await request(harness, '/api/threads', carol)).body.threads).toEqual([]);
    expect((await request(harness, `/api/threads/${threadId}`, carol)).status).toBe(404);
    expect((await request(harness, `/api/threads/${threadId}/cancel`, { ...carol, body: {} })).status).toBe(404);
    expect(
      (await request(harness, '/api/workflows', carol)).body.workflows.map((workflow: { id: string }) => workflow.id),
    ).not.toContain(RELEASE_AGENT_WORKFLOW);
    expect((await harness.interlock.pending()).map((request) => request.interactionId)).toContain(real);
  });

  it('follows the approvers file: a removed approver is signed out and refused at once, without a restart', async () => {
    const harness = await server({ approversFile: true });
    const { approvals } = await harness.startReleaseAgent();
    const bob = await signIn(harness, 'bob');
    expect((await request(harness, '/api/session', { cookie: bob.cookie })).status).toBe(200);
    await writeFile(
      harness.approversFile,
      JSON.stringify({
        approvers: [{ name: 'alice', token: harness.tokens['alice'] }],
        workflows: { [RELEASE_AGENT_WORKFLOW]: ['alice'] },
      }),
    );
    await eventually(async () =>
      (await request(harness, '/api/interactions', { token: harness.tokens['bob']! })).status === 401
        ? true
        : undefined,
    );
    expect((await request(harness, '/api/session', { cookie: bob.cookie })).status).toBe(401);
    expect(
      (
        await request(harness, respond(approvals[0]!.interactionId), {
          cookie: bob.cookie,
          csrf: bob.csrf,
          body: { action: 'approve' },
        })
      ).status,
    ).toBe(401);
    expect(
      (await request(harness, '/api/interactions', { token: harness.tokens['alice']! })).body.interactions,
    ).toHaveLength(2);
  });
});

describe('unexpected inputs (class 4)', () => {
  it('refuses deep input, over-long ids and broken percent-encoding with documented codes, never 500', async () => {
    const harness = await server();
    const token = harness.tokens['alice']!;
    const deep = await request(harness, '/api/threads', {
      token,
      rawBody: `{"workflowId":"${RELEASE_AGENT_WORKFLOW}","input":{"a":${'['.repeat(20_000)}${']'.repeat(20_000)}}}`,
    });
    expect(deep.status).toBe(400);
    expect(deep.body).toMatchObject({ code: 'BAD_JSON', details: { problem: 'too-deep' } });
    expect(JSON.stringify(deep.body)).not.toMatch(/RangeError|stack/);
    const long = await request(harness, `/api/interactions/${'x'.repeat(5_000)}`, { token });
    expect([400, 404]).toContain(long.status);
    expect(long.body.code).toMatch(/^(BAD_REQUEST|INTERACTION_NOT_FOUND)$/);
    const badEncoding = await request(harness, '/api/interactions/%E0%A4%A', { token });
    expect(badEncoding.status).toBe(400);
    expect(badEncoding.body.code).toBe('BAD_REQUEST');
    const huge = await request(harness, '/api/threads', {
      token,
      rawBody: JSON.stringify({ workflowId: RELEASE_AGENT_WORKFLOW, input: { text: 'x'.repeat(200_000) } }),
    });
    expect(huge.status).toBe(413);
    expect(huge.body.code).toBe('BODY_TOO_LARGE');
  });
});

describe('controls approval systems are expected to have (class 5)', () => {
  it('separation of duties: the requester may not approve the HIGH calls of their own thread; another approver may; the refusal is audited', async () => {
    const harness = await server({ separationOfDuties: { [RELEASE_AGENT_WORKFLOW]: ['HIGH'] } });
    const { threadId, approvals } = await startAs(harness, 'alice');
    const bash = approvals.find((approval) => approval.toolApproval.riskLevel === 'HIGH')!;
    const write = approvals.find((approval) => approval.toolApproval.riskLevel === 'MEDIUM')!;
    expect(approvals[0]).toBe(bash); // HIGH first in the inbox
    const own = await request(harness, respond(bash.interactionId), {
      token: harness.tokens['alice']!,
      body: { action: 'approve' },
    });
    expect(own.status).toBe(403);
    expect(own.body.code).toBe('SEPARATION_OF_DUTIES');
    expect(
      (
        await request(harness, respond(write.interactionId), {
          token: harness.tokens['alice']!,
          body: { action: 'approve' },
        })
      ).status,
    ).toBe(200);
    expect(
      (
        await request(harness, respond(bash.interactionId), {
          token: harness.tokens['bob']!,
          body: { action: 'reject', reason: 'not today' },
        })
      ).status,
    ).toBe(200);
    const audit = await eventually(async () => {
      const entries = await harness.interlock.audit({ threadId });
      return entries.some((entry) => entry.decidedBy === 'person' && entry.toolName === 'bash') ? entries : undefined;
    });
    expect(audit.find((entry) => entry.decidedBy === 'attempt')).toMatchObject({
      rule: 'attempt:refused',
      responder: 'web:alice',
      toolName: 'bash',
      reason: expect.stringContaining('SEPARATION_OF_DUTIES'),
    });
    expect(audit.find((entry) => entry.decidedBy === 'person' && entry.toolName === 'bash')).toMatchObject({
      outcome: 'deny',
      responder: 'web:bob',
    });
    expect(await harness.interlock.verifyAudit()).toMatchObject({ valid: true });
  });

  it('separation of duties in the chat: the person who opened it may not approve the levels it covers', async () => {
    const harness = await server({
      separationOfDuties: { 'chat-agent': ['MEDIUM'] },
      workflowApprovers: { 'chat-agent': ['alice', 'bob'] },
    });
    const chatId = (await request(harness, '/api/chats', { token: harness.tokens['alice']!, body: {} })).body
      .chatId as string;
    await request(harness, `/api/chats/${chatId}/messages`, {
      token: harness.tokens['alice']!,
      body: { text: 'write the notes' },
    });
    const approval = await eventually(async () =>
      (await harness.interlock.pending()).find(
        (pending) => pending.session.chatId === chatId && pending.operationType === 'TOOL_APPROVAL',
      ),
    );
    const own = await request(harness, `/api/chats/${chatId}/messages`, {
      token: harness.tokens['alice']!,
      body: { text: 'yes' },
    });
    expect(own.body.result).toMatchObject({
      kind: 'notice',
      reason: 'not_allowed',
      text: expect.stringContaining('another approver'),
    });
    expect((await harness.interlock.pending()).map((pending) => pending.interactionId)).toContain(
      approval.interactionId,
    );
    const other = await request(harness, `/api/chats/${chatId}/messages`, {
      token: harness.tokens['bob']!,
      body: { text: 'yes' },
    });
    expect(other.body.result).toMatchObject({ kind: 'approval', decision: 'approve' });
    expect(
      (await harness.interlock.audit({ threadId: approval.threadId })).find((entry) => entry.decidedBy === 'attempt'),
    ).toMatchObject({ rule: 'attempt:refused', responder: 'alice' });
  });

  it('audits a losing answer and one from someone not on the list', async () => {
    const harness = await server();
    const { approvals, threadId } = await harness.startReleaseAgent();
    const target = approvals[0]!.interactionId;
    const [first, second] = await Promise.all([
      request(harness, respond(target), { token: harness.tokens['alice']!, body: { action: 'approve' } }),
      request(harness, respond(target), { token: harness.tokens['bob']!, body: { action: 'reject' } }),
    ]);
    expect([first.status, second.status].sort()).toEqual([200, 409]);
    await request(harness, respond(approvals[1]!.interactionId), {
      token: harness.tokens['carol']!,
      body: { action: 'approve' },
    });
    const attempts = (await harness.interlock.audit({ threadId })).filter((entry) => entry.decidedBy === 'attempt');
    expect(attempts.map((entry) => entry.rule).sort()).toEqual(['attempt:lost', 'attempt:refused']);
    expect(attempts.find((entry) => entry.rule === 'attempt:refused')).toMatchObject({
      responder: 'web:carol',
      reason: expect.stringContaining('INTERACTION_NOT_FOUND'),
    });
  });

  it('rate-limits sign-in attempts and the API with 429 RATE_LIMITED', async () => {
    const harness = await server({ rateLimits: { perMinute: 40, signInPerMinute: 5 } });
    const signIns = [];
    for (let attempt = 0; attempt < 7; attempt += 1)
      signIns.push(
        (await request(harness, '/api/session', { body: { token: `wrong-token-${attempt}-xxxxxxxx` } })).status,
      );
    expect(signIns.slice(0, 5)).toEqual([401, 401, 401, 401, 401]);
    expect(signIns.slice(5)).toEqual([429, 429]);
    const limited = await request(harness, '/api/session', { body: { token: harness.tokens['alice'] } });
    expect(limited.body).toMatchObject({ code: 'RATE_LIMITED', message: expect.stringContaining('slow down') });
    const probes = [];
    for (let probe = 0; probe < 45; probe += 1)
      probes.push(
        (await request(harness, `/api/interactions/probe-${probe}`, { token: harness.tokens['alice']! })).status,
      );
    expect(probes).toContain(429);
    expect(probes.indexOf(429)).toBeGreaterThan(20);
  });

  it('keeps sessions in the store: a restarted server keeps people signed in, and sign-out still ends them', async () => {
    const first = await startHarness();
    const session = await signIn(first, 'alice');
    await first.stop();
    const second = await startHarness({ directory: first.directory });
    harnesses.push(second);
    expect((await request(second, '/api/session', { cookie: session.cookie })).body).toEqual({
      approver: 'alice',
      groups: [],
      csrfToken: session.csrf,
    });
    expect(
      (await request(second, '/api/session', { method: 'DELETE', cookie: session.cookie, csrf: session.csrf })).status,
    ).toBe(200);
    expect((await request(second, '/api/session', { cookie: session.cookie })).status).toBe(401);
  });
});
