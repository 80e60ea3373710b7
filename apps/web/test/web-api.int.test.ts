import { get } from 'node:http';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtinTools, createInterlock } from '@interlock/core';
import { createReleaseAgentModel, RELEASE_QUESTION_WORKFLOW } from '../src/demo/web-demo.js';
import { API_OPERATIONS, CHAT_OPERATIONS } from '../src/server/openapi.js';
import { eventually, manualClock, request, signIn, startHarness, type WebHarness } from './web-harness.js';

const respond = (interactionId: string) => `/api/interactions/${interactionId}/respond`;

describe('the web API over HTTP', () => {
  let harness: WebHarness;
  beforeAll(async () => {
    harness = await startHarness({
      workflowApprovers: {
        'release-agent': ['alice', 'bob'],
        [RELEASE_QUESTION_WORKFLOW]: ['alice'],
        'chat-agent': ['alice'],
      },
      approvers: ['alice', 'bob', 'carol'],
    });
  });
  afterAll(() => harness?.close());

  const alice = () => ({ token: harness.tokens['alice']! });
  const pendingIds = async () => (await harness.interlock.pending()).map((request) => request.interactionId);

  describe('authentication', () => {
    it('refuses every API route without a token or a session, but serves the OpenAPI document and the page', async () => {
      const anonymous = await request(harness, '/api/interactions');
      expect(anonymous.status).toBe(401);
      expect(anonymous.body).toMatchObject({
        code: 'UNAUTHENTICATED',
        message: expect.stringContaining('POST /api/session'),
      });
      expect((await request(harness, '/api/interactions', { token: 'not-a-token' })).status).toBe(401);
      expect((await request(harness, '/api/openapi.json')).status).toBe(200);
      expect((await request(harness, '/')).status).toBe(200);
    });

    it('refuses a percent-encoded API path without credentials as it refuses the plain one', async () => {
      expect((await request(harness, '/%61pi/interactions')).status).toBe(401);
      expect((await request(harness, '/%61pi/audit')).status).toBe(401);
      const opened = await request(harness, '/%61pi/chats', { body: {} });
      expect(opened.status).toBe(401);
      expect((await harness.interlock.threads()).filter((thread) => thread.workflowId === 'chat-agent')).toEqual([]);
    });

    it("lets only the chat workflow's listed approvers open a chat or write in one", async () => {
      const carol = await request(harness, '/api/chats', { token: harness.tokens['carol']!, body: {} });
      expect(carol.status).toBe(403);
      expect(carol.body.code).toBe('NOT_AN_APPROVER');
      const opened = await request(harness, '/api/chats', { ...alice(), body: {} });
      expect(opened.status).toBe(201);
      const written = await request(harness, `/api/chats/${opened.body.chatId}/messages`, {
        token: harness.tokens['carol']!,
        body: { text: 'yes' },
      });
      expect(written.status).toBe(403);
    });

    it('exchanges a token for an HttpOnly, SameSite=Strict session cookie that does not contain the token', async () => {
      expect((await request(harness, '/api/session', { body: { token: 'wrong-token-wrong-token' } })).status).toBe(401);
      const session = await signIn(harness, 'alice');
      expect(session.setCookie).toMatch(/HttpOnly/);
      expect(session.setCookie).toMatch(/SameSite=Strict/);
      expect(session.setCookie).not.toContain(harness.tokens['alice']);
      const me = await request(harness, '/api/session', { cookie: session.cookie });
      expect(me.body).toEqual({ approver: 'alice', csrfToken: session.csrf });
    });
  });

  describe('the inbox list', () => {
    it('filters pending interactions by thread, workflow, channel, tool and risk', async () => {
      const { threadId } = await harness.startReleaseAgent();
      const list = async (query: string) =>
        (await request(harness, `/api/interactions?threadId=${threadId}&${query}`, alice())).body.interactions.map(
          (interaction: { toolApproval: { toolName: string } }) => interaction.toolApproval.toolName,
        );
      // HIGH risk first, then MEDIUM (issue 14): bash before write_file.
      expect(await list('workflowId=release-agent&channel=web')).toEqual(['bash', 'write_file']);
      expect(await list('tool=bash')).toEqual(['bash']);
      expect(await list('risk=MEDIUM')).toEqual(['write_file']);
      expect(await list('channel=cli')).toEqual([]);
      expect((await request(harness, '/api/interactions?risk=EXTREME', alice())).body.code).toBe('BAD_REQUEST');
    });
  });

  describe('CSRF', () => {
    it('refuses a cookie-authenticated answer without the CSRF header, with a wrong one, or from another origin', async () => {
      const { approvals } = await harness.startReleaseAgent();
      const target = approvals[0]!.interactionId;
      const { cookie, csrf } = await signIn(harness, 'alice');
      const missing = await request(harness, respond(target), { cookie, body: { action: 'approve' } });
      expect(missing.status).toBe(403);
      expect(missing.body.code).toBe('CSRF_REJECTED');
      expect(
        (await request(harness, respond(target), { cookie, csrf: 'x'.repeat(43), body: { action: 'approve' } })).status,
      ).toBe(403);
      const crossOrigin = await request(harness, respond(target), {
        cookie,
        csrf,
        origin: 'http://evil.example',
        body: { action: 'approve' },
      });
      expect(crossOrigin.status).toBe(403);
      expect(await pendingIds()).toContain(target);
      const accepted = await request(harness, respond(target), {
        cookie,
        csrf,
        origin: harness.baseUrl,
        body: { action: 'approve' },
      });
      expect(accepted.status).toBe(200);
      expect(await pendingIds()).not.toContain(target);
    });
  });

  describe('approver lists', () => {
    it("lets only a workflow's listed approvers answer, and records who did in the audit trail", async () => {
      const { approvals, threadId } = await harness.startReleaseAgent();
      const target = approvals[0]!.interactionId;
      // Not on the list: the same 404 as an id that does not exist, naming nobody (issue 14).
      const refused = await request(harness, respond(target), {
        token: harness.tokens['carol']!,
        body: { action: 'approve' },
      });
      expect(refused.status).toBe(404);
      expect(refused.body.code).toBe('INTERACTION_NOT_FOUND');
      expect(refused.body.message).not.toMatch(/alice|bob/);
      expect(await pendingIds()).toContain(target);
      const listed = await request(harness, `/api/interactions?threadId=${threadId}`, {
        token: harness.tokens['carol']!,
      });
      expect(listed.body.interactions).toEqual([]);
      expect(
        (await request(harness, respond(target), { token: harness.tokens['bob']!, body: { action: 'approve' } }))
          .status,
      ).toBe(200);
      const audit = await eventually(async () =>
        (await harness.interlock.audit({ threadId })).find((entry) => entry.decidedBy === 'person'),
      );
      expect(audit).toMatchObject({ toolName: 'write_file', outcome: 'allow', responder: 'web:bob' });
    });
  });

  describe('idempotency', () => {
    it('accepts the first of two simultaneous answers and tells the second who answered (409)', async () => {
      const { approvals } = await harness.startReleaseAgent();
      const target = approvals[1]!.interactionId;
      const [first, second] = await Promise.all([
        request(harness, respond(target), {
          token: harness.tokens['alice']!,
          body: { action: 'reject', reason: 'not today' },
        }),
        request(harness, respond(target), { token: harness.tokens['bob']!, body: { action: 'approve' } }),
      ]);
      const statuses = [first.status, second.status].sort();
      expect(statuses).toEqual([200, 409]);
      const conflict = first.status === 409 ? first : second;
      const winner = first.status === 200 ? 'web:alice' : 'web:bob';
      expect(conflict.body).toMatchObject({ code: 'INTERACTION_ALREADY_ANSWERED', details: { answeredBy: winner } });
      expect(conflict.body.message).toContain(`already answered by ${winner}`);
      const again = await request(harness, respond(target), {
        token: harness.tokens['alice']!,
        body: { action: 'approve' },
      });
      expect(again.status).toBe(409);
    });
  });

  describe('bad bodies', () => {
    it('refuses malformed, misshapen, mismatched and oversized bodies with a code, and the interaction stays pending', async () => {
      const { approvals } = await harness.startReleaseAgent();
      const target = approvals[0]!.interactionId;
      const cases = [
        { rawBody: '{"action": "approve"', status: 400, code: 'BAD_JSON' },
        { rawBody: '{"action": "reject", "action": "approve"}', status: 400, code: 'BAD_JSON' },
        {
          rawBody: `{"action": "approve", "x": ${'['.repeat(5_000)}${']'.repeat(5_000)}}`,
          status: 400,
          code: 'BAD_JSON',
        },
        { body: { action: 'maybe' }, status: 400, code: 'BAD_REQUEST' },
        { body: { action: 'approve', extra: true }, status: 400, code: 'BAD_REQUEST' },
        { body: { action: 'answer', value: 'yes' }, status: 400, code: 'BAD_REQUEST' },
        { body: { action: 'edit' }, status: 400, code: 'BAD_REQUEST' },
        { rawBody: 'approve', contentType: 'text/plain', status: 415, code: 'UNSUPPORTED_MEDIA_TYPE' },
        {
          body: { action: 'edit', arguments: { path: 42, content: 'x' } },
          status: 422,
          code: 'INTERACTION_INVALID_RESPONSE',
        },
        { body: { action: 'reject', reason: 'x'.repeat(70 * 1024) }, status: 413, code: 'BODY_TOO_LARGE' },
      ];
      for (const { status, code, ...options } of cases) {
        const response = await request(harness, respond(target), { ...alice(), ...options });
        expect({ status: response.status, code: response.body?.code }).toEqual({ status, code });
        expect(response.body.message).toEqual(expect.any(String));
      }
      expect(await pendingIds()).toContain(target);
      expect(
        (await request(harness, respond('no-such-interaction'), { ...alice(), body: { action: 'approve' } })).body.code,
      ).toBe('INTERACTION_NOT_FOUND');
    });
  });

  describe('answers', () => {
    it("runs edited arguments, tells the model a rejection's reason, and adds an instruction to the conversation", async () => {
      const { approvals, threadId } = await harness.startReleaseAgent();
      const [write, deploy] = approvals;
      const edited = await request(harness, respond(write!.interactionId), {
        ...alice(),
        body: { action: 'edit', arguments: { path: 'NOTES.md', content: 'clean' }, instruction: 'keep it short' },
      });
      expect(edited.status).toBe(200);
      expect(
        (
          await request(harness, respond(deploy!.interactionId), {
            ...alice(),
            body: { action: 'reject', reason: 'freeze until Monday' },
          })
        ).status,
      ).toBe(200);
      const timeline = await eventually(async () => {
        const response = await request(harness, `/api/threads/${threadId}`, alice());
        return response.body.thread.status === 'completed' ? response.body : undefined;
      });
      const contents = timeline.conversation.map((message: { content: string }) => message.content).join('\n');
      expect(contents).toContain('freeze until Monday');
      expect(contents).toContain('keep it short');
      const decision = timeline.entries.find(
        (entry: { kind: string; title: string }) =>
          entry.kind === 'decision' && entry.title.startsWith('allowed write_file'),
      );
      expect(decision).toMatchObject({
        actor: 'web:alice',
        detail: { editedArguments: { path: 'NOTES.md', content: 'clean' } },
      });
    });

    it('answers a question with a value and the thread completes with it', async () => {
      const started = await request(harness, '/api/threads', {
        ...alice(),
        body: { workflowId: RELEASE_QUESTION_WORKFLOW },
      });
      expect(started.status).toBe(201);
      const { threadId } = started.body;
      const question = await eventually(async () =>
        (await harness.interlock.pending()).find((request) => request.threadId === threadId),
      );
      expect(
        (
          await request(harness, respond(question.interactionId), {
            token: harness.tokens['bob']!,
            body: { action: 'answer', value: 'staging' },
          })
        ).status,
      ).toBe(404);
      expect(
        (
          await request(harness, respond(question.interactionId), {
            ...alice(),
            body: { action: 'answer', value: 'staging' },
          })
        ).status,
      ).toBe(200);
      const thread = await eventually(async () => {
        const record = await harness.store.getThread(threadId);
        return record?.status === 'completed' ? record : undefined;
      });
      expect(thread.output).toBe('staging');
    });

    it('approves the calls of one turn in one request', async () => {
      const { approvals } = await harness.startReleaseAgent();
      const response = await request(harness, '/api/interactions/approve-batch', {
        ...alice(),
        body: { interactionIds: approvals.map((approval) => approval.interactionId) },
      });
      expect(response.body.results.map((result: { result: string }) => result.result)).toEqual([
        'accepted',
        'accepted',
      ]);
      expect(await pendingIds()).not.toContain(approvals[0]!.interactionId);
      expect(await pendingIds()).not.toContain(approvals[1]!.interactionId);
    });
  });

  describe('threads', () => {
    it('cancels a waiting thread; a later answer to its approval gets 409', async () => {
      const { approvals, threadId } = await harness.startReleaseAgent();
      const cancelled = await request(harness, `/api/threads/${threadId}/cancel`, {
        ...alice(),
        body: { reason: 'wrong branch' },
      });
      expect(cancelled.body).toEqual({ threadId, status: 'cancelled' });
      const late = await request(harness, respond(approvals[0]!.interactionId), {
        ...alice(),
        body: { action: 'approve' },
      });
      expect(late.status).toBe(409);
      expect(late.body.message).toContain('cancelled');
      expect((await request(harness, `/api/threads/${threadId}/cancel`, { ...alice(), body: {} })).body.code).toBe(
        'THREAD_NOT_WAITING',
      );
    });

    it('refuses to start a workflow it does not know', async () => {
      const response = await request(harness, '/api/threads', { ...alice(), body: { workflowId: 'nope' } });
      expect(response.status).toBe(404);
      expect(response.body.code).toBe('WORKFLOW_NOT_FOUND');
    });
  });

  describe('live updates', () => {
    it('streams a change naming the responder when an interaction is answered', async () => {
      const { approvals } = await harness.startReleaseAgent();
      const target = approvals[0]!.interactionId;
      const received = new Promise<string>((resolve, reject) => {
        const stream = get(
          `${harness.baseUrl}/api/events`,
          { headers: { authorization: `Bearer ${harness.tokens['alice']}` } },
          (response) => {
            let text = '';
            response.setEncoding('utf8');
            response.on('data', (chunk: string) => {
              text += chunk;
              if (text.includes(': connected'))
                void request(harness, respond(target), { token: harness.tokens['bob']!, body: { action: 'approve' } });
              const line = text
                .split('\n')
                .find(
                  (candidate) =>
                    candidate.startsWith('data:') && candidate.includes('"answered"') && candidate.includes(target),
                );
              if (line !== undefined) {
                stream.destroy();
                resolve(line);
              }
            });
          },
        );
        stream.on('error', reject);
      });
      expect(JSON.parse((await received).slice('data:'.length))).toMatchObject({
        kind: 'interaction',
        reason: 'answered',
        interactionId: target,
        responder: 'web:bob',
      });
    });
    it("ends a signed-in page's stream at sign-out, at the next change", async () => {
      const { cookie, csrf } = await signIn(harness, 'carol');
      let signedOutAt = -1;
      const ended = new Promise<string>((resolve, reject) => {
        const stream = get(`${harness.baseUrl}/api/events`, { headers: { cookie } }, (response) => {
          let text = '';
          response.setEncoding('utf8');
          response.on('data', (chunk: string) => {
            text += chunk;
            if (chunk.includes(': connected')) {
              void (async () => {
                await request(harness, '/api/session', { method: 'DELETE', cookie, csrf });
                signedOutAt = text.length;
                await harness.startReleaseAgent();
              })();
            }
          });
          response.on('end', () => resolve(text));
        });
        stream.on('error', reject);
      });
      const text = await ended;
      expect(signedOutAt).toBeGreaterThan(0);
      expect(text.slice(signedOutAt)).not.toContain('event: change');
    });
  });

  describe('answers from another process', () => {
    it('are noticed by the store watch and pushed to the pages', async () => {
      const { approvals } = await harness.startReleaseAgent();
      // Another Interlock over the same store stands for another process: its events never reach this server.
      const shared = new Proxy(harness.store, {
        get: (target, name, receiver) =>
          name === 'close' ? async () => undefined : Reflect.get(target, name, receiver),
      });
      const elsewhere = await createInterlock({
        store: { type: 'custom', store: shared },
        tools: builtinTools,
        models: { release: createReleaseAgentModel() },
        workspaceRoot: harness.directory,
        recoverOnStart: false,
      });
      await harness.app.liveUpdates.tick();
      const changes: string[] = [];
      const unsubscribe = harness.app.liveUpdates.subscribe((change) => changes.push(change.reason));
      try {
        await elsewhere.respond(
          approvals[0]!.interactionId,
          { approved: false, denyReason: 'from the CLI' },
          { responder: 'cli:dana' },
        );
        await harness.app.liveUpdates.tick();
        expect(changes).toContain('pending-changed');
        expect(changes).not.toContain('answered');
        const state = await request(harness, `/api/interactions/${approvals[0]!.interactionId}`, alice());
        expect(state.body.response.responder).toBe('cli:dana');
      } finally {
        unsubscribe();
        await elsewhere.close();
      }
    });
  });

  describe('the OpenAPI document', () => {
    it('documents exactly the API routes the server registers', async () => {
      const registered = harness.app.registeredRoutes
        .filter((route) => route.url.startsWith('/api/'))
        .map((route) => `${route.method} ${route.url.replace(/:(\w+)/g, '{$1}')}`);
      const documented = Object.entries({ ...API_OPERATIONS, ...CHAT_OPERATIONS }).flatMap(([path, methods]) =>
        Object.keys(methods).map((method) => `${method.toUpperCase()} ${path}`),
      );
      expect([...registered].sort()).toEqual([...documented].sort());
      const served = await request(harness, '/api/openapi.json');
      expect(Object.keys(served.body.paths).sort()).toEqual(
        Object.keys({ ...API_OPERATIONS, ...CHAT_OPERATIONS }).sort(),
      );
    });
  });
});

