import { fileURLToPath } from 'node:url';
import fastifyCookie from '@fastify/cookie';
import fastifyRateLimit from '@fastify/rate-limit';
import {
  InterlockError,
  parseJsonStrictly,
  type ICheckpointStore,
  type Interlock,
  type ReadinessCheck,
} from '@interlock/core';
import type { WorkflowDefinition } from '@interlock/sdk-types';
import type { ChatChannel } from '@interlock/chat';
import Fastify, { type FastifyError, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { ApproverDirectory } from './auth/approver-directory.js';
import type { Approver, SeparationOfDuties, WorkflowApprovers } from './auth/approvers.js';
import { OidcSignIn, type OidcOptions } from './auth/oidc/oidc-sign-in.js';
import { registerOidcRoutes } from './auth/oidc/oidc-routes.js';
import { SessionRecheck } from './auth/oidc/session-recheck.js';
import { createRequestGuard, sessionIdOf } from './auth/request-guard.js';
import { SessionKeys } from './auth/session-keys.js';
import { SESSION_LIFETIME_MS, SessionStore } from './auth/sessions.js';
import { registerHealthRoutes } from './health-routes.js';
import { registerReceiptRoutes } from './receipt-routes.js';
import { LiveUpdates } from './live-updates.js';
import { CHAT_OPERATIONS, createOpenApiDocument, OIDC_OPERATIONS } from './openapi.js';
import { registerAuditRoutes } from './routes/audit-routes.js';
import { registerChatRoutes } from './routes/chat-routes.js';
import { registerEventRoutes } from './routes/event-routes.js';
import { registerInteractionRoutes } from './routes/interaction-routes.js';
import { registerSessionRoutes } from './routes/session-routes.js';
import { registerThreadRoutes } from './routes/thread-routes.js';
import { registerStaticRoutes } from './static-routes.js';
import type { WebContext } from './web-context.js';
import { WebError } from './web-error.js';

/** The channel of threads started from the page (and of the web demo). */
export const WEB_CHANNEL = 'web';
/** The channel of chat threads (their approvals show in the inbox too). */
export const CHAT_CHANNEL = 'chat';
/** The largest request body accepted, in bytes. */
export const DEFAULT_BODY_LIMIT = 64 * 1024;

/** Requests per minute from one client: to the API, and sign-in attempts. */
export interface RateLimits {
  /** Default 600. */
  perMinute: number;
  /** Sign-in attempts (right or wrong token). Default 10. */
  signInPerMinute: number;
}

export const DEFAULT_RATE_LIMITS: RateLimits = { perMinute: 600, signInPerMinute: 10 };

export interface WebServerOptions {
  /** The engine; the server never closes it. */
  interlock: Interlock;
  /** The store `interlock` runs on, read for timelines and an interaction's state. */
  store: ICheckpointStore;
  /**
   * Who may sign in (names and token hashes; see `loadApprovers`), or an
   * {@link ApproverDirectory} that follows the approvers file (then `workflowApprovers` is its).
   */
  approvers: readonly Approver[] | ApproverDirectory;
  /** Per workflow, the approvers who may see, answer, cancel and start it; unlisted workflows are open to every approver. */
  workflowApprovers?: WorkflowApprovers;
  /** Per workflow (or `*`), the levels whose requests the thread's requester may not answer. Default none. */
  separationOfDuties?: SeparationOfDuties;
  /** Workflows the page may start, or how to find them when asked (a deployment's: those its workers serve). Default none. */
  workflows?: readonly WorkflowDefinition[] | (() => Promise<readonly WorkflowDefinition[]>);
  /** The channel of threads started here. Default `web`. */
  channel?: string;
  /** The chat channel behind /api/chats; without it there are no chat routes. */
  chat?: ChatChannel;
  /** Default 64 KiB. */
  bodyLimit?: number;
  /** Requests per minute per client address (429 RATE_LIMITED past them). Default {@link DEFAULT_RATE_LIMITS}. */
  rateLimits?: Partial<RateLimits>;
  /**
   * How often to look at the store for deadlines and other processes' answers (ms). Default
   * 1000; 0 turns it off. On PostgreSQL, changes are heard as they happen (LISTEN/NOTIFY)
   * and the store is looked at only for deadlines.
   */
  pollInterval?: number;
  /** Time out questions whose deadline passed (and continue their threads). Default true; a deployment's workers do it (false). */
  expireDeadlines?: boolean;
  /** The time, for deadlines. Default Date.now. */
  now?: () => number;
  /** Log requests (info level, to stdout or `logStream`). Default off. Tokens, cookies and the CSRF header are redacted. */
  logger?: boolean;
  /** Where the log goes when `logger` is on. Default stdout. */
  logStream?: NodeJS.WritableStream;
  /** Where the page's files are. Default the package's public/. */
  publicDirectory?: string;
  /** Sign-in and sessions (`[auth]` of the project file). Default: tokens only, 12-hour sessions, a key kept in the store. */
  auth?: WebAuthOptions;
  /**
   * What `/readyz` checks besides a read of `store` (F60): core's `storeReadiness` gives the
   * migrations and the job queue. Default: the store read only.
   */
  readiness?: readonly ReadinessCheck[];
}

/** How people sign in to the web app. */
export interface WebAuthOptions {
  /** How long a session lasts. Default 12 hours. */
  sessionLifetimeMs?: number;
  /** The secret session cookies are signed with (at least 32 characters). Default: a random one kept in the store. */
  sessionSecret?: string;
  /** Sign-in with the organisation's identity provider (F58). */
  oidc?: OidcOptions;
}

/** A route the server answers (HEAD routes fastify adds are left out). */
export interface RegisteredRoute {
  method: string;
  url: string;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** Every route registered, e.g. to check the OpenAPI document names them all. */
    registeredRoutes: readonly RegisteredRoute[];
    /** The live feed behind `/api/events`: publish to it, or run a `tick()` of the store watch. */
    liveUpdates: LiveUpdates;
  }
}

