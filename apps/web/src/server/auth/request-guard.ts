import type { FastifyReply, FastifyRequest } from 'fastify';
import { WebError } from '../web-error.js';
import type { ApproverDirectory } from './approver-directory.js';
import { sameSecret, type SessionStore } from './sessions.js';

/** The cookie that carries the session id (HttpOnly, SameSite=Strict). */
export const SESSION_COOKIE = 'interlock_session';
/** The header a browser session must echo its CSRF token in on every state change. */
export const CSRF_HEADER = 'x-csrf-token';

declare module 'fastify' {
  interface FastifyRequest {
    /** The signed-in approver's name; set by the guard on every route not marked public. */
    approver: string | undefined;
  }
  interface FastifyContextConfig {
    /** No sign-in needed (the sign-in itself, the OpenAPI document, the page's files). */
    public?: boolean;
  }
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * The `onRequest` hook that authenticates every route not marked public, before its
 * body is read: `Authorization: Bearer <token>` (scripts), or the session cookie — which
 * on a state change must come with the session's CSRF token in `X-CSRF-Token`. Any state
 * change from another origin (Origin or Sec-Fetch-Site) is refused.
 */
export function createRequestGuard(approvers: ApproverDirectory, sessions: SessionStore) {
  return async function guard(request: FastifyRequest, _reply: FastifyReply): Promise<void> {
    request.approver = undefined;
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
      return;
    }
    const session = await sessions.get(request.cookies[SESSION_COOKIE]);
    // A session ends with its approver: one removed from the approvers file is signed out at once.
    if (session === undefined || !approvers.has(session.approver)) {
      throw new WebError(
        401,
        'UNAUTHENTICATED',
        'sign in first: POST /api/session with {"token": "<the token printed at first start>"}, or send Authorization: Bearer <token>',
      );
    }
    if (stateChange) {
      const sent = request.headers[CSRF_HEADER];
      if (typeof sent !== 'string' || !sameSecret(sent, session.csrfToken)) {
        throw new WebError(
          403,
          'CSRF_REJECTED',
          `a state change needs the session's CSRF token in the ${CSRF_HEADER} header (GET /api/session returns it): reload the page`,
        );
      }
    }
    request.approver = session.approver;
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
