import type { FastifyInstance } from 'fastify';
import { signInBody } from '../api-schemas.js';
import type { ApproverDirectory } from '../auth/approver-directory.js';
import type { OidcSignIn } from '../auth/oidc/oidc-sign-in.js';
import type { SessionRecheck } from '../auth/oidc/session-recheck.js';
import { SESSION_COOKIE, sessionIdOf, setSessionCookie } from '../auth/request-guard.js';
import type { SessionStore } from '../auth/sessions.js';
import { WebError } from '../web-error.js';

/**
 * How people sign in (the page asks), sign in with a token (for an HttpOnly session cookie),
 * who am I (and my CSRF token), sign out.
 */
export function registerSessionRoutes(
  app: FastifyInstance,
  approvers: ApproverDirectory,
  sessions: SessionStore,
  recheck: SessionRecheck,
  signInPerMinute: number,
  oidc: OidcSignIn | undefined,
): void {
  app.get('/api/auth/methods', { config: { public: true } }, async () => ({
    token: true,
    ...(oidc === undefined
      ? {}
      : { oidc: { loginUrl: '/api/auth/login', label: oidc.options.label ?? 'Sign in with single sign-on' } }),
  }));

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
      const session = await sessions.create(approver);
      setSessionCookie(reply, request, session.sessionId, sessions.lifetimeMs);
      return { approver: session.approver, csrfToken: session.csrfToken };
    },
  );

  app.get('/api/session', async (request) => ({
    approver: request.approver,
    groups: request.principal?.groups ?? [],
    ...(request.session === undefined ? {} : { csrfToken: request.session.csrfToken }),
  }));

  app.delete('/api/session', async (request, reply) => {
    const session = request.session;
    if (session !== undefined) await recheck.signOut(session);
    else {
      const sessionId = sessionIdOf(request);
      if (sessionId !== undefined) await sessions.delete(sessionId);
    }
    reply.clearCookie(SESSION_COOKIE, { path: '/' });
    return { signedOut: true };
  });
}
