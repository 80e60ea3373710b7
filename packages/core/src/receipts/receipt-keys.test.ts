import { describe, expect, it } from 'vitest';
import { argumentsHash, generateReceiptKey, verifyReceipt, type ReceiptStatement } from '@interlock/receipts';
import type { Clock } from '../engine/clock.js';
import { InMemoryCheckpointStore } from '../persistence/memory/in-memory-checkpoint-store.js';
import type { GlobalChange } from '../persistence/unit-of-work.js';
import { RECEIPT_KEY_REFRESH_MS, ReceiptKeyRing } from './receipt-keys.js';
import { signReceiptNow } from './sign-now.js';
import { resolveReceiptOptions } from './receipt-options.js';

const args = { orderId: 'A-42' };
const statement = async (): Promise<ReceiptStatement> => ({
  tool: 'refund',
  def: 'd'.repeat(64),
  args: await argumentsHash(args),
  thread: 't',
  call: 'c',
  fence: 1,
  approvers: [],
  decidedBy: 'category:write',
  rule: 'category:write',
  decidedAt: new Date(0).toISOString(),
  audit: 'a'.repeat(64),
});

/** A ring on `store`, its writes committed as the answer desk's `keepGlobals` commits them. */
function keyRing(
  store: InMemoryCheckpointStore,
  clock: Clock,
  options: ConstructorParameters<typeof ReceiptKeyRing>[3],
) {
  const desk = {
    keepGlobals: async (globals: readonly GlobalChange[]) => (await store.commit({ globals })).status === 'committed',
  };
  return new ReceiptKeyRing(store, desk, clock, options);
}

function movableClock(start = Date.parse('2026-11-26T09:00:00Z')) {
  let now = start;
  return { clock: { now: () => now }, advance: (ms: number) => (now += ms) };
}

describe('the receipt keys of a deployment (F63)', () => {
  it('generates one key on first use, shared by every process on the store, never its private half in the JWKS', async () => {
    const store = new InMemoryCheckpointStore();
    const { clock } = movableClock();
    const first = keyRing(store, clock, { ttlSeconds: 300 });
    const second = keyRing(store, clock, { ttlSeconds: 300 });
    const key = await first.signingKey();
    expect((await second.signingKey()).kid).toBe(key.kid);
    const jwks = await second.jwks();
    expect(jwks.keys.map((jwk) => jwk.kid)).toEqual([key.kid]);
    expect(JSON.stringify(jwks)).not.toMatch(/"d"/);
  });

  it('rotates without refusing receipts signed by the previous key within the overlap, then drops it', async () => {
    const store = new InMemoryCheckpointStore();
    const { clock, advance } = movableClock();
    const ring = keyRing(store, clock, { ttlSeconds: 300 });
    const old = await ring.signingKey();
    const before = signReceiptNow(await statement(), old, { now: clock.now(), ttlSeconds: 300 });
    advance(60_000);
    const { kid, retired } = await ring.rotate();
    expect(retired).toEqual([old.kid]);
    // Another process moves to the new key within a refresh.
    const elsewhere = keyRing(store, clock, { ttlSeconds: 300 });
    expect((await elsewhere.signingKey()).kid).toBe(kid);
    expect((await ring.signingKey()).kid).toBe(kid);
    advance(200_000);
    const check = async (token: string) =>
      verifyReceipt(token, { jwks: await ring.jwks(), tool: 'refund', arguments: args, now: clock.now() });
    await expect(check(before)).resolves.toMatchObject({ tool: 'refund' });
    const after = signReceiptNow(await statement(), await ring.signingKey(), { now: clock.now(), ttlSeconds: 300 });
    await expect(check(after)).resolves.toMatchObject({ tool: 'refund' });
    // Past the overlap the retired key leaves the JWKS: what it signs now is refused.
    advance(300_000 + 2 * RECEIPT_KEY_REFRESH_MS);
    expect((await ring.jwks()).keys.map((jwk) => jwk.kid)).toEqual([kid]);
    const late = signReceiptNow(await statement(), old, { now: clock.now(), ttlSeconds: 300 });
    await expect(check(late)).rejects.toMatchObject({ code: 'RECEIPT_KEY_UNKNOWN' });
    // The audit still knows every key receipts were signed with.
    expect((await ring.archive()).keys.map((jwk) => jwk.kid).sort()).toEqual([kid, old.kid].sort());
    expect(await ring.list()).toMatchObject([
      { kid, source: 'generated' },
      { kid: old.kid, source: 'generated', retiredAt: expect.any(String) },
    ]);
  });

  it('signs with the key given by environment and publishes its public half; refuses a retired one', async () => {
    const store = new InMemoryCheckpointStore();
    const { clock } = movableClock();
    const given = await generateReceiptKey();
    const options = resolveReceiptOptions({}, { INTERLOCK_RECEIPT_KEY: JSON.stringify(given.privateJwk) });
    const ring = keyRing(store, clock, { ttlSeconds: 300, given: options.key });
    expect((await ring.signingKey()).kid).toBe(given.kid);
    // A process without the key (the web server serving the JWKS) publishes it too.
    const web = keyRing(store, clock, { ttlSeconds: 300 });
    expect((await web.jwks()).keys.map((jwk) => jwk.kid)).toContain(given.kid);
    expect(await web.retire(given.kid)).toBe(true);
    const restarted = keyRing(store, clock, { ttlSeconds: 300, given: options.key });
    await expect(restarted.signingKey()).rejects.toMatchObject({ code: 'INVALID_OPTIONS' });
    expect(() => resolveReceiptOptions({}, { INTERLOCK_RECEIPT_KEY: 'not json' })).toThrow(/not a JWK/);
    expect(() => resolveReceiptOptions({ ttlSeconds: 0 })).toThrow(/ttlSeconds/);
  });
});
