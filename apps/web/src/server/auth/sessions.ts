import { randomBytes, timingSafeEqual } from 'node:crypto';

/** A signed-in approver's browser session: the cookie names it, the CSRF token must come back in a header. */
export interface Session {
  sessionId: string;
  approver: string;
  csrfToken: string;
  expiresAt: number;
}

/** How long a session lasts without signing in again. */
export const SESSION_LIFETIME_MS = 12 * 60 * 60 * 1000;

/**
 * Sessions of this process, in memory: a restart signs everybody out (the token signs them
 * in again); nothing secret is written to disk.
 */
export class SessionStore {
  private readonly sessions = new Map<string, Session>();

  constructor(private readonly now: () => number = Date.now) {}

  create(approver: string): Session {
    const session: Session = {
      sessionId: randomBytes(32).toString('base64url'),
      approver,
      csrfToken: randomBytes(32).toString('base64url'),
      expiresAt: this.now() + SESSION_LIFETIME_MS,
    };
    this.sessions.set(session.sessionId, session);
    return session;
  }

  get(sessionId: string | undefined): Session | undefined {
    if (sessionId === undefined) return undefined;
    const session = this.sessions.get(sessionId);
    if (session === undefined) return undefined;
    if (session.expiresAt <= this.now()) {
      this.sessions.delete(sessionId);
      return undefined;
    }
    return session;
  }

  delete(sessionId: string): void {
    this.sessions.delete(sessionId);
  }
}

/** Compares two secrets in constant time. */
export function sameSecret(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}
