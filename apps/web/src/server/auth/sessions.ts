import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { GlobalsKeeper, ICheckpointStore } from '@interlock/core';
import type { Principal } from './approvers.js';

/**
 * What a session of a person signed in through the identity provider keeps: who the provider
 * says they are, when it last said so, and its tokens sealed with the session key (the store
 * never holds one in the clear).
 */
export interface OidcSessionState {
  /** The provider's `sub`: a re-check must name the same person. */
  subject: string;
  /** When the provider last confirmed the person and their groups (ms since the epoch). */
  checkedAt: number;
  refreshToken?: string;
  accessToken?: string;
  /** When the access token runs out (ms since the epoch). */
  accessTokenExpiresAt?: number;
  /** A server re-checks the person until then; the others go on with what is stored. */
  recheckingUntil?: number;
}

/** A signed-in approver's browser session: the cookie names it, the CSRF token must come back in a header. */
export interface Session {
  sessionId: string;
  approver: string;
  /** The groups the approver had when the session was made or last re-checked. */
  groups: readonly string[];
  csrfToken: string;
  expiresAt: number;
  /** For a person signed in through the identity provider. */
  oidc?: OidcSessionState;
}

/** How long a session lasts without signing in again, unless `[auth] sessionLifetime` says otherwise. */
export const SESSION_LIFETIME_MS = 12 * 60 * 60 * 1000;

/** Where sessions are kept in the store (a scope no workflow id can take). */
export const SESSIONS_SCOPE = 'interlock:web-sessions';

/** How long a session read from the store is trusted before it is read again (a sign-out on another server). */
const RECHECK_MS = 5_000;

type StoredSession = Omit<Session, 'sessionId'>;

/**
 * Where sessions and their key are kept: read from the store, written through the engine's
 * answer desk (`interlock.keepGlobals`, the one writer of what is not a thread's).
 */
export interface KeptGlobals {
  store: Pick<ICheckpointStore, 'getGlobalVariables'>;
  desk: GlobalsKeeper;
}

/**
 * Sessions, kept in the store so a restart (or another server on the same store) keeps
 * people signed in. The store holds only the SHA-256 of a session id, never the id the
 * cookie carries, so reading the store does not let anyone sign in. Sign-out and expiry end
 * a session everywhere; a server re-reads a session it holds every few seconds.
 */
export class SessionStore {
  /** Each session as last read here, with the value the store held (what a replace expects to find). */
  private readonly cache = new Map<string, { session: Session; raw: unknown; checkedAt: number }>();

  constructor(
    /** Undefined: kept in this process only. */
    private readonly kept: KeptGlobals | undefined,
    private readonly now: () => number = Date.now,
    /** How long a new session lasts. */
    readonly lifetimeMs: number = SESSION_LIFETIME_MS,
  ) {}

  async create(principal: Principal, oidc?: OidcSessionState): Promise<Session> {
    const stored: StoredSession = {
      approver: principal.name,
      groups: [...principal.groups],
      csrfToken: randomBytes(32).toString('base64url'),
      expiresAt: this.now() + this.lifetimeMs,
      ...(oidc === undefined ? {} : { oidc }),
    };
    const session: Session = { sessionId: randomBytes(32).toString('base64url'), ...stored };
    await this.kept?.desk.keepGlobals([
      { kind: 'set', scope: SESSIONS_SCOPE, name: keyOf(session.sessionId), value: stored },
    ]);
    this.cache.set(session.sessionId, { session, raw: stored, checkedAt: this.now() });
    return session;
  }

  /** The live session a cookie names, or undefined (unknown, signed out, expired). `fresh` reads the store whatever is cached. */
  async get(sessionId: string | undefined, fresh = false): Promise<Session | undefined> {
    if (sessionId === undefined) return undefined;
    const cached = this.cache.get(sessionId);
    if (cached !== undefined && !fresh && (this.kept === undefined || this.now() - cached.checkedAt < RECHECK_MS))
      return this.live(sessionId, cached.session);
    if (this.kept === undefined) return cached === undefined ? undefined : this.live(sessionId, cached.session);
    const raw = (await this.kept.store.getGlobalVariables(SESSIONS_SCOPE))[keyOf(sessionId)];
    const stored = parseStored(raw);
    if (stored === undefined) {
      this.cache.delete(sessionId);
      return undefined;
    }
    const session = { sessionId, ...stored };
    this.cache.set(sessionId, { session, raw, checkedAt: this.now() });
    return this.live(sessionId, session);
  }

  /**
   * Replaces a session as last read here with `next`, unless another server changed it since
   * (then nothing is written and false is returned: read it again).
   */
  async replace(session: Session, next: Omit<Session, 'sessionId' | 'csrfToken' | 'expiresAt'>): Promise<boolean> {
    const cached = this.cache.get(session.sessionId);
    if (cached === undefined) return false;
    const stored: StoredSession = {
      approver: next.approver,
      groups: [...next.groups],
      csrfToken: cached.session.csrfToken,
      expiresAt: cached.session.expiresAt,
      ...(next.oidc === undefined ? {} : { oidc: next.oidc }),
    };
    if (this.kept !== undefined) {
      const committed = await this.kept.desk.keepGlobals([
        {
          kind: 'compare-and-set',
          scope: SESSIONS_SCOPE,
          name: keyOf(session.sessionId),
          expected: cached.raw,
          value: stored,
        },
      ]);
      if (!committed) {
        this.cache.delete(session.sessionId);
        return false;
      }
    }
    this.cache.set(session.sessionId, {
      session: { sessionId: session.sessionId, ...stored },
      raw: stored,
      checkedAt: this.now(),
    });
    return true;
  }

  /** The session as this server last saw it, without reading the store (for open event streams). */
  peek(sessionId: string | undefined): Session | undefined {
    const cached = sessionId === undefined ? undefined : this.cache.get(sessionId);
    return cached === undefined || sessionId === undefined ? undefined : this.live(sessionId, cached.session);
  }

  async delete(sessionId: string): Promise<void> {
    this.cache.delete(sessionId);
    await this.kept?.desk.keepGlobals([{ kind: 'delete', scope: SESSIONS_SCOPE, name: keyOf(sessionId) }]);
  }

  private live(sessionId: string, session: Session): Session | undefined {
    if (session.expiresAt > this.now()) return session;
    this.cache.delete(sessionId);
    return undefined;
  }
}

function keyOf(sessionId: string): string {
  return createHash('sha256').update(sessionId).digest('hex');
}

function parseStored(value: unknown): StoredSession | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const { approver, groups, csrfToken, expiresAt, oidc } = value as Record<string, unknown>;
  if (typeof approver !== 'string' || typeof csrfToken !== 'string' || typeof expiresAt !== 'number') return undefined;
  const stored: StoredSession = {
    approver,
    groups: Array.isArray(groups) ? groups.filter((group): group is string => typeof group === 'string') : [],
    csrfToken,
    expiresAt,
  };
  if (typeof oidc !== 'object' || oidc === null) return stored;
  const state = oidc as Partial<OidcSessionState>;
  if (typeof state.subject !== 'string' || typeof state.checkedAt !== 'number') return undefined;
  return { ...stored, oidc: state as OidcSessionState };
}

/** Compares two secrets in constant time. */
export function sameSecret(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}
