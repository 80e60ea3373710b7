import * as client from 'openid-client';
import { isLoopbackHost } from '@interlock/core';
import { listNames, type Principal } from '../approvers.js';
import type { SessionKeys } from '../session-keys.js';
import type { OidcSessionState } from '../sessions.js';

/** How the web app signs people in with the organisation's identity provider (F58); `[auth.oidc]` of the project file. */
export interface OidcOptions {
  /** The issuer's URL: https, or http on a loopback address (a provider on this machine). */
  issuer: string;
  clientId: string;
  /** Without one the client is public: PKCE only. */
  clientSecret?: string;
  /** Default openid, email, profile. */
  scopes?: readonly string[];
  /** The claim that names the approver. Default `email`. */
  approverClaim?: string;
  /** The claim holding the person's groups. Default `groups`. */
  groupsClaim?: string;
  /** Who may sign in: names and `group:<name>`. */
  allowed: readonly string[];
  /** How often a signed-in person is confirmed again with the provider (ms). Default 60 000; 0 at every request. */
  recheckEveryMs?: number;
  /** Where the provider sends the browser back. Default `<the request's origin>/api/auth/callback`. */
  redirectUrl?: string;
  /** The sign-in button's text. */
  label?: string;
}

/** The default of {@link OidcOptions.recheckEveryMs}. */
export const DEFAULT_RECHECK_MS = 60_000;

/** A sign-in under way in one browser: kept sealed in a cookie until the provider sends it back. */
export interface LoginTransaction {
  state: string;
  nonce: string;
  verifier: string;
  redirectUri: string;
  expiresAt: number;
}

/** Why a sign-in or a re-check did not give a person. `unavailable`: the provider could not be asked; the others refuse. */
export class SignInProblem extends Error {
  constructor(
    readonly kind: 'refused' | 'not-allowed' | 'unavailable',
    message: string,
  ) {
    super(message);
    this.name = 'SignInProblem';
  }
}

/** What a sign-in or re-check gives: the person, and what their session keeps. */
export interface Vouched {
  principal: Principal;
  state: OidcSessionState;
}

/**
 * The authorization code flow with PKCE on openid-client (a certified relying party): the
 * provider's discovery document, the authorization URL, the code exchanged and its ID token
 * checked (signature, issuer, audience, expiry, nonce; the state and the PKCE verifier), and
 * the person confirmed again on an interval (a refresh token, or userinfo). Nothing here
 * logs or returns a token, a code or a secret.
 */
export class OidcSignIn {
  private discovered: Promise<client.Configuration> | undefined;
  readonly recheckEveryMs: number;
  private readonly approverClaim: string;
  private readonly groupsClaim: string;

  constructor(
    readonly options: OidcOptions,
    private readonly keys: SessionKeys,
    private readonly now: () => number,
  ) {
    const issuer = new URL(options.issuer);
    if (issuer.protocol !== 'https:' && !(issuer.protocol === 'http:' && isLoopbackHost(issuer.hostname)))
      throw new Error(
        `[auth.oidc] issuer must be an https URL (http only on this machine's loopback), not ${issuer.origin}`,
      );
    this.recheckEveryMs = options.recheckEveryMs ?? DEFAULT_RECHECK_MS;
    this.approverClaim = options.approverClaim ?? 'email';
    this.groupsClaim = options.groupsClaim ?? 'groups';
  }

  /** The provider's configuration, read once; a failed read is tried again at the next sign-in. */
  private configuration(): Promise<client.Configuration> {
    this.discovered ??= this.discover().catch((error: unknown) => {
      this.discovered = undefined;
      throw new SignInProblem('unavailable', `the identity provider could not be reached: ${describe(error)}`);
    });
    return this.discovered;
  }

