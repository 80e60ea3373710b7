/**
 * @packageDocumentation
 * Interlock's approval receipts (F63): a signed record of exactly which call was approved,
 * by whom, that the service a tool calls checks for itself with {@link verifyReceipt}.
 * Depends on `jose` only; runs wherever Web Crypto does.
 */
export { argumentsHash, canonicalJson, sha256Hex } from './canonical.js';
export {
  RECEIPT_ALGORITHM,
  RECEIPT_HEADER,
  RECEIPT_META_KEY,
  RECEIPT_TYPE,
  receiptClaimsOf,
  type ReceiptClaims,
} from './claims.js';
export {
  generateReceiptKey,
  jwksOf,
  receiptKeyPair,
  signingKeyOf,
  type ReceiptKeyPair,
  type ReceiptSigningKey,
} from './keys.js';
export { ReceiptError, type ReceiptErrorCode } from './receipt-error.js';
export { memorySeenStore, type ReceiptSeenStore } from './seen-store.js';
export {
  DEFAULT_RECEIPT_TTL_SECONDS,
  receiptClaims,
  receiptHeader,
  signReceipt,
  type ReceiptStatement,
  type SignOptions,
} from './sign.js';
export {
  ISSUED_AHEAD_SECONDS,
  localJwks,
  readReceipt,
  remoteJwks,
  verifyReceipt,
  type ReceiptKeys,
  type VerifyReceiptOptions,
} from './verify.js';
export type { JSONWebKeySet, JWK } from 'jose';
