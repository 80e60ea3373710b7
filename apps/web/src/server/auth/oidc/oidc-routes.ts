import { isLoopbackHost } from '@interlock/core';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ApproverDirectory } from '../approver-directory.js';
import { setSessionCookie } from '../request-guard.js';
import type { SessionKeys } from '../session-keys.js';
import type { SessionStore } from '../sessions.js';
import { SignInProblem, type LoginTransaction, type OidcSignIn } from './oidc-sign-in.js';

/** The cookie that carries a sign-in under way (sealed and signed; SameSite=Lax so it comes back from the provider). */
export const SIGN_IN_COOKIE = 'interlock_sign_in';
/** Where the provider sends the browser back. */
export const CALLBACK_PATH = '/api/auth/callback';

export interface OidcRouteOptions {
  oidc: OidcSignIn;
  sessions: SessionStore;
  access: ApproverDirectory;
  keys: SessionKeys;
  signInPerMinute: number;
  now: () => number;
}

/**
 * `GET /api/auth/login` sends the browser to the identity provider (the authorization code
 * flow with PKCE); `GET /api/auth/callback` takes it back: the sign-in under way in this
 * browser (a sealed cookie, used once), the code exchanged, the ID token verified, the person
 * allowed — then a session, as a token sign-in gives. Every refusal is a page that says why
 * (and a line in the log: who, and why; never a code, token or secret).
 */
export function registerOidcRoutes(app: FastifyInstance, options: OidcRouteOptions): void {
  const { oidc, sessions, access, keys, now } = options;
  const config = { public: true, rateLimit: { max: options.signInPerMinute, timeWindow: 60_000 } };

  app.get('/api/auth/login', { config }, async (request, reply) => {
    let begun: Awaited<ReturnType<OidcSignIn['begin']>>;
    try {
      begun = await oidc.begin(redirectUriOf(request, oidc.options.redirectUrl));
    } catch (error) {
      return refuse(request, reply, error);
    }
    reply.setCookie(SIGN_IN_COOKIE, keys.seal(JSON.stringify(begun.transaction)), {
      httpOnly: true,
      sameSite: 'lax',
      path: '/api/auth/',
      maxAge: 600,
      secure: request.protocol === 'https',
      signed: true,
    });
    return reply.redirect(begun.url.href, 303);
  });

  app.get(CALLBACK_PATH, { config }, async (request, reply) => {
    // Used once: whatever happens next, this browser's sign-in under way is over.
    const transaction = transactionOf(request, keys, now());
    reply.clearCookie(SIGN_IN_COOKIE, { path: '/api/auth/' });
    if (transaction === undefined)
      return refuse(
        request,
        reply,
        new SignInProblem(
          'refused',
          'no sign-in is under way in this browser (it ran out, or this link was used already)',
        ),
      );
    const callbackUrl = new URL(transaction.redirectUri);
    callbackUrl.search = new URL(request.url, 'http://callback.invalid').search;
    try {
      const { principal, state } = await oidc.finish(callbackUrl, transaction);
      // A name the approvers file gives a token to is that machine's: nobody takes it over by a claim.
      if (access.has(principal.name))
        throw new SignInProblem(
          'not-allowed',
          `${principal.name} is an approver of the approvers file, who signs in with a token`,
        );
      const session = await sessions.create(principal, state);
      access.vouch(principal, session.expiresAt);
      setSessionCookie(reply, request, session.sessionId, sessions.lifetimeMs);
      request.log.info(
        `sign-in: ${principal.name} signed in through the identity provider (groups: ${principal.groups.join(', ') || 'none'})`,
      );
      return await reply.redirect('/', 303);
    } catch (error) {
      return refuse(request, reply, error);
    }
  });
}

function transactionOf(request: FastifyRequest, keys: SessionKeys, now: number): LoginTransaction | undefined {
  const raw = request.cookies[SIGN_IN_COOKIE];
  if (raw === undefined) return undefined;
  const unsigned = request.unsignCookie(raw);
  const text = unsigned.valid ? keys.unseal(unsigned.value) : undefined;
  if (text === undefined) return undefined;
  try {
    const transaction = JSON.parse(text) as LoginTransaction;
    return transaction.expiresAt > now ? transaction : undefined;
  } catch {
    return undefined;
  }
}

/** A refused sign-in: a page for the browser that says why, with its status and code. */
/**
 * Where the provider sends the browser back: `[auth.oidc] redirectUrl`. Without it, the
 * address the request names — only when that is this machine's loopback (`localhost`,
 * `127.0.0.1`, `[::1]`: a browser on the machine itself). Anywhere else the `Host` header is
 * whatever the client or a proxy says, and a sign-in link is never built from it: the
 * sign-in is refused, saying to set `redirectUrl` (interlock-web does not start on a
 * non-loopback address without it).
 */
export function redirectUriOf(request: FastifyRequest, redirectUrl: string | undefined): string {
  if (redirectUrl !== undefined) return redirectUrl;
  let hostname: string;
  try {
    hostname = new URL(`http://${request.host}`).hostname;
  } catch {
    hostname = '';
  }
  if (!isLoopbackHost(hostname))
    throw new SignInProblem(
      'unavailable',
      `sign-in through the identity provider needs [auth.oidc] redirectUrl (the public https://…${CALLBACK_PATH} of this server) when it is reached at an address other than this machine's loopback`,
    );
  return `${request.protocol}://${request.host}${CALLBACK_PATH}`;
}

function refuse(request: FastifyRequest, reply: FastifyReply, error: unknown): FastifyReply {
  if (!(error instanceof SignInProblem)) throw error;
  const [status, code] =
    error.kind === 'unavailable'
      ? ([503, 'SIGN_IN_UNAVAILABLE'] as const)
      : error.kind === 'not-allowed'
        ? ([403, 'NOT_AN_APPROVER'] as const)
        : ([401, 'SIGN_IN_FAILED'] as const);
  request.log.warn(`sign-in refused (${code}): ${error.message}`);
  return reply
    .code(status)
    .type('text/html; charset=utf-8')
    .send(
      `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Sign-in refused</title>` +
        `<link rel="stylesheet" href="/styles.css"></head><body><main><section class="view sign-in">` +
        `<h1>Sign-in refused</h1><p class="card-error" role="alert" data-code="${code}">${escapeHtml(error.message)}</p>` +
        `<p><a href="/">Back to Interlock</a></p></section></main></body></html>`,
    );
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`);
}
