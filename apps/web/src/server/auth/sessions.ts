import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { ICheckpointStore } from '@interlock/core';

/** A signed-in approver's browser session: the cookie names it, the CSRF token must come back in a header. */
export interface Session {
  sessionId: string;
  approver: string;
  csrfToken: string;
  expiresAt: number;
}

/** How long a session lasts without signing in again. */
export const SESSION_LIFETIME_MS = 12 * 60 * 60 * 1000;

/** Where sessions are kept in the store (a scope no workflow id can take). */
export const SESSIONS_SCOPE = 'interlock:web-sessions';

/** How long a session read from the store is trusted before it is read again (a sign-out on another server). */
const RECHECK_MS = 5_000;

interface StoredSession {
  approver: string;
  csrfToken: string;
  expiresAt: number;
}

/**
 * Sessions, kept in the store so a restart (or another server on the same store) keeps
 * people signed in. The store holds only the SHA-256 of a session id, never the id the
 * cookie carries, so reading the store does not let anyone sign in. Sign-out and expiry end
 * a session everywhere; a server re-reads a session it holds every few seconds.
 */
export class SessionStore {
  private readonly cache = new Map<string, { session: Session; checkedAt: number }>();

  constructor(
    private readonly store: Pick<ICheckpointStore, 'commit' | 'getGlobalVariables'> | undefined,
    private readonly now: () => number = Date.now,
  ) {}

  async create(approver: string): Promise<Session> {
    const session: Session = {
      sessionId: randomBytes(32).toString('base64url'),
      approver,
      csrfToken: randomBytes(32).toString('base64url'),
      expiresAt: this.now() + SESSION_LIFETIME_MS,
    };
    const stored: StoredSession = { approver, csrfToken: session.csrfToken, expiresAt: session.expiresAt };
    await this.store?.commit({
      globals: [{ kind: 'set', scope: SESSIONS_SCOPE, name: keyOf(session.sessionId), value: stored }],
    });
    this.cache.set(session.sessionId, { session, checkedAt: this.now() });
    return session;
  }

  /** The live session a cookie names, or undefined (unknown, signed out, expired). */
  async get(sessionId: string | undefined): Promise<Session | undefined> {
    if (sessionId === undefined) return undefined;
    const cached = this.cache.get(sessionId);
    if (cached !== undefined && (this.store === undefined || this.now() - cached.checkedAt < RECHECK_MS))
      return this.live(sessionId, cached.session);
    if (this.store === undefined) return undefined;
    const stored = parseStored((await this.store.getGlobalVariables(SESSIONS_SCOPE))[keyOf(sessionId)]);
    if (stored === undefined) {
      this.cache.delete(sessionId);
      return undefined;
    }
    const session = { sessionId, ...stored };
    this.cache.set(sessionId, { session, checkedAt: this.now() });
    return this.live(sessionId, session);
  }

  /** The session as this server last saw it, without reading the store (for open event streams). */
  peek(sessionId: string | undefined): Session | undefined {
    const cached = sessionId === undefined ? undefined : this.cache.get(sessionId);
    return cached === undefined || sessionId === undefined ? undefined : this.live(sessionId, cached.session);
  }

  async delete(sessionId: string): Promise<void> {
    this.cache.delete(sessionId);
    await this.store?.commit({ globals: [{ kind: 'delete', scope: SESSIONS_SCOPE, name: keyOf(sessionId) }] });
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
  const { approver, csrfToken, expiresAt } = value as Record<string, unknown>;
  return typeof approver === 'string' && typeof csrfToken === 'string' && typeof expiresAt === 'number'
    ? { approver, csrfToken, expiresAt }
    : undefined;
}

/** Compares two secrets in constant time. */
export function sameSecret(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}
