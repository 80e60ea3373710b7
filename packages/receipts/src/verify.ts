import {
  createLocalJWKSet,
  createRemoteJWKSet,
  decodeJwt,
  decodeProtectedHeader,
  errors,
  jwtVerify,
  type JSONWebKeySet,
  type JWTVerifyGetKey,
} from 'jose';
import { argumentsHash } from './canonical.js';
import { RECEIPT_ALGORITHM, RECEIPT_TYPE, receiptClaimsOf, type ReceiptClaims } from './claims.js';
import { ReceiptError } from './receipt-error.js';
import type { ReceiptSeenStore } from './seen-store.js';

/** The public keys a receipt is checked against: a JWKS, or a resolver ({@link remoteJwks}, jose's own). */
export type ReceiptKeys = JSONWebKeySet | JWTVerifyGetKey;

/** What a service checks a receipt against: the call it is about to carry out. */
export interface VerifyReceiptOptions {
  /** Interlock's public keys: its JWKS (`interlock receipts keys`, or `/.well-known/jwks.json` of `interlock-web`). */
  jwks: ReceiptKeys;
  /** The tool this call is, by Interlock's name for it. */
  tool: string;
  /** The arguments the service is about to act on, as it received them (parsed JSON). */
  arguments: unknown;
  /** The definition pin the service accepts (the tool's definition hash); left out, any definition. */
  definition?: string;
  /** The issuer the service accepts (`iss`); left out, any. */
  issuer?: string;
  /** The time of the check (a Date or ms since the epoch). Default now. */
  now?: Date | number;
  /**
   * Seconds of clock difference tolerated on `exp` (default 0). A receipt issued up to
   * {@link ISSUED_AHEAD_SECONDS} (or this, if more) in the future is taken as clock skew.
   */
  clockToleranceSeconds?: number;
  /** Take each receipt once: its `jti` is recorded here, and a receipt seen before is refused (RECEIPT_REPLAYED). */
  once?: ReceiptSeenStore;
}

/** How far in the future a receipt may say it was issued (the signer's clock a little ahead) and still be taken. */
export const ISSUED_AHEAD_SECONDS = 30;

const resolvers = new WeakMap<JSONWebKeySet, JWTVerifyGetKey>();

/** A resolver for a JWKS held in memory, reused across checks (its keys are imported once). */
export function localJwks(jwks: JSONWebKeySet): JWTVerifyGetKey {
  let resolver = resolvers.get(jwks);
  if (resolver === undefined) {
    resolver = createLocalJWKSet(jwks);
    resolvers.set(jwks, resolver);
  }
  return resolver;
}

/** A resolver that fetches the JWKS from `url` (`https://interlock.example.com/.well-known/jwks.json`) and caches it. */
export function remoteJwks(
  url: string | URL,
  options?: { cacheMaxAgeMs?: number; timeoutMs?: number },
): JWTVerifyGetKey {
  return createRemoteJWKSet(new URL(url), {
    ...(options?.cacheMaxAgeMs === undefined ? {} : { cacheMaxAge: options.cacheMaxAgeMs }),
    ...(options?.timeoutMs === undefined ? {} : { timeoutDuration: options.timeoutMs }),
  });
}

/**
 * Checks an approval receipt (F63) against the call a service is about to carry out, and
 * returns its claims. Refuses (throws {@link ReceiptError}, with a stable `code`) a missing
 * or malformed receipt, one signed by a key the JWKS does not hold (unknown, or retired past
 * its overlap) or whose signature fails, an expired one, one for another tool, other
 * arguments or (with `definition`) another definition, and with `once` one seen before.
 *
 * @example
 * const claims = await verifyReceipt(request.headers['interlock-receipt'], {
 *   jwks, tool: 'http_fetch', arguments: { url: 'https://refunds.example.com/refund/42' }, once: seen,
 * });
 */
