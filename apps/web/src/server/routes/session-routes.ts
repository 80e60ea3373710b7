import type { FastifyInstance } from 'fastify';
import { signInBody } from '../api-schemas.js';
import type { ApproverDirectory } from '../auth/approver-directory.js';
import { SESSION_COOKIE } from '../auth/request-guard.js';
import { SESSION_LIFETIME_MS, type SessionStore } from '../auth/sessions.js';
import { WebError } from '../web-error.js';

/** Sign in (a token for an HttpOnly session cookie), who am I (and my CSRF token), sign out. */
export function registerSessionRoutes(
  app: FastifyInstance,
  approvers: ApproverDirectory,
  sessions: SessionStore,
  signInPerMinute: number,
): void {
  const config = { public: true, rateLimit: { max: signInPerMinute, timeWindow: 60_000 } };
  app.post<{ Body: { token: string } }>(
    '/api/session',
    { schema: { body: signInBody }, config },
    async (request, reply) => {
      const approver = approvers.find(request.body.token);
      if (approver === undefined)
        throw new WebError(
          401,
          'UNAUTHENTICATED',
          "that token is not an approver's token: use the token printed at first start, or one from the approvers file",
        );
      const session = await sessions.create(approver.name);
      reply.setCookie(SESSION_COOKIE, session.sessionId, {
        httpOnly: true,
        sameSite: 'strict',
        path: '/',
        maxAge: Math.floor(SESSION_LIFETIME_MS / 1000),
        secure: request.protocol === 'https',
      });
      return { approver: session.approver, csrfToken: session.csrfToken };
    },
  );

  app.get('/api/session', async (request) => {
    const session = await sessions.get(request.cookies[SESSION_COOKIE]);
    return { approver: request.approver, ...(session === undefined ? {} : { csrfToken: session.csrfToken }) };
  });

  app.delete('/api/session', async (request, reply) => {
    const sessionId = request.cookies[SESSION_COOKIE];
    if (sessionId !== undefined) await sessions.delete(sessionId);
    reply.clearCookie(SESSION_COOKIE, { path: '/' });
    return { signedOut: true };
  });
}
