import { createInterlock } from '@interlock/core';
import { InMemoryCheckpointStore } from '@interlock/core/testing';
import { describe, expect, it } from 'vitest';
import { SessionKeys } from './session-keys.js';

describe('the session keys', () => {
  it('seals a token so only the same key opens it, and a changed seal opens for nobody', async () => {
    const keys = await SessionKeys.resolve(undefined, 'a'.repeat(32));
    const sealed = keys.seal('a-refresh-token');
    expect(sealed).not.toContain('a-refresh-token');
    expect(keys.unseal(sealed)).toBe('a-refresh-token');
    expect((await SessionKeys.resolve(undefined, 'b'.repeat(32))).unseal(sealed)).toBeUndefined();
    const [iv = '', text = '', tag = ''] = sealed.split('.');
    const changed = `${text.startsWith('A') ? 'B' : 'A'}${text.slice(1)}`;
    expect(keys.unseal([iv, changed, tag].join('.'))).toBeUndefined();
  });

  it('makes one key for every server on a store, and keeps it across restarts', async () => {
    const store = new InMemoryCheckpointStore();
    // Two servers, each with its engine, on one store: the key is written through their answer desks.
    const one = await createInterlock({ store: { type: 'custom', store } });
    const two = await createInterlock({ store: { type: 'custom', store } });
    try {
      const [first, second] = await Promise.all([
        SessionKeys.resolve({ store, desk: one }),
        SessionKeys.resolve({ store, desk: two }),
      ]);
      expect(second.cookieSecret).toBe(first.cookieSecret);
      expect(second.unseal(first.seal('shared'))).toBe('shared');
      const restarted = await SessionKeys.resolve({ store, desk: one });
      expect(restarted.cookieSecret).toBe(first.cookieSecret);
    } finally {
      await one.close();
      await two.close();
    }
  });

  it('refuses a secret from the environment that is too short to sign with', async () => {
    await expect(SessionKeys.resolve(undefined, 'short')).rejects.toThrow('at least 32 characters');
  });
});
