import {
  calculateJwkThumbprint,
  exportJWK,
  generateKeyPair,
  importJWK,
  type CryptoKey,
  type JSONWebKeySet,
  type JWK,
} from 'jose';
import { RECEIPT_ALGORITHM } from './claims.js';

/** A key pair receipts are signed with: Ed25519, its public half published in a JWKS. */
export interface ReceiptKeyPair {
  /** The key's id: its RFC 7638 thumbprint, written in each receipt's header. */
  kid: string;
  /** The private key as a JWK (`kty: OKP`, `crv: Ed25519`, with `d`): keep it secret. */
  privateJwk: JWK;
  /** The public key as a JWK, as the JWKS lists it (`kid`, `alg`, `use: sig`). */
  publicJwk: JWK;
}

/** A private key ready to sign. */
export interface ReceiptSigningKey {
  kid: string;
  key: CryptoKey;
  publicJwk: JWK;
}

/** A new Ed25519 key pair for receipts. */
export async function generateReceiptKey(): Promise<ReceiptKeyPair> {
  const { privateKey } = await generateKeyPair(RECEIPT_ALGORITHM, { crv: 'Ed25519', extractable: true });
  return receiptKeyPair(await exportJWK(privateKey));
}

/**
 * The key pair of a private JWK (one given by environment, `INTERLOCK_RECEIPT_KEY`): its
 * id and public half. Throws a TypeError for anything but an Ed25519 private key.
 */
export async function receiptKeyPair(privateJwk: JWK): Promise<ReceiptKeyPair> {
  if (
    privateJwk.kty !== 'OKP' ||
    privateJwk.crv !== 'Ed25519' ||
    typeof privateJwk.d !== 'string' ||
    typeof privateJwk.x !== 'string'
  )
    throw new TypeError(
      'a receipt key is an Ed25519 private key as a JWK: {"kty":"OKP","crv":"Ed25519","x":"…","d":"…"}',
    );
  const publicOnly = { kty: 'OKP', crv: 'Ed25519', x: privateJwk.x };
  const kid = await calculateJwkThumbprint(publicOnly);
  return {
    kid,
    privateJwk: { ...publicOnly, d: privateJwk.d, kid, alg: RECEIPT_ALGORITHM },
    publicJwk: { ...publicOnly, kid, alg: RECEIPT_ALGORITHM, use: 'sig' },
  };
}

/** A key pair's private key, imported to sign receipts. */
export async function signingKeyOf(pair: ReceiptKeyPair): Promise<ReceiptSigningKey> {
  const key = await importJWK(pair.privateJwk, RECEIPT_ALGORITHM);
  if (key instanceof Uint8Array) throw new TypeError('a receipt key is an Ed25519 key pair, not a secret');
  return { kid: pair.kid, key, publicJwk: pair.publicJwk };
}

/** The JWKS of some public keys (each without its private part, whatever was given). */
export function jwksOf(keys: readonly JWK[]): JSONWebKeySet {
  return {
    keys: keys.map(({ kty, crv, x, kid, alg, use }) => ({
      ...(kty === undefined ? {} : { kty }),
      ...(crv === undefined ? {} : { crv }),
      ...(x === undefined ? {} : { x }),
      ...(kid === undefined ? {} : { kid }),
      alg: alg ?? RECEIPT_ALGORITHM,
      use: use ?? 'sig',
    })),
  };
}
