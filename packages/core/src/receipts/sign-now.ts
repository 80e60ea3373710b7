import { createPrivateKey, sign, type KeyObject } from 'node:crypto';
import {
  receiptClaims,
  receiptHeader,
  type ReceiptKeyPair,
  type ReceiptStatement,
  type SignOptions,
} from '@interlock/receipts';

/** A receipt key ready to sign in Node: its id and its private half as Node's own key object. */
export interface NodeSigningKey {
  kid: string;
  keyObject: KeyObject;
}

/** The signing key of `pair`, for {@link signReceiptNow}. */
export function nodeSigningKeyOf(pair: ReceiptKeyPair): NodeSigningKey {
  return { kid: pair.kid, keyObject: createPrivateKey({ key: pair.privateJwk, format: 'jwk' }) };
}

/**
 * Signs a receipt (F63) with Node's crypto, synchronously: the same compact JWS as
 * `signReceipt` of `@interlock/receipts` (which any runtime with Web Crypto can run), without
 * Web Crypto's hop to the thread pool and back, which cost every approved call a turn of the
 * event loop and jose's work around it.
 */
export function signReceiptNow(statement: ReceiptStatement, key: NodeSigningKey, options: SignOptions): string {
  const signed = `${base64url(receiptHeader(key.kid))}.${base64url(receiptClaims(statement, options))}`;
  return `${signed}.${sign(null, Buffer.from(signed), key.keyObject).toString('base64url')}`;
}

function base64url(value: object): string {
  return Buffer.from(JSON.stringify(value)).toString('base64url');
}
