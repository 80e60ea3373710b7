import { describe, expect, it } from 'vitest';
import {
  argumentsHash,
  canonicalJson,
  generateReceiptKey,
  jwksOf,
  memorySeenStore,
  receiptKeyPair,
  ReceiptError,
  signingKeyOf,
  signReceipt,
  verifyReceipt,
  type ReceiptErrorCode,
  type ReceiptStatement,
} from './index.js';

const NOW = Date.parse('2026-11-26T09:00:00Z');
const args = { orderId: 'A-42', amount: 120, currency: 'EUR' };

async function statement(overrides: Partial<ReceiptStatement> = {}): Promise<ReceiptStatement> {
  return {
    tool: 'refund',
    def: 'd'.repeat(64),
    args: await argumentsHash(args),
    thread: 'thread-1',
    call: 'call-1',
    fence: 3,
    approvers: ['web:ada', 'web:grace'],
    decidedBy: 'person',
    rule: 'risk:high',
    decidedAt: new Date(NOW - 5_000).toISOString(),
    audit: 'a'.repeat(64),
    ...overrides,
  };
}

async function refusal(promise: Promise<unknown>): Promise<ReceiptErrorCode> {
  try {
    await promise;
  } catch (error) {
    if (ReceiptError.is(error)) return error.code;
    throw error;
  }
  throw new Error('the receipt was accepted');
}

describe('verifyReceipt (F63)', () => {
  it('accepts the call a receipt approves and returns what it says', async () => {
    const pair = await generateReceiptKey();
    const token = await signReceipt(await statement(), await signingKeyOf(pair), { now: NOW });
    const jwks = jwksOf([pair.publicJwk]);
    // Keys in another order are the same arguments.
    const claims = await verifyReceipt(token, {
      jwks,
      tool: 'refund',
      arguments: { currency: 'EUR', amount: 120, orderId: 'A-42' },
      definition: 'd'.repeat(64),
      now: NOW,
    });
    expect(claims).toMatchObject({ tool: 'refund', approvers: ['web:ada', 'web:grace'], thread: 'thread-1', fence: 3 });
    expect(claims.exp - claims.iat).toBe(300);
    expect(JSON.stringify(jwks)).not.toContain('"d"');
  });

  it('refuses a missing receipt, other arguments, another tool, another definition, an expired one and a replay', async () => {
    const pair = await generateReceiptKey();
    const token = await signReceipt(await statement(), await signingKeyOf(pair), { now: NOW, ttlSeconds: 60 });
    const jwks = jwksOf([pair.publicJwk]);
    const base = { jwks, tool: 'refund', arguments: args, now: NOW };
    expect(await refusal(verifyReceipt(undefined, base))).toBe('RECEIPT_MISSING');
    expect(await refusal(verifyReceipt('', base))).toBe('RECEIPT_MISSING');
    expect(await refusal(verifyReceipt(token, { ...base, arguments: { ...args, amount: 1200 } }))).toBe(
      'RECEIPT_WRONG_ARGUMENTS',
    );
    expect(await refusal(verifyReceipt(token, { ...base, tool: 'delete_account' }))).toBe('RECEIPT_WRONG_TOOL');
    expect(await refusal(verifyReceipt(token, { ...base, definition: 'e'.repeat(64) }))).toBe(
      'RECEIPT_WRONG_DEFINITION',
    );
    expect(await refusal(verifyReceipt(token, { ...base, now: NOW + 61_000 }))).toBe('RECEIPT_EXPIRED');
    expect(await refusal(verifyReceipt(token, { ...base, now: NOW - 60_000 }))).toBe('RECEIPT_NOT_YET_VALID');
    // A signer's clock a little ahead is skew, not a refusal.
    await expect(verifyReceipt(token, { ...base, now: NOW - 10_000 })).resolves.toMatchObject({ tool: 'refund' });
    expect(await refusal(verifyReceipt(token, { ...base, issuer: 'https://other.example' }))).toBe(
      'RECEIPT_WRONG_ISSUER',
    );
    const once = memorySeenStore();
    await verifyReceipt(token, { ...base, once });
    expect(await refusal(verifyReceipt(token, { ...base, once }))).toBe('RECEIPT_REPLAYED');
    // A refused check records nothing: the receipt is still unused for its own call elsewhere.
    const other = memorySeenStore();
    await refusal(verifyReceipt(token, { ...base, tool: 'other', once: other }));
    expect(other.size).toBe(0);
  });

  it('refuses a receipt signed by a key the JWKS does not hold, and one whose signature was altered', async () => {
    const trusted = await generateReceiptKey();
    const stranger = await generateReceiptKey();
    const jwks = jwksOf([trusted.publicJwk]);
    const base = { jwks, tool: 'refund', arguments: args, now: NOW };
    const forged = await signReceipt(await statement(), await signingKeyOf(stranger), { now: NOW });
    expect(await refusal(verifyReceipt(forged, base))).toBe('RECEIPT_KEY_UNKNOWN');
    // The stranger's signature under the trusted key's id.
    const [, payload, signature] = forged.split('.');
    const genuine = await signReceipt(await statement(), await signingKeyOf(trusted), { now: NOW });
    const [header] = genuine.split('.');
    expect(await refusal(verifyReceipt(`${header}.${payload}.${signature}`, base))).toBe('RECEIPT_SIGNATURE_INVALID');
    // Claims changed after signing (another amount's hash) do not verify.
    const changed = Buffer.from(
      JSON.stringify({
        ...JSON.parse(Buffer.from(genuine.split('.')[1]!, 'base64url').toString()),
        args: 'f'.repeat(64),
      }),
    ).toString('base64url');
    expect(await refusal(verifyReceipt(`${header}.${changed}.${genuine.split('.')[2]}`, base))).toBe(
      'RECEIPT_SIGNATURE_INVALID',
    );
    expect(await refusal(verifyReceipt('not.a.receipt', base))).toBe('RECEIPT_MALFORMED');
  });

  it('refuses another token signed with the same key (not a receipt)', async () => {
    const pair = await generateReceiptKey();
    const { SignJWT } = await import('jose');
    const key = await signingKeyOf(pair);
    const other = await new SignJWT({ ...(await statement()), iss: 'interlock', jti: 'x' })
      .setProtectedHeader({ alg: 'EdDSA', kid: pair.kid, typ: 'JWT' })
      .setIssuedAt(NOW / 1000)
      .setExpirationTime(NOW / 1000 + 60)
      .sign(key.key);
    expect(
      await refusal(
        verifyReceipt(other, { jwks: jwksOf([pair.publicJwk]), tool: 'refund', arguments: args, now: NOW }),
      ),
    ).toBe('RECEIPT_MALFORMED');
  });

  it('keeps a key id stable from its private JWK, and refuses anything but an Ed25519 private key', async () => {
    const pair = await generateReceiptKey();
    expect((await receiptKeyPair(pair.privateJwk)).kid).toBe(pair.kid);
    await expect(receiptKeyPair({ kty: 'EC', crv: 'P-256', x: 'a', y: 'b', d: 'c' })).rejects.toThrow(/Ed25519/);
    await expect(receiptKeyPair(pair.publicJwk)).rejects.toThrow(/Ed25519 private key/);
  });
});

describe('canonical JSON (F62, F63)', () => {
  it('writes equal values as equal text, whatever the order of their keys', () => {
    expect(canonicalJson({ b: [{ z: 1, a: null }], a: 'x' })).toBe('{"a":"x","b":[{"a":null,"z":1}]}');
  });
});