describe('deadlines', () => {
  let harness: WebHarness;
  const clock = manualClock();
  beforeAll(async () => {
    harness = await startHarness({ approvalTimeout: '1m', clock, pollInterval: 0 });
  });
  afterAll(() => harness?.close());

  it('refuses an answer after the deadline with 410 INTERACTION_EXPIRED, and nothing runs for it', async () => {
    const { approvals, threadId } = await harness.startReleaseAgent();
    clock.advance(61_000);
    const late = await request(harness, respond(approvals[1]!.interactionId), {
      token: harness.tokens['alice']!,
      body: { action: 'approve' },
    });
    expect(late.status).toBe(410);
    expect(late.body).toMatchObject({ code: 'INTERACTION_EXPIRED', message: expect.stringContaining('nothing ran') });
    const invalidAndLate = await request(harness, respond(approvals[0]!.interactionId), {
      token: harness.tokens['alice']!,
      body: { action: 'edit', arguments: { path: 5 } },
    });
    expect(invalidAndLate.status).toBe(410);
    const executions = await harness.store.listToolExecutions({ threadId });
    expect(executions.filter((execution) => execution.toolName === 'bash')).toEqual([]);
  });

  it('expires overdue interactions on its own and tells the page', async () => {
    const { approvals } = await harness.startReleaseAgent();
    const changes: string[] = [];
    const unsubscribe = harness.app.liveUpdates.subscribe((change) =>
      changes.push(`${change.reason}:${change.interactionId}`),
    );
    clock.advance(61_000);
    await harness.app.liveUpdates.tick();
    unsubscribe();
    expect(changes).toContain(`expired:${approvals[0]!.interactionId}`);
    expect((await harness.interlock.pending()).map((request) => request.interactionId)).not.toContain(
      approvals[0]!.interactionId,
    );
  });
});