const DEFAULT_PUBLIC_DIRECTORY = fileURLToPath(new URL('../../public/', import.meta.url));

/**
 * Builds the web app's server: the documented HTTP API (see `/api/openapi.json`), live
 * updates by Server-Sent Events, and the page. Call `listen` on the result; `close` ends
 * the live streams (the Interlock stays open).
 *
 * @example
 * const app = await createWebServer({ interlock, store, approvers });
 * await app.listen({ host: '127.0.0.1', port: 7878 });
 */
export async function createWebServer(options: WebServerOptions): Promise<FastifyInstance> {
  const now = options.now ?? Date.now;
  const app = Fastify({
    bodyLimit: options.bodyLimit ?? DEFAULT_BODY_LIMIT,
    logger:
      options.logger === true
        ? { ...REDACTED_LOGGER, ...(options.logStream === undefined ? {} : { stream: options.logStream }) }
        : false,
    ajv: { customOptions: { removeAdditional: false, coerceTypes: false, allErrors: false } },
    // Errors met before a route is found (a bad percent-encoding, an over-long id) get the documented body too.
    frameworkErrors: (error, _request, reply) => {
      const web = toWebError(error);
      void (reply as FastifyReply).code(web.statusCode).send(web.toJSON());
    },
  });
  // Sessions and their key are read from the store and written through the engine's answer desk.
  const kept = { store: options.store, desk: options.interlock };
  const sessions = new SessionStore(kept, now, options.auth?.sessionLifetimeMs ?? SESSION_LIFETIME_MS);
  const keys = await SessionKeys.resolve(kept, options.auth?.sessionSecret);
  const oidc = options.auth?.oidc === undefined ? undefined : new OidcSignIn(options.auth.oidc, keys, now);
  const access =
    options.approvers instanceof ApproverDirectory
      ? options.approvers
      : ApproverDirectory.of({
          approvers: options.approvers,
          workflowApprovers: options.workflowApprovers ?? {},
          separationOfDuties: options.separationOfDuties ?? {},
        });
  const fixedWorkflows = typeof options.workflows === 'function' ? [] : (options.workflows ?? []);
  const live = new LiveUpdates(options.interlock, options.store, {
    pollInterval: options.pollInterval ?? 1000,
    expireDeadlines: options.expireDeadlines ?? true,
    now,
    warn: (message) => app.log.warn(message),
  });
  const context: WebContext = {
    interlock: options.interlock,
    store: options.store,
    access,
    sessions,
    live,
    startable: typeof options.workflows === 'function' ? options.workflows : () => Promise.resolve(fixedWorkflows),
    channel: options.channel ?? WEB_CHANNEL,
    ...(options.chat === undefined ? {} : { chatChannel: options.chat.channel }),
    now,
  };

  const routes: RegisteredRoute[] = [];
  app.addHook('onRoute', (route) => {
    for (const method of [route.method].flat()) if (method !== 'HEAD') routes.push({ method, url: route.url });
  });
  app.decorate('registeredRoutes', routes);
  app.decorate('liveUpdates', live);
  // JSON only: a cross-site form can post text/plain without asking first, so nothing else is read.
  app.removeContentTypeParser('text/plain');
  // One reading of every body: a key given twice, a __proto__ key or nesting deeper than 64 is refused (400 BAD_JSON).
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => {
    try {
      done(null, body === '' ? undefined : parseJsonStrictly(body as string));
    } catch (error) {
      done(
        InterlockError.is(error)
          ? new WebError(400, 'BAD_JSON', `the body was refused: ${error.message}`, { ...error.details })
          : (error as Error),
        undefined,
      );
    }
  });
  // Cookies are signed: one this server's key did not sign is refused before the store is read.
  await app.register(fastifyCookie, { secret: keys.cookieSecret });
  const limits = { ...DEFAULT_RATE_LIMITS, ...options.rateLimits };
  // Before the sign-in check, so probing ids or tokens is slowed down whatever the answer.
  await app.register(fastifyRateLimit, {
    max: limits.perMinute,
    timeWindow: 60_000,
    errorResponseBuilder: (_request, limit) =>
      new WebError(429, 'RATE_LIMITED', `too many requests from this client: wait ${limit.after} and slow down`),
  });
  app.decorateRequest('approver', undefined);
  app.decorateRequest('principal', undefined);
  app.decorateRequest('session', undefined);
  access.now = now;
  const recheck = new SessionRecheck(oidc, sessions, access, now, {
    info: (message) => app.log.info(message),
    warn: (message) => app.log.warn(message),
  });
  app.addHook('onRequest', createRequestGuard(access, sessions, recheck));
  app.addHook('onSend', async (_request, reply) => {
    reply.header('x-content-type-options', 'nosniff');
    reply.header('x-frame-options', 'DENY');
    reply.header('referrer-policy', 'no-referrer');
    reply.header(
      'content-security-policy',
      "default-src 'self'; style-src 'self'; script-src 'self'; connect-src 'self'; img-src 'self' data:; frame-ancestors 'none'",
    );
  });
  app.setErrorHandler((error, request, reply) => {
    const web = toWebError(error);
    if (web.statusCode >= 500) request.log.error({ err: error }, 'request failed');
    return reply.code(web.statusCode).send(web.toJSON());
  });
  app.setNotFoundHandler((request, reply) =>
    reply
      .code(404)
      .send(
        new WebError(
          404,
          'NOT_FOUND',
          `no route ${request.method} ${request.url.split('?')[0] ?? request.url}: GET /api/openapi.json lists the API`,
        ).toJSON(),
      ),
  );

  const document = createOpenApiDocument({
    ...(options.chat === undefined ? {} : CHAT_OPERATIONS),
    ...(oidc === undefined ? {} : OIDC_OPERATIONS),
  });
  app.get('/api/openapi.json', { config: { public: true } }, async () => document);
  registerHealthRoutes(app, [
    {
      name: 'store',
      check: async () => {
        await options.store.getGlobalVariables('interlock:health');
      },
    },
    ...(options.readiness ?? []).filter((check) => check.name !== 'store'),
  ]);
  registerReceiptRoutes(app, options.interlock);
  registerSessionRoutes(app, access, sessions, recheck, limits.signInPerMinute, oidc);
  if (oidc !== undefined)
    registerOidcRoutes(app, { oidc, sessions, access, keys, signInPerMinute: limits.signInPerMinute, now });
  registerInteractionRoutes(app, context);
  registerThreadRoutes(app, context);
  registerAuditRoutes(app, context);
  if (options.chat !== undefined) registerChatRoutes(app, options.chat, context);
  // A browser's stream lasts as long as its session; a bearer token's as long as the server.
  registerEventRoutes(app, live, (request) => {
    if (request.headers.authorization !== undefined)
      return request.approver !== undefined && access.has(request.approver);
    const session = sessions.peek(sessionIdOf(request));
    return session !== undefined && (session.oidc !== undefined || access.has(session.approver));
  });
  await registerStaticRoutes(app, options.publicDirectory ?? DEFAULT_PUBLIC_DIRECTORY);

  app.addHook('onReady', async () => live.start());
  app.addHook('onClose', async () => live.stop());
  return app;
}

