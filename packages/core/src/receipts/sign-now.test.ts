import { describe, expect, it } from 'vitest';
import {
  argumentsHash,
  generateReceiptKey,
  signingKeyOf,
  signReceipt,
  verifyReceipt,
  type ReceiptStatement,
} from '@interlock/receipts';
import { nodeSigningKeyOf, signReceiptNow } from './sign-now.js';

describe('signReceiptNow (F63)', () => {
  it('signs the same token as signReceipt, which a service verifies', async () => {
    const pair = await generateReceiptKey();
    const key = nodeSigningKeyOf(pair);
    const args = { orderId: 'A-42', amount: 1200 };
    const statement: ReceiptStatement = {
      tool: 'refund',
      def: 'd'.repeat(64),
      args: await argumentsHash(args),
      thread: 't-1',
      call: 'call_1',
      fence: 3,
      approvers: ['ann@example.com'],
      decidedBy: 'person',
      rule: 'ask:risk:MEDIUM',
      decidedAt: new Date(0).toISOString(),
      audit: 'a'.repeat(64),
    };
    const options = { issuer: 'shop', now: Date.now(), ttlSeconds: 60, jti: 'r-1' };
    const warnings: string[] = [];
    const onWarning = (warning: Error) => warnings.push(`${warning.name}: ${warning.message}`);
    process.on('warning', onWarning);

    const token = signReceiptNow(statement, key, options);

    // Node warns on the next tick (a deprecated key conversion did, on Node 24).
    await new Promise((resolve) => setImmediate(resolve));
    process.off('warning', onWarning);
    expect(warnings).toEqual([]);

    // Ed25519 signatures are deterministic: the same header and claims give the same token.
    expect(token).toBe(await signReceipt(statement, await signingKeyOf(pair), options));
    const jwks = { keys: [pair.publicJwk] };
    await expect(verifyReceipt(token, { jwks, tool: 'refund', arguments: args })).resolves.toMatchObject({
      jti: 'r-1',
      iss: 'shop',
      approvers: ['ann@example.com'],
    });
  });
});