  private async discover(): Promise<client.Configuration> {
    const issuer = new URL(this.options.issuer);
    const secret = this.options.clientSecret;
    const configuration = await client.discovery(
      issuer,
      this.options.clientId,
      secret === undefined ? { token_endpoint_auth_method: 'none' } : secret,
      secret === undefined ? client.None() : client.ClientSecretPost(secret),
      // http is allowed for a provider on a loopback address only (checked in the constructor).
      // eslint-disable-next-line @typescript-eslint/no-deprecated -- deprecated only to stand out; used on loopback only
      { timeout: 10, ...(issuer.protocol === 'http:' ? { execute: [client.allowInsecureRequests] } : {}) },
    );
    // The ID token's signature is checked against the provider's published keys too: an ID
    // token from the token endpoint is not trusted for coming over TLS alone (a proxy, a
    // compromised route, a provider's misconfigured endpoint could hand over a forged one).
    client.enableNonRepudiationChecks(configuration);
    return configuration;
  }

  /** Where to send the browser to sign in, and the transaction to keep until it comes back. */
  async begin(redirectUri: string): Promise<{ url: URL; transaction: LoginTransaction }> {
    const configuration = await this.configuration();
    const transaction: LoginTransaction = {
      state: client.randomState(),
      nonce: client.randomNonce(),
      verifier: client.randomPKCECodeVerifier(),
      redirectUri,
      expiresAt: this.now() + 10 * 60_000,
    };
    const url = client.buildAuthorizationUrl(configuration, {
      redirect_uri: redirectUri,
      scope: (this.options.scopes ?? ['openid', 'email', 'profile']).join(' '),
      code_challenge: await client.calculatePKCECodeChallenge(transaction.verifier),
      code_challenge_method: 'S256',
      state: transaction.state,
      nonce: transaction.nonce,
    });
    return { url, transaction };
  }

  /**
   * The provider's answer at the callback: the code exchanged with the verifier, the state and
   * the nonce checked, the ID token verified; then who the person is and whether they may sign in.
   * @throws SignInProblem
   */
  async finish(callbackUrl: URL, transaction: LoginTransaction): Promise<Vouched> {
    const configuration = await this.configuration();
    let tokens: client.TokenEndpointResponse & client.TokenEndpointResponseHelpers;
    try {
      tokens = await client.authorizationCodeGrant(configuration, callbackUrl, {
        pkceCodeVerifier: transaction.verifier,
        expectedState: transaction.state,
        expectedNonce: transaction.nonce,
        idTokenExpected: true,
      });
    } catch (error) {
      throw problemOf(error, 'the sign-in was refused');
    }
    const idToken = tokens.claims();
    if (idToken === undefined) throw new SignInProblem('refused', 'the identity provider sent no ID token');
    return this.vouch(configuration, idToken, tokens, undefined);
  }

  /**
   * Confirms a signed-in person with the provider again: a refresh token's grant (a new ID
   * token), or userinfo with the access token while it lasts. The provider refusing, or
   * saying the person is no longer allowed, ends the session.
   * @throws SignInProblem
   */
  async recheck(state: OidcSessionState, name: string): Promise<Vouched> {
    const configuration = await this.configuration();
    const refreshToken = state.refreshToken === undefined ? undefined : this.keys.unseal(state.refreshToken);
    const accessToken = state.accessToken === undefined ? undefined : this.keys.unseal(state.accessToken);
    let vouched: Vouched;
    if (refreshToken !== undefined) {
      let tokens: client.TokenEndpointResponse & client.TokenEndpointResponseHelpers;
      try {
        tokens = await client.refreshTokenGrant(configuration, refreshToken);
      } catch (error) {
        throw problemOf(error, 'the identity provider no longer accepts this sign-in');
      }
      const idToken = tokens.claims();
      vouched = await this.vouch(configuration, idToken ?? { sub: state.subject }, tokens, refreshToken);
    } else if (
      accessToken !== undefined &&
      (state.accessTokenExpiresAt === undefined || state.accessTokenExpiresAt > this.now())
    ) {
      const claims = await this.userInfo(configuration, accessToken, state.subject);
      vouched = this.principalFrom(
        { ...claims, sub: state.subject },
        {
          subject: state.subject,
          checkedAt: this.now(),
          accessToken: state.accessToken as string,
          ...(state.accessTokenExpiresAt === undefined ? {} : { accessTokenExpiresAt: state.accessTokenExpiresAt }),
        },
      );
    } else {
      throw new SignInProblem('refused', 'the sign-in ran out (the provider gave no refresh token)');
    }
    if (vouched.state.subject !== state.subject || vouched.principal.name !== name)
      throw new SignInProblem('refused', 'the identity provider now names someone else');
    return vouched;
  }

