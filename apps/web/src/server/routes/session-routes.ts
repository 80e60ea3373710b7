import type { FastifyInstance } from 'fastify';
import { signInBody } from '../api-schemas.js';
import { findApprover, type Approver } from '../auth/approvers.js';
import { SESSION_COOKIE } from '../auth/request-guard.js';
import { SESSION_LIFETIME_MS, type SessionStore } from '../auth/sessions.js';
import { WebError } from '../web-error.js';

/** Sign in (a token for an HttpOnly session cookie), who am I (and my CSRF token), sign out. */
export function registerSessionRoutes(app: FastifyInstance, approvers: readonly Approver[], sessions: SessionStore): void {
  app.post<{ Body: { token: string } }>('/api/session', { schema: { body: signInBody }, config: { public: true } }, async (request, reply) => {
    const approver = findApprover(approvers, request.body.token);
    if (approver === undefined) throw new WebError(401, 'UNAUTHENTICATED', 'that token is not an approver\'s token: use the token printed at first start, or one from the approvers file');
    const session = sessions.create(approver.name);
    reply.setCookie(SESSION_COOKIE, session.sessionId, {
      httpOnly: true,
      sameSite: 'strict',
      path: '/',
      maxAge: Math.floor(SESSION_LIFETIME_MS / 1000),
      secure: request.protocol === 'https',
    });
    return { approver: session.approver, csrfToken: session.csrfToken };
  });

  app.get('/api/session', async (request) => {
    const session = sessions.get(request.cookies[SESSION_COOKIE]);
    return { approver: request.approver, ...(session === undefined ? {} : { csrfToken: session.csrfToken }) };
  });

  app.delete('/api/session', async (request, reply) => {
    const sessionId = request.cookies[SESSION_COOKIE];
    if (sessionId !== undefined) sessions.delete(sessionId);
    reply.clearCookie(SESSION_COOKIE, { path: '/' });
    return { signedOut: true };
  });
}
