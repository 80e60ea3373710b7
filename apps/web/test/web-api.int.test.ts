import { describe, expect, it } from 'vitest';
import { API_OPERATIONS, CHAT_OPERATIONS } from '../src/server/openapi.js';
import { respond, useApiHarness } from './web-api-harness.js';
import { eventually, request, signIn } from './web-harness.js';

// Who may call the web API and what it refuses: sign-in, filters, CSRF, approver lists, a
// second answer, bad bodies, and the OpenAPI document. What answers do: web-api-answers.int.test.ts;
// deadlines, a restart and the logs: web-api-lifecycle.int.test.ts.

describe('the web API over HTTP', () => {
  const { harness, alice, pendingIds } = useApiHarness();

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
      expect(me.body).toEqual({ approver: 'alice', groups: [], csrfToken: session.csrf });
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