export async function verifyReceipt(token: unknown, options: VerifyReceiptOptions): Promise<ReceiptClaims> {
  if (typeof token !== 'string' || token.trim() === '')
    throw new ReceiptError(
      'RECEIPT_MISSING',
      'no approval receipt came with this call: refuse it (Interlock sends one with every call it approved)',
    );
  const now =
    options.now === undefined ? Date.now() : typeof options.now === 'number' ? options.now : options.now.getTime();
  const tolerance = options.clockToleranceSeconds ?? 0;
  const claims = receiptClaimsOf(await verifySignature(token.trim(), options, now, tolerance));
  if (claims.iat > now / 1000 + Math.max(tolerance, ISSUED_AHEAD_SECONDS))
    throw new ReceiptError(
      'RECEIPT_NOT_YET_VALID',
      'the receipt was issued in the future: check the clocks of Interlock and this service',
    );
  if (claims.tool !== options.tool)
    throw new ReceiptError('RECEIPT_WRONG_TOOL', `the receipt approves another tool, not ${options.tool}`);
  if (claims.args !== (await argumentsHash(options.arguments)))
    throw new ReceiptError(
      'RECEIPT_WRONG_ARGUMENTS',
      'the receipt approves other arguments than this call has: an argument changed after the approval',
    );
  if (options.definition !== undefined && claims.def !== options.definition)
    throw new ReceiptError(
      'RECEIPT_WRONG_DEFINITION',
      `the receipt approves ${options.tool} under another definition than the one this service pins`,
    );
  if (options.once !== undefined && !(await options.once.firstUse(claims.jti, claims.exp * 1000, now)))
    throw new ReceiptError('RECEIPT_REPLAYED', 'this receipt was used before: each approval lets its call run once');
  return claims;
}

/**
 * Checks that a receipt was signed by a key of `jwks`, as of when it was issued (its expiry
 * does not matter): for an audit of past calls, not for letting a call run. Returns its claims.
 */
export async function readReceipt(token: string, jwks: ReceiptKeys): Promise<ReceiptClaims> {
  let issuedAt: number;
  try {
    issuedAt = receiptClaimsOf(decodeJwt(token)).iat;
  } catch (error) {
    throw ReceiptError.is(error)
      ? error
      : new ReceiptError('RECEIPT_MALFORMED', 'the receipt is not a JWT', { cause: error });
  }
  return receiptClaimsOf(await verifySignature(token, { jwks }, issuedAt * 1000, 0));
}

async function verifySignature(
  token: string,
  options: Pick<VerifyReceiptOptions, 'jwks' | 'issuer'>,
  now: number,
  tolerance: number,
): Promise<Record<string, unknown>> {
  let header;
  try {
    header = decodeProtectedHeader(token);
  } catch (error) {
    throw new ReceiptError('RECEIPT_MALFORMED', 'the receipt is not a compact JWS', { cause: error });
  }
  if (header.typ !== RECEIPT_TYPE)
    throw new ReceiptError('RECEIPT_MALFORMED', `the token is not an Interlock receipt (typ ${String(header.typ)})`);
  if (typeof header.kid !== 'string') throw new ReceiptError('RECEIPT_MALFORMED', 'the receipt names no key (kid)');
  const keys = typeof options.jwks === 'function' ? options.jwks : localJwks(options.jwks);
  try {
    const { payload } = await jwtVerify(token, keys, {
      algorithms: [RECEIPT_ALGORITHM, 'Ed25519'],
      typ: RECEIPT_TYPE,
      currentDate: new Date(now),
      clockTolerance: tolerance,
      requiredClaims: ['exp', 'iat', 'jti'],
      ...(options.issuer === undefined ? {} : { issuer: options.issuer }),
    });
    return payload;
  } catch (error) {
    throw refusal(error);
  }
}

/** What a jose error means for a receipt. */
function refusal(error: unknown): ReceiptError {
  if (error instanceof errors.JWKSNoMatchingKey)
    return new ReceiptError(
      'RECEIPT_KEY_UNKNOWN',
      "the receipt is signed by a key Interlock's JWKS does not hold: an unknown key, or one retired past its overlap",
      { cause: error },
    );
  if (error instanceof errors.JWSSignatureVerificationFailed)
    return new ReceiptError(
      'RECEIPT_SIGNATURE_INVALID',
      'the receipt’s signature does not verify: it was altered or forged',
      { cause: error },
    );
  if (error instanceof errors.JWTExpired)
    return new ReceiptError('RECEIPT_EXPIRED', 'the receipt has expired: the call must be approved again', {
      cause: error,
    });
  if (error instanceof errors.JWTClaimValidationFailed && error.claim === 'iss')
    return new ReceiptError('RECEIPT_WRONG_ISSUER', 'the receipt was issued by another Interlock deployment', {
      cause: error,
    });
  if (error instanceof errors.JWTClaimValidationFailed && error.claim === 'nbf')
    return new ReceiptError('RECEIPT_NOT_YET_VALID', 'the receipt is not valid yet: check the clocks', {
      cause: error,
    });
  if (ReceiptError.is(error)) return error;
  return new ReceiptError(
    'RECEIPT_MALFORMED',
    `the receipt could not be read: ${error instanceof Error ? error.message : String(error)}`,
    { cause: error },
  );
}
