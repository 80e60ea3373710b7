import { DEFAULT_RECEIPT_TTL_SECONDS, type JWK } from '@interlock/receipts';
import { InterlockError } from '../errors/interlock-error.js';

/** Approval receipts (F63): a signed record of exactly which call was approved, handed to the tool with the call. */
export interface ReceiptOptions {
  /** Issue receipts. Default true (signing one costs about a tenth of a millisecond). */
  enabled?: boolean;
  /** How long a receipt is valid, in seconds (1 to 86 400). Default 300. */
  ttlSeconds?: number;
  /** The issuer (`iss`) receipts name. Default `interlock`. */
  issuer?: string;
  /**
   * The Ed25519 private key (a JWK, or its JSON) this process signs with. Default: the
   * environment's `INTERLOCK_RECEIPT_KEY`, else a key generated in the store on first use.
   * Never in the project file.
   */
  key?: JWK | string;
}

export interface ResolvedReceiptOptions {
  enabled: boolean;
  ttlSeconds: number;
  issuer: string;
  key?: JWK;
}

/** The environment variable a process's receipt key is given in (a private JWK as JSON). */
export const RECEIPT_KEY_ENV = 'INTERLOCK_RECEIPT_KEY';

/** `options` checked, the key read from the environment when not given. */
export function resolveReceiptOptions(
  options: ReceiptOptions = {},
  environment: NodeJS.ProcessEnv = process.env,
): ResolvedReceiptOptions {
  const ttlSeconds = options.ttlSeconds ?? DEFAULT_RECEIPT_TTL_SECONDS;
  if (!Number.isInteger(ttlSeconds) || ttlSeconds < 1 || ttlSeconds > 86_400)
    throw new InterlockError(
      'INVALID_OPTIONS',
      `receipts.ttlSeconds is a whole number of seconds from 1 to 86400, not ${String(ttlSeconds)}`,
    );
  const issuer = options.issuer ?? 'interlock';
  if (issuer.trim() === '') throw new InterlockError('INVALID_OPTIONS', 'receipts.issuer may not be empty');
  const given = options.key ?? environment[RECEIPT_KEY_ENV];
  const key = given === undefined || given === '' ? undefined : parseKey(given);
  return { enabled: options.enabled ?? true, ttlSeconds, issuer, ...(key === undefined ? {} : { key }) };
}

function parseKey(given: JWK | string): JWK {
  if (typeof given !== 'string') return given;
  try {
    const parsed: unknown = JSON.parse(given);
    if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) return parsed;
  } catch {
    // Reported below without the text: it is a secret.
  }
  throw new InterlockError(
    'INVALID_OPTIONS',
    `${RECEIPT_KEY_ENV} is not a JWK in JSON: give an Ed25519 private key as {"kty":"OKP","crv":"Ed25519","x":"…","d":"…"} (interlock receipts keys --generate prints one)`,
  );
}
