import type * as OpenAISdk from 'openai';

/** Why one attempt at a chat completion failed, in the terms the retry loop decides on. */
export type AttemptFailure =
  /** The server answered with an error status (`message` starts with it, as the SDK writes it). */
  | { kind: 'status'; status: number; message: string; retryAfterMs: number | undefined }
  /** No connection, or it broke before the answer was complete. */
  | { kind: 'connection'; message: string }
  /** No answer within `timeoutMs`. */
  | { kind: 'timeout'; message: string }
  /** The server reported an error inside an answer that began well (an SSE `error` event). */
  | { kind: 'reported'; message: string }
  /** Anything else, e.g. a reply that is not chat completions. */
  | { kind: 'other'; message: string };

/** What a failure message needs to say where it happened. */
export interface FailureContext {
  model: string;
  attempts: number;
  timeoutMs: number;
  /** Which API the server should speak (`anthropic`: Anthropic's Messages API); the advice says what to check of it. Default OpenAI's. */
  kind?: string;
}

/** The error classes of a Stainless-generated SDK (`openai`, `@anthropic-ai/sdk`): the same names and shape. */
export type SdkErrors =
  Pick<typeof OpenAISdk, 'APIConnectionError' | 'APIConnectionTimeoutError' | 'APIError'> | SdkErrorClasses;

/** The classes' shape, for an SDK other than openai's. */
interface SdkErrorClasses {
  APIConnectionError: abstract new (...args: never[]) => Error;
  APIConnectionTimeoutError: abstract new (...args: never[]) => Error;
  APIError: abstract new (...args: never[]) => Error & { status: number | undefined; headers: Headers | undefined };
}

/** Classifies an error thrown by the SDK (or by fetch underneath it); `sdk` is the loaded SDK module. */
export function classifyFailure(error: unknown, sdk: SdkErrors): AttemptFailure {
  // As the shared shape: `instanceof` on openai's generic APIError would type `headers` as any.
  const classes: SdkErrorClasses = sdk;
  const { APIConnectionError, APIConnectionTimeoutError, APIError } = classes;
  if (error instanceof APIConnectionTimeoutError) return { kind: 'timeout', message: error.message };
  if (error instanceof APIConnectionError) return { kind: 'connection', message: connectionMessage(error) };
  if (error instanceof APIError && typeof error.status === 'number') {
    return {
      kind: 'status',
      status: error.status,
      message: error.message,
      retryAfterMs: readRetryAfterMs(error.headers),
    };
  }
  if (error instanceof APIError) return { kind: 'reported', message: error.message };
  if (isBrokenConnection(error)) return { kind: 'connection', message: connectionMessage(error) };
  return { kind: 'other', message: error instanceof Error ? error.message : String(error) };
}

/** Rate limits, server errors and connection trouble are worth another try; other 4xx are not. */
export function isRetryable(failure: AttemptFailure): boolean {
  switch (failure.kind) {
    case 'status':
      return failure.status === 429 || failure.status >= 500;
    case 'connection':
    case 'timeout':
      return true;
    case 'reported':
    case 'other':
      return false;
  }
}

/**
 * The wait a server asked for, in milliseconds: `retry-after-ms`, or `retry-after` in seconds
 * or as an HTTP date. Undefined when absent or unreadable.
 */
export function readRetryAfterMs(headers: Headers | undefined): number | undefined {
  const milliseconds = Number.parseFloat(headers?.get('retry-after-ms') ?? '');
  if (Number.isFinite(milliseconds) && milliseconds >= 0) return milliseconds;
  const value = headers?.get('retry-after');
  if (!value) return undefined;
  const seconds = Number.parseFloat(value);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

/**
 * "<what happened> (after N attempts); <what to do>", the part of a failure message after
 * "failed: ". `advice` replaces the usual advice for the failure's kind.
 */
export function describeFailure(failure: AttemptFailure, context: FailureContext, advice?: string): string {
  const tries = context.attempts > 1 ? ` (after ${context.attempts} attempts)` : '';
  return `${describeWhat(failure, context)}${tries}; ${advice ?? adviceFor(failure, context)}`;
}

function describeWhat(failure: AttemptFailure, context: FailureContext): string {
  switch (failure.kind) {
    case 'timeout':
      return `no answer within ${context.timeoutMs} ms`;
    case 'connection':
      return `could not reach the server (${failure.message})`;
    case 'reported':
      return `the server reported an error in its answer (${failure.message})`;
    case 'other':
    case 'status':
      return failure.message;
  }
}

function adviceFor(failure: AttemptFailure, context: FailureContext): string {
  switch (failure.kind) {
    case 'timeout':
      return "raise timeoutMs, use a smaller model, or check the server's load";
    case 'connection':
      return context.kind === 'anthropic'
        ? 'check that it is running and that baseURL is right (https://api.anthropic.com, or your proxy of it)'
        : 'check that it is running and that baseURL is right (it usually ends in /v1)';
    case 'reported':
      return "check the server's logs, then run again";
    case 'other':
      return context.kind === 'anthropic'
        ? "check that the server speaks Anthropic's Messages API"
        : 'check that the server speaks the OpenAI chat-completions API';
    case 'status':
      return statusAdvice(failure.status, context);
  }
}

function statusAdvice(status: number, context: FailureContext): string {
  if (context.kind === 'anthropic') {
    if (status === 401 || status === 403) return 'check apiKey (ANTHROPIC_API_KEY): Anthropic did not accept it';
    if (status === 404)
      return `check that Anthropic has a model named "${context.model}" (e.g. claude-sonnet-4-5) and that baseURL is https://api.anthropic.com or your proxy of it`;
  }
  if (status === 401 || status === 403)
    return 'check apiKey: the server did not accept it (local servers usually need none)';
  if (status === 404) {
    return `check that the server has a model named "${context.model}" (Ollama: \`ollama pull ${context.model}\`) and that baseURL ends in /v1`;
  }
  if (status === 429)
    return 'the server is rate limiting: wait and run again, lower the request rate, or raise maxRetries';
  if (status >= 500) return 'the server kept failing: check its logs, try again later, or raise maxRetries';
  return "the server rejected the request: check that the model supports what the node uses (tools, temperature) and the server's message above";
}

/** The fetch errors behind a connection that broke mid-answer ("terminated", "fetch failed", ECONNRESET). */
function isBrokenConnection(error: unknown): error is Error {
  if (!(error instanceof Error)) return false;
  if (error instanceof TypeError && /terminated|fetch failed|socket/i.test(error.message)) return true;
  const code = errorCode(error);
  return typeof code === 'string' && /^(?:ECONN|EPIPE|ETIMEDOUT|UND_ERR)/.test(code);
}

/** The SDK says only "Connection error."; the cause names the real trouble (ECONNREFUSED, …). */
function connectionMessage(error: Error): string {
  const reasons = [error.message];
  let cause: unknown = error.cause;
  for (let depth = 0; depth < 3 && cause instanceof Error; depth += 1) {
    const code = errorCode(cause);
    reasons.push(typeof code === 'string' ? `${code}: ${cause.message}` : cause.message);
    cause = cause.cause;
  }
  return [...new Set(reasons.filter((reason) => reason !== ''))].join(' ← ');
}

function errorCode(error: Error): unknown {
  return 'code' in error ? error.code : undefined;
}
