import { SignJWT } from 'jose';
import { RECEIPT_ALGORITHM, RECEIPT_TYPE, type ReceiptClaims } from './claims.js';
import type { ReceiptSigningKey } from './keys.js';

/** What the issuer says about a call; the times, the id and the issuer are added when it is signed. */
export type ReceiptStatement = Omit<ReceiptClaims, 'iss' | 'jti' | 'iat' | 'exp'>;

/** How a receipt is signed. */
export interface SignOptions {
  /** The issuer (`iss`). Default `interlock`. */
  issuer?: string;
  /** When it is issued (ms since the epoch). Default now. */
  now?: number;
  /** How long it is valid, in seconds. Default 300. */
  ttlSeconds?: number;
  /** Its id. Default a random UUID. */
  jti?: string;
}

/** The default lifetime of a receipt: five minutes. */
export const DEFAULT_RECEIPT_TTL_SECONDS = 300;

/** The claims of a receipt of `statement`: the issuer, its id and its times added (see {@link SignOptions}). */
export function receiptClaims(statement: ReceiptStatement, options: SignOptions = {}): ReceiptClaims {
  const iat = Math.floor((options.now ?? Date.now()) / 1000);
  return {
    ...statement,
    iss: options.issuer ?? 'interlock',
    jti: options.jti ?? crypto.randomUUID(),
    iat,
    exp: iat + (options.ttlSeconds ?? DEFAULT_RECEIPT_TTL_SECONDS),
  };
}

/** The protected header of a receipt signed with the key `kid`. */
export function receiptHeader(kid: string): { alg: typeof RECEIPT_ALGORITHM; typ: typeof RECEIPT_TYPE; kid: string } {
  return { alg: RECEIPT_ALGORITHM, typ: RECEIPT_TYPE, kid };
}

/** Signs a receipt (F63): a compact JWS, `typ` {@link RECEIPT_TYPE}, EdDSA with `key`. */
export async function signReceipt(
  statement: ReceiptStatement,
  key: ReceiptSigningKey,
  options: SignOptions = {},
): Promise<string> {
  return new SignJWT({ ...receiptClaims(statement, options) }).setProtectedHeader(receiptHeader(key.kid)).sign(key.key);
}
