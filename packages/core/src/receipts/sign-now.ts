import { KeyObject, sign } from 'node:crypto';
import {
  receiptClaims,
  receiptHeader,
  type ReceiptSigningKey,
  type ReceiptStatement,
  type SignOptions,
} from '@interlock/receipts';

/** Each signing key as Node's own key object, made once. */
const keyObjects = new WeakMap<object, KeyObject>();

/**
 * Signs a receipt (F63) with Node's crypto, synchronously: the same compact JWS as
 * `signReceipt` of `@interlock/receipts` (which any runtime with Web Crypto can run), without
 * Web Crypto's hop to the thread pool and back, which cost every approved call ~50 µs of CPU
 * and a turn of the event loop.
 */
export function signReceiptNow(statement: ReceiptStatement, key: ReceiptSigningKey, options: SignOptions): string {
  let keyObject = keyObjects.get(key.key);
  if (keyObject === undefined) {
    keyObject = KeyObject.from(key.key as Parameters<typeof KeyObject.from>[0]);
    keyObjects.set(key.key, keyObject);
  }
  const signed = `${base64url(receiptHeader(key.kid))}.${base64url(receiptClaims(statement, options))}`;
  return `${signed}.${sign(null, Buffer.from(signed), keyObject).toString('base64url')}`;
}

function base64url(value: object): string {
  return Buffer.from(JSON.stringify(value)).toString('base64url');
}
