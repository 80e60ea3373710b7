import type { FastifyReply, FastifyRequest } from 'fastify';
import { WebError } from '../web-error.js';
import type { ApproverDirectory } from './approver-directory.js';
import type { Principal } from './approvers.js';
import type { SessionRecheck } from './oidc/session-recheck.js';
import { sameSecret, type Session, type SessionStore } from './sessions.js';

/** The cookie that carries the session id (HttpOnly, SameSite=Strict). */
export const SESSION_COOKIE = 'interlock_session';
/** The header a browser session must echo its CSRF token in on every state change. */
export const CSRF_HEADER = 'x-csrf-token';

declare module 'fastify' {
  interface FastifyRequest {
    /** The signed-in approver's name; set by the guard on every route not marked public. */
    approver: string | undefined;
    /** The signed-in approver with their groups now; set with `approver`. */
    principal: Principal | undefined;
    /** The browser session the request came with (not for a bearer token). */
    session: Session | undefined;
  }
  interface FastifyContextConfig {
    /** No sign-in needed (the sign-in itself, the OpenAPI document, the page's files). */
    public?: boolean;
  }
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** The session id the request's cookie carries, if the cookie was signed by this server's key. */
export function sessionIdOf(request: FastifyRequest): string | undefined {
  const raw = request.cookies[SESSION_COOKIE];
  if (raw === undefined) return undefined;
  const unsigned = request.unsignCookie(raw);
  return unsigned.valid ? unsigned.value : undefined;
}

/** Sets the session cookie: signed, HttpOnly, SameSite=Strict, Secure over https. */
export function setSessionCookie(
  reply: FastifyReply,
  request: FastifyRequest,
  sessionId: string,
  lifetimeMs: number,
): void {
  reply.setCookie(SESSION_COOKIE, sessionId, {
    httpOnly: true,
    sameSite: 'strict',
    path: '/',
    maxAge: Math.floor(lifetimeMs / 1000),
    secure: request.protocol === 'https',
    signed: true,
  });
}

/**
 * The `onRequest` hook that authenticates every route not marked public, before its
 * body is read: `Authorization: Bearer <token>` (scripts), or the session cookie — which
 * on a state change must come with the session's CSRF token in `X-CSRF-Token`. Any state
 * change from another origin (Origin or Sec-Fetch-Site) is refused. A session of the
 * identity provider is confirmed with it again when due (`recheck`).
 */
export function createRequestGuard(approvers: ApproverDirectory, sessions: SessionStore, recheck: SessionRecheck) {
  return async function guard(request: FastifyRequest, _reply: FastifyReply): Promise<void> {
    request.approver = undefined;
    request.principal = undefined;
    request.session = undefined;
    const stateChange = !SAFE_METHODS.has(request.method);
    if (stateChange) checkSameOrigin(request);
    // Deny by default: only routes marked public skip the sign-in (never decide by the raw
    // URL, which may be percent-encoded: `/%61pi/...` is routed to `/api/...`).
    // Fastify itself reads `context.config?.`: a route context may come without one (not public).
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- see above
    if (request.routeOptions.config?.public === true) return;
    const authorization = request.headers.authorization;
    if (authorization !== undefined) {
      const token = /^Bearer\s+(\S+)$/i.exec(authorization)?.[1];
      const approver = token === undefined ? undefined : approvers.find(token);
      if (approver === undefined)
        throw new WebError(
          401,
          'UNAUTHENTICATED',
          "the bearer token is not an approver's token: use the token printed at first start, or one from the approvers file",
        );
      request.approver = approver.name;
      request.principal = approver;
      return;
    }
    const stored = await sessions.get(sessionIdOf(request));
    // A token session ends with its approver: one removed from the approvers file is signed out at once.
    if (stored === undefined || (stored.oidc === undefined && !approvers.has(stored.approver))) {
      throw new WebError(
        401,
        'UNAUTHENTICATED',
        'sign in first: GET /api/auth/login (single sign-on), POST /api/session with {"token": "<the token printed at first start>"}, or send Authorization: Bearer <token>',
      );
    }
    if (stateChange) {
      const sent = request.headers[CSRF_HEADER];
      if (typeof sent !== 'string' || !sameSecret(sent, stored.csrfToken)) {
        throw new WebError(
          403,
          'CSRF_REJECTED',
          `a state change needs the session's CSRF token in the ${CSRF_HEADER} header (GET /api/session returns it): reload the page`,
        );
      }
    }
    const session = await recheck.current(stored);
    request.approver = session.approver;
    request.principal =
      session.oidc === undefined
        ? (approvers.principalOf(session.approver) ?? { name: session.approver, groups: [] })
        : { name: session.approver, groups: session.groups };
    request.session = session;
  };
}

function checkSameOrigin(request: FastifyRequest): void {
  const site = request.headers['sec-fetch-site'];
  if (site === 'cross-site' || site === 'same-site') {
    throw new WebError(403, 'CSRF_REJECTED', "state changes are accepted only from this server's own page");
  }
  const origin = request.headers.origin;
  if (origin === undefined) return;
  if (origin !== `${request.protocol}://${request.host}`) {
    throw new WebError(
      403,
      'CSRF_REJECTED',
      `state changes are accepted only from this server's own page, not from ${origin}`,
    );
  }
}