describe('a restart', () => {
  it('keeps the approvals waiting; a restarted server takes the answer and the thread finishes', async () => {
    const first = await startHarness();
    const { approvals, threadId } = await first.startReleaseAgent();
    let connected: () => void = () => undefined;
    const streamConnected = new Promise<void>((resolve) => (connected = resolve));
    const streamEnded = new Promise<void>((resolve, reject) => {
      get(
        `${first.baseUrl}/api/events`,
        { headers: { authorization: `Bearer ${first.tokens['alice']}` } },
        (response) => {
          response.once('data', () => connected());
          response.on('end', resolve);
        },
      ).on('error', reject);
    });
    await streamConnected;
    await first.stop();
    // Closing the server ends the live streams (a page reconnects to the next server).
    await streamEnded;
    const second = await startHarness({ directory: first.directory });
    try {
      const listed = await request(second, '/api/interactions', { token: second.tokens['alice']! });
      expect(
        listed.body.interactions.map((interaction: { interactionId: string }) => interaction.interactionId).sort(),
      ).toEqual(approvals.map((approval) => approval.interactionId).sort());
      for (const approval of approvals) {
        expect(
          (
            await request(second, respond(approval.interactionId), {
              token: second.tokens['alice']!,
              body: { action: 'reject', reason: 'after the restart' },
            })
          ).status,
        ).toBe(200);
      }
      const thread = await eventually(async () => {
        const record = await second.store.getThread(threadId);
        return record?.status === 'completed' ? record : undefined;
      });
      expect(thread.conversation.at(-1)?.content).toContain('after the restart');
    } finally {
      await second.close();
    }
  });
});

describe('logs', () => {
  it('never contain a token, a session cookie or a CSRF token', async () => {
    const log = new PassThrough();
    let text = '';
    log.on('data', (chunk: Buffer) => (text += chunk.toString()));
    const harness = await startHarness({ logStream: log });
    try {
      const { cookie, csrf } = await signIn(harness, 'alice');
      await request(harness, '/api/interactions', { token: harness.tokens['bob']! });
      await request(harness, '/api/session', { cookie, csrf, method: 'DELETE' });
      await request(harness, '/api/session', { body: { token: 'a-wrong-token-that-is-long' } });
      expect(text).toContain('"statusCode":401');
      for (const secret of [
        harness.tokens['alice']!,
        harness.tokens['bob']!,
        cookie.split('=')[1]!,
        csrf,
        'a-wrong-token-that-is-long',
      ])
        expect(text).not.toContain(secret);
    } finally {
      await harness.close();
    }
  });
});
