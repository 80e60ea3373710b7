/** The stable codes of the web API's error bodies; docs/web.md lists each (web-error.test.ts checks). */
export const WEB_ERROR_CODES = [
  'UNAUTHENTICATED',
  'SIGN_IN_FAILED',
  'SIGN_IN_UNAVAILABLE',
  'CSRF_REJECTED',
  'NOT_AN_APPROVER',
  'BAD_REQUEST',
  'BAD_JSON',
  'RATE_LIMITED',
  'SEPARATION_OF_DUTIES',
  'APPROVAL_NOT_ALLOWED',
  'BODY_TOO_LARGE',
  'UNSUPPORTED_MEDIA_TYPE',
  'NOT_FOUND',
  'INTERACTION_NOT_FOUND',
  'INTERACTION_ALREADY_ANSWERED',
  'INTERACTION_EXPIRED',
  'INTERACTION_INVALID_RESPONSE',
  'THREAD_NOT_FOUND',
  'THREAD_BUSY',
  'THREAD_NOT_WAITING',
  'WORKFLOW_NOT_FOUND',
  'CHAT_NOT_FOUND',
  'WORKFLOW_VERSION_MISMATCH',
  'WORKFLOW_CHANGED',
  'STORE_UNAVAILABLE',
  'STORE_OUTCOME_UNKNOWN',
  'INTERNAL',
] as const;

/** One of {@link WEB_ERROR_CODES}. */
export type WebErrorCode = (typeof WEB_ERROR_CODES)[number];

/** What every error response carries: a stable code and a message that says what to do. */
export interface WebErrorBody {
  code: WebErrorCode;
  message: string;
  details?: Record<string, unknown>;
}

/** An HTTP error with a JSON body `{ code, message }`; thrown by routes, rendered by the error handler. */
export class WebError extends Error {
  constructor(
    readonly statusCode: number,
    readonly code: WebErrorCode,
    message: string,
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
    this.name = 'WebError';
  }

  toJSON(): WebErrorBody {
    return { code: this.code, message: this.message, ...(this.details === undefined ? {} : { details: this.details }) };
  }
}
