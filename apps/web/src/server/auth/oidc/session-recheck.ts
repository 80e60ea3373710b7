import { WebError } from '../../web-error.js';
import type { ApproverDirectory } from '../approver-directory.js';
import type { Session, SessionStore } from '../sessions.js';
import { SignInProblem, type OidcSignIn } from './oidc-sign-in.js';

/** How long one server may take to re-check a person before another one may try. */
const RECHECK_LEASE_MS = 30_000;

/**
 * Keeps sessions of people signed in through the identity provider true to it (F58): a
 * session whose last confirmation is older than `recheckEvery` is confirmed again before the
 * request it came with is answered. A person the provider no longer accepts, or who is no
 * longer in a group that may sign in, is signed out at that request (401); a provider that
 * cannot be reached refuses the request (503) and the next one asks again. One server
 * re-checks a session at a time: it takes the session in the store first.
 */
export class SessionRecheck {
  private readonly running = new Map<string, Promise<Session>>();

  constructor(
    private readonly oidc: OidcSignIn | undefined,
    private readonly sessions: SessionStore,
    private readonly access: ApproverDirectory,
    private readonly now: () => number,
    private readonly log: { info(message: string): void; warn(message: string): void },
  ) {}

  /** The session, confirmed with the provider if it was due. @throws WebError 401 (ended) or 503 (provider away). */
  async current(session: Session): Promise<Session> {
    const state = session.oidc;
    if (state === undefined) return session;
    if (this.oidc === undefined) return this.end(session, 'sign-in with the identity provider is no longer configured');
    if (this.now() - state.checkedAt < this.oidc.recheckEveryMs) return this.vouched(session);
    let running = this.running.get(session.sessionId);
    if (running === undefined) {
      running = this.recheck(session).finally(() => this.running.delete(session.sessionId));
      this.running.set(session.sessionId, running);
    }
    return running;
  }

  /** Ends a session at sign-out: the provider's tokens are revoked where it can. */
  async signOut(session: Session): Promise<void> {
    this.access.forget(session.approver);
    await this.sessions.delete(session.sessionId);
    if (session.oidc !== undefined) await this.oidc?.revoke(session.oidc);
  }

  private async recheck(cached: Session): Promise<Session> {
    const oidc = this.oidc as OidcSignIn;
    const session = await this.sessions.get(cached.sessionId, true);
    if (session?.oidc === undefined) throw ended('it was signed out');
    const state = session.oidc;
    // Another server confirmed it meanwhile, or is confirming it now.
    if (this.now() - state.checkedAt < oidc.recheckEveryMs) return this.vouched(session);
    if (state.recheckingUntil !== undefined && state.recheckingUntil > this.now()) return this.vouched(session);
    const taken = {
      approver: session.approver,
      groups: session.groups,
      oidc: { ...state, recheckingUntil: this.now() + RECHECK_LEASE_MS },
    };
    if (!(await this.sessions.replace(session, taken)))
      return this.current((await this.sessions.get(session.sessionId)) ?? session);
    const mine = (await this.sessions.get(session.sessionId)) ?? session;
    try {
      const { principal, state: next } = await oidc.recheck(state, session.approver);
      await this.sessions.replace(mine, { approver: principal.name, groups: principal.groups, oidc: next });
      this.log.info(
        `sign-in: ${principal.name} confirmed by the identity provider (groups: ${principal.groups.join(', ') || 'none'})`,
      );
      return this.vouched({ ...mine, groups: principal.groups, oidc: next });
    } catch (error) {
      if (!(error instanceof SignInProblem)) throw error;
      if (error.kind === 'unavailable') {
        // Released at once, so the next request asks the provider again (fail closed meanwhile).
        const { recheckingUntil: _, ...released } = mine.oidc ?? state;
        await this.sessions
          .replace(mine, { approver: mine.approver, groups: mine.groups, oidc: released })
          .catch(() => false);
        this.log.warn(`sign-in: ${session.approver} could not be confirmed: ${error.message}`);
        throw new WebError(
          503,
          'SIGN_IN_UNAVAILABLE',
          `${error.message}: your access could not be confirmed, try again shortly`,
        );
      }
      return this.end(mine, error.message);
    }
  }

  private vouched(session: Session): Session {
    this.access.vouch({ name: session.approver, groups: session.groups }, session.expiresAt);
    return session;
  }

  private async end(session: Session, reason: string): Promise<never> {
    this.access.forget(session.approver);
    await this.sessions.delete(session.sessionId);
    this.log.info(`sign-in: the session of ${session.approver} ended: ${reason}`);
    throw ended(reason);
  }
}

function ended(reason: string): WebError {
  return new WebError(401, 'UNAUTHENTICATED', `your sign-in ended (${reason}): sign in again`);
}
