import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import type { KeptGlobals } from './sessions.js';

/** Where the session key is kept when no environment variable gives one (a scope no workflow id can take). */
export const KEYS_SCOPE = 'interlock:web-keys';

/** The shortest session secret accepted from the environment. */
export const MIN_SECRET_LENGTH = 32;

/**
 * The keys behind sessions: one signs the cookies (a cookie that was not signed here is
 * refused before any store is read), one seals the identity provider's tokens kept with a
 * session (AES-256-GCM: the store never holds a refresh or access token in the clear). Both
 * are derived from one secret: `[auth] sessionSecretEnv`'s variable, or a random secret made
 * once and kept in the store, shared by every server on it.
 */
export class SessionKeys {
  /** The secret @fastify/cookie signs cookies with (HMAC-SHA256). */
  readonly cookieSecret: string;
  private readonly sealKey: Buffer;

  private constructor(secret: string) {
    this.cookieSecret = Buffer.from(derive(secret, 'interlock web cookies')).toString('base64url');
    this.sealKey = Buffer.from(derive(secret, 'interlock web sealed tokens'));
  }

  /** Keys from `secret` (the environment's), or from the secret kept in the store (made there if missing). */
  static async resolve(kept: KeptGlobals | undefined, secret?: string): Promise<SessionKeys> {
    if (secret !== undefined) {
      if (secret.length < MIN_SECRET_LENGTH)
        throw new Error(
          `the session secret must be at least ${MIN_SECRET_LENGTH} characters: make one with openssl rand -base64 32`,
        );
      return new SessionKeys(secret);
    }
    if (kept === undefined) return new SessionKeys(randomBytes(32).toString('base64url'));
    // The first server to start makes it; every other one (and every restart) reads that one.
    await kept.desk.keepGlobals([
      { kind: 'set-if-absent', scope: KEYS_SCOPE, name: 'session', value: randomBytes(32).toString('base64url') },
    ]);
    const key = (await kept.store.getGlobalVariables(KEYS_SCOPE))['session'];
    if (typeof key !== 'string' || key.length < MIN_SECRET_LENGTH)
      throw new Error(`the session key kept in the store (${KEYS_SCOPE}) is not readable: delete it to make a new one`);
    return new SessionKeys(key);
  }

  /** `text` encrypted and authenticated: `<iv>.<ciphertext>.<tag>`, base64url. */
  seal(text: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.sealKey, iv);
    const sealed = Buffer.concat([cipher.update(text, 'utf8'), cipher.final()]);
    return [iv, sealed, cipher.getAuthTag()].map((part) => part.toString('base64url')).join('.');
  }

  /** The text `seal` sealed, or undefined when it was sealed with another key or changed. */
  unseal(sealed: string): string | undefined {
    const [iv, text, tag] = sealed.split('.').map((part) => Buffer.from(part, 'base64url'));
    if (iv === undefined || text === undefined || tag === undefined || iv.length !== 12 || tag.length !== 16)
      return undefined;
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.sealKey, iv);
      decipher.setAuthTag(tag);
      return Buffer.concat([decipher.update(text), decipher.final()]).toString('utf8');
    } catch {
      return undefined;
    }
  }
}

function derive(secret: string, purpose: string): ArrayBuffer {
  return hkdfSync('sha256', Buffer.from(secret, 'utf8'), Buffer.alloc(0), purpose, 32);
}