  /** Revokes the session's tokens at the provider, where it offers revocation (sign-out); failures are ignored. */
  async revoke(state: OidcSessionState): Promise<void> {
    const configuration = await this.configuration().catch(() => undefined);
    if (configuration?.serverMetadata().revocation_endpoint === undefined) return;
    for (const sealed of [state.refreshToken, state.accessToken]) {
      const token = sealed === undefined ? undefined : this.keys.unseal(sealed);
      if (token !== undefined) await client.tokenRevocation(configuration, token).catch(() => undefined);
    }
  }

  /** The person the tokens name: claims of the ID token, completed from userinfo when it lacks the approver or groups claim. */
  private async vouch(
    configuration: client.Configuration,
    idToken: client.IDToken | { sub: string },
    tokens: client.TokenEndpointResponse,
    previousRefreshToken: string | undefined,
  ): Promise<Vouched> {
    let claims: Record<string, unknown> = { ...idToken };
    if (!(this.approverClaim in claims && this.groupsClaim in claims) && tokens.access_token !== '') {
      claims = { ...(await this.userInfo(configuration, tokens.access_token, idToken.sub)), ...claims };
    }
    const refreshToken = tokens.refresh_token ?? previousRefreshToken;
    return this.principalFrom(claims, {
      subject: idToken.sub,
      checkedAt: this.now(),
      accessToken: this.keys.seal(tokens.access_token),
      ...(tokens.expires_in === undefined ? {} : { accessTokenExpiresAt: this.now() + tokens.expires_in * 1000 }),
      ...(refreshToken === undefined ? {} : { refreshToken: this.keys.seal(refreshToken) }),
    });
  }

  private async userInfo(configuration: client.Configuration, accessToken: string, subject: string) {
    try {
      return await client.fetchUserInfo(configuration, accessToken, subject);
    } catch (error) {
      throw problemOf(error, 'the identity provider no longer accepts this sign-in');
    }
  }

  private principalFrom(claims: Record<string, unknown>, state: OidcSessionState): Vouched {
    const name = claims[this.approverClaim];
    if (typeof name !== 'string' || name === '' || name.length > 200)
      throw new SignInProblem(
        'refused',
        `the identity provider gave no "${this.approverClaim}" claim to name the approver by`,
      );
    if (this.approverClaim === 'email' && claims['email_verified'] === false)
      throw new SignInProblem('refused', `the identity provider says ${name} is not verified`);
    const given = claims[this.groupsClaim];
    const groups = (Array.isArray(given) ? given : typeof given === 'string' ? [given] : []).filter(
      (group): group is string => typeof group === 'string' && group !== '',
    );
    const principal = { name, groups };
    if (!listNames(this.options.allowed, principal))
      throw new SignInProblem('not-allowed', `${name} is not allowed to sign in here: ask the server's operator`);
    return { principal, state };
  }
}

const UNAVAILABLE_CODES = new Set(['OAUTH_RESPONSE_IS_NOT_CONFORM', 'OAUTH_RESPONSE_IS_NOT_JSON']);

/** A provider's refusal (an error response, a token that does not verify, a wrong state) or an unreachable provider. */
function problemOf(error: unknown, refused: string): SignInProblem {
  if (error instanceof SignInProblem) return error;
  const unavailable = new SignInProblem(
    'unavailable',
    `the identity provider could not be reached: ${describe(error)}`,
  );
  if (error instanceof client.AuthorizationResponseError)
    return new SignInProblem('refused', `${refused} (${error.error})`);
  if (error instanceof client.ResponseBodyError)
    return error.status >= 500 ? unavailable : new SignInProblem('refused', `${refused} (${error.error})`);
  if (error instanceof client.WWWAuthenticateChallengeError)
    return error.status === 401 || error.status === 403 ? new SignInProblem('refused', refused) : unavailable;
  // A response that is not the protocol's (a 502 page) or no response at all: the provider is away.
  if (error instanceof client.ClientError && error.code !== undefined && !UNAVAILABLE_CODES.has(error.code))
    return new SignInProblem('refused', `${refused}: ${error.message}`);
  return unavailable;
}

/** An error's message, never its cause chain (which may carry a response body). */
function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