function toWebError(error: unknown): WebError {
  if (error instanceof WebError) return error;
  if (InterlockError.is(error)) {
    if (error.code === 'THREAD_BUSY') return new WebError(409, 'THREAD_BUSY', error.message);
    if (error.code === 'THREAD_NOT_FOUND') return new WebError(404, 'THREAD_NOT_FOUND', error.message);
    if (error.code === 'INTERACTION_NOT_FOUND') return new WebError(404, 'INTERACTION_NOT_FOUND', error.message);
    if (error.code === 'WORKFLOW_NOT_FOUND') return new WebError(404, 'WORKFLOW_NOT_FOUND', error.message);
    if (error.code === 'STORE_UNAVAILABLE' || error.code === 'STORE_OUTCOME_UNKNOWN')
      return new WebError(503, error.code, error.message);
    return new WebError(500, 'INTERNAL', `${error.code}: ${error.message}`);
  }
  if (!(error instanceof Error))
    return new WebError(500, 'INTERNAL', 'the server failed to handle the request: see its log');
  const fastifyError: Partial<FastifyError> = error;
  if (fastifyError.validation !== undefined) {
    return new WebError(
      400,
      'BAD_REQUEST',
      `the request is not what this route takes: ${error.message}. See /api/openapi.json`,
    );
  }
  switch (fastifyError.code) {
    case 'FST_ERR_BAD_URL':
      return new WebError(
        400,
        'BAD_REQUEST',
        'the URL is not valid: percent-encode ids and names (encodeURIComponent)',
      );
    case 'FST_ERR_MAX_PARAM_LENGTH':
      return new WebError(400, 'BAD_REQUEST', 'an id in the URL is too long: ids are at most 100 characters');
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new WebError(413, 'BODY_TOO_LARGE', 'the request body is too large: send a smaller one');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new WebError(415, 'UNSUPPORTED_MEDIA_TYPE', 'send the body as application/json');
  }
  if (fastifyError.statusCode !== undefined && fastifyError.statusCode >= 400 && fastifyError.statusCode < 500) {
    return new WebError(400, 'BAD_REQUEST', `the request could not be read: ${error.message}`);
  }
  return new WebError(500, 'INTERNAL', 'the server failed to handle the request: see its log');
}

/** A request as logged: the query of a sign-in callback (its code and state) never reaches the log. */
function loggedRequest(request: FastifyRequest) {
  const [path = '', query] = request.url.split('?');
  return {
    method: request.method,
    url: query !== undefined && path.startsWith('/api/auth/') ? `${path}?[redacted]` : request.url,
    host: request.host,
    remoteAddress: request.ip,
  };
}

/** Fastify's logger, with every header that carries a secret redacted. */
const REDACTED_LOGGER = {
  level: 'info',
  serializers: { req: loggedRequest },
  redact: {
    paths: [
      'req.headers.authorization',
      'req.headers.cookie',
      'req.headers["x-csrf-token"]',
      'res.headers["set-cookie"]',
      'req.body.token',
    ],
    censor: '[redacted]',
  },
};
