/**
 * Why a receipt was refused, as a stable code: a service may branch on it and log it (it
 * never holds the token or the arguments).
 */
export type ReceiptErrorCode =
  /** No receipt came with the call. */
  | 'RECEIPT_MISSING'
  /** Not a receipt: not a compact JWS, another type or algorithm, or claims missing or of the wrong kind. */
  | 'RECEIPT_MALFORMED'
  /** Signed by a key the JWKS does not hold: an unknown key, or one retired past its overlap. */
  | 'RECEIPT_KEY_UNKNOWN'
  /** The signature does not verify with the key it names. */
  | 'RECEIPT_SIGNATURE_INVALID'
  /** Its `exp` has passed. */
  | 'RECEIPT_EXPIRED'
  /** Issued in the future (its `iat` is later than now): a clock is wrong. */
  | 'RECEIPT_NOT_YET_VALID'
  /** Issued by another issuer than the one the service expects. */
  | 'RECEIPT_WRONG_ISSUER'
  /** It approves another tool. */
  | 'RECEIPT_WRONG_TOOL'
  /** It approves other arguments (an argument was changed after the approval). */
  | 'RECEIPT_WRONG_ARGUMENTS'
  /** It approves the tool under another definition than the one the service pins. */
  | 'RECEIPT_WRONG_DEFINITION'
  /** Seen before, and the service takes each receipt once (`once`). */
  | 'RECEIPT_REPLAYED';

/** A refused receipt (F63). Check `code`; the message says what to do. */
export class ReceiptError extends Error {
  override readonly name = 'ReceiptError';

  constructor(
    readonly code: ReceiptErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }

  /** Whether `error` is a refused receipt (across copies of this package too). */
  static is(error: unknown): error is ReceiptError {
    return (
      error instanceof ReceiptError ||
      (error instanceof Error &&
        error.name === 'ReceiptError' &&
        typeof (error as { code?: unknown }).code === 'string' &&
        (error as unknown as { code: string }).code.startsWith('RECEIPT_'))
    );
  }
}
