import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { InterlockError } from '@interlock/core';

/**
 * Compares two secrets-derived strings in constant time (the length is not secret: both are
 * digests). A platform's signature is never compared with `===`.
 */
export function sameDigest(expected: string, given: string): boolean {
  const a = Buffer.from(expected, 'utf8');
  const b = Buffer.from(given, 'utf8');
  return a.length === b.length && timingSafeEqual(a, b);
}

/** HMAC-SHA256 of `body` with `secret`, as lower-case hex. */
export function hmacSha256Hex(secret: string, body: string | Buffer): string {
  return createHmac('sha256', secret).update(body).digest('hex');
}

/** SHA-256 of `body`, as lower-case hex. */
export function sha256Hex(body: string | Buffer): string {
  return createHash('sha256').update(body).digest('hex');
}

/**
 * Why a platform's request was refused before anything read it: its signature does not
 * hold (or the body cannot be read to check it), its timestamp is outside the window, it was
 * seen before, its body is larger than {@link MAX_PLATFORM_BODY}, or (Feishu) it does not
 * carry the app's verification token.
 */
export type RefusedRequest = 'bad_signature' | 'stale' | 'replayed' | 'too_large' | 'bad_token';

/** A refusal as the audit trail says it (`bad signature`, `too large`). */
export function refusalText(reason: RefusedRequest): string {
  return reason.replace('_', ' ');
}

/**
 * Refuses a signed request that is stale (its timestamp more than `windowMs` away from now,
 * in either direction) or replayed (the same signature seen within the window). Signatures are
 * remembered for twice the window, then forgotten: a request older than that is stale anyway.
 * The memory is this process's: each server behind a load balancer keeps its own.
 */
export class ReplayGuard {
  private readonly seen = new Map<string, number>();

  constructor(
    private readonly now: () => number,
    readonly windowMs = 5 * 60_000,
  ) {}

  /** `undefined` when the request may be read; it is then remembered. */
  check(timestampMs: number, signature: string): RefusedRequest | undefined {
    const now = this.now();
    if (!Number.isFinite(timestampMs) || Math.abs(now - timestampMs) > this.windowMs) return 'stale';
    this.forgetBefore(now - 2 * this.windowMs);
    if (this.seen.has(signature)) return 'replayed';
    this.seen.set(signature, now);
    return undefined;
  }

  private forgetBefore(cutoff: number): void {
    for (const [signature, at] of this.seen) {
      if (at >= cutoff) break;
      this.seen.delete(signature);
    }
  }
}

/**
 * The value of the environment variable `name`, for a secret the project file names
 * (`signingSecretEnv = "SLACK_SIGNING_SECRET"`). Fails closed: a connector never starts
 * without its secret (CHAT_PLATFORM_SECRET_MISSING), and the message names the variable, never a value.
 */
export function secretFromEnvironment(
  name: string | undefined,
  what: string,
  environment: NodeJS.ProcessEnv = process.env,
): string {
  const value = name === undefined ? undefined : environment[name];
  if (value === undefined || value.trim() === '') {
    throw new InterlockError(
      'CHAT_PLATFORM_SECRET_MISSING',
      name === undefined
        ? `${what} is not configured: name the environment variable that holds it in interlock.toml`
        : `${what} is missing: set the environment variable ${name} (it is never read from the file)`,
      { details: { variable: name ?? null } },
    );
  }
  return value;
}

/** The largest body a platform's request may have. */
export const MAX_PLATFORM_BODY = 1024 * 1024;

/**
 * A request's body as the bytes that arrived (signatures are computed over them, never over
 * JSON serialised again), or undefined when it is larger than `limit`.
 */
export async function readRawBody(request: IncomingMessage, limit = MAX_PLATFORM_BODY): Promise<Buffer | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    const buffer = chunk as Buffer;
    size += buffer.length;
    if (size > limit) return undefined;
    chunks.push(buffer);
  }
  return Buffer.concat(chunks);
}
