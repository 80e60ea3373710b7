import type { ErrorCode } from '@interlock/sdk-types';

const BRAND = Symbol.for('interlock.error');

/**
 * The one error class Interlock throws. `code` is stable (see docs/errors.md); `message`
 * says what happened and what to do.
 */
export class InterlockError extends Error {
  readonly [BRAND] = true;
  override readonly name = 'InterlockError';
  readonly code: ErrorCode;
  readonly details: Readonly<Record<string, unknown>>;

  constructor(code: ErrorCode, message: string, options: { details?: Record<string, unknown>; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.details = options.details ?? {};
  }

  /** True for an InterlockError, even one from another copy of this package. */
  static is(value: unknown): value is InterlockError {
    return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[BRAND] === true;
  }

  toJSON(): { code: ErrorCode; message: string; details: Readonly<Record<string, unknown>> } {
    return { code: this.code, message: this.message, details: this.details };
  }
}

/** Normalises anything thrown into an InterlockError (unknown throws become `INTERNAL`). */
export function toInterlockError(error: unknown, code: ErrorCode = 'INTERNAL'): InterlockError {
  if (InterlockError.is(error)) return error;
  const message = error instanceof Error ? error.message : String(error);
  return new InterlockError(code, message, { cause: error });
}

/**
 * A failure of the database rather than a refusal: STORE_UNAVAILABLE, STORE_OUTCOME_UNKNOWN,
 * or anything that is not an InterlockError (a driver's error). Worth trying again.
 */
export function isStoreFailure(error: unknown): boolean {
  return !InterlockError.is(error) || error.code === 'STORE_UNAVAILABLE' || error.code === 'STORE_OUTCOME_UNKNOWN';
}
