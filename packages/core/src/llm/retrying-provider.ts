/**
 * What every HTTP model provider shares (issue 16: a provider is one small file): one
 * attempt with its own idle timer, retries of rate limits, server errors and lost
 * connections with exponential backoff, a `Retry-After` honoured up to a minute, no retry
 * once text has streamed, cancellation through the request's signal, and failures as
 * `MODEL_FAILED` with the key redacted.
 *
 * @module
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { InterlockError } from '../errors/interlock-error.js';
import type { ModelProvider, ModelRequest, ModelResponse } from './model-provider.js';
import { describeFailure, isRetryable, type AttemptFailure } from './openai-failure.js';

/** As long as the SDKs wait by default: local models can be slow to start. */
export const DEFAULT_TIMEOUT_MS = 600_000;

/** A `Retry-After` longer than this is not waited out: the run fails and says when to come back. */
const LONGEST_RETRY_AFTER_MS = 60_000;

/** The options every HTTP provider takes about its connection and retries. */
export interface ConnectionOptions {
  /** Retries after a 429, a 5xx, a timeout or a lost connection (default 3); other 4xx are not retried. */
  maxRetries?: number;
  /** The longest wait in milliseconds for the server to start answering and, when streaming, between two chunks (default 600000). */
  timeoutMs?: number;
  /** Stream the answer and report text through `onTextDelta` (default true). */
  stream?: boolean;
  /** The first retry's delay in milliseconds (default 500); it doubles with each retry. */
  initialRetryDelayMs?: number;
  /** The longest delay between retries in milliseconds (default 8000). */
  maxRetryDelayMs?: number;
}

/** A provider's one try, and how its errors read. */
export interface ProviderTransport {
  /** `openai:gpt-4o-mini`. */
  name: string;
  /** How messages name the server: `openai-compatible`, `anthropic`. */
  kind: string;
  model: string;
  baseURL: string;
  apiKey?: string;
  settings: Settings;
  /** Sends the request once; `attempt.signal` aborts it, `attempt.onActivity()` on every chunk. */
  send(request: ModelRequest, attempt: Attempt): Promise<ModelResponse>;
  /** What an error thrown by `send` means for the retry loop. */
  classify(error: unknown): Promise<AttemptFailure>;
}

/**
 * A {@link ModelProvider} that sends through `transport`, retrying what is worth retrying.
 * `complete` throws MODEL_FAILED when the server fails after the retries, rejects the
 * request (4xx), or the request is aborted (`details.aborted` is then true).
 */
export function retryingProvider(transport: ProviderTransport): ModelProvider {
  const { settings, model, baseURL, apiKey } = transport;
  const where = `${transport.kind} model ${model} at ${displayURL(baseURL)}`;
  const redact = (text: string): string => (apiKey ? text.split(apiKey).join('***') : text);

  const failed = (failure: AttemptFailure, attempts: number, error: unknown, advice?: string): InterlockError =>
    new InterlockError(
      'MODEL_FAILED',
      `${where} failed: ${describeFailure(failure, { model, attempts, timeoutMs: settings.timeoutMs, kind: transport.kind }, advice)}`,
      {
        details: {
          model,
          baseURL: displayURL(baseURL),
          attempts,
          ...(failure.kind === 'status' ? { status: failure.status } : {}),
        },
        cause: redactCause(error, redact),
      },
    );

  const cancelled = (signal: AbortSignal): InterlockError =>
    new InterlockError('MODEL_FAILED', `${where} was cancelled: the request's signal was aborted`, {
      details: { model, baseURL: displayURL(baseURL), aborted: true },
      cause: signal.reason,
    });

  return {
    name: transport.name,
    async complete(request) {
      for (let attempts = 1; ; attempts += 1) {
        if (request.signal.aborted) throw cancelled(request.signal);
        const attempt = startAttempt(request.signal, settings.timeoutMs);
        let failure: AttemptFailure;
        try {
          const response = await transport.send(request, attempt);
          // The SDKs end a stream quietly when its signal aborts: what arrived is not the answer.
          // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- it may abort during the await
          if (request.signal.aborted) throw cancelled(request.signal);
          if (attempt.timedOut) throw new AttemptTimedOut();
          return response;
        } catch (error) {
          // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- it may abort during the await
          if (request.signal.aborted) throw cancelled(request.signal);
          if (InterlockError.is(error)) throw error;
          const classified =
            attempt.timedOut || error instanceof AttemptTimedOut
              ? { kind: 'timeout' as const, message: 'timed out' }
              : await transport.classify(error);
          // Only the server's words can carry the key (some servers echo it back).
          failure = { ...classified, message: redact(classified.message) };
          if (attempt.streamedText) {
            // Retrying would stream the same text a second time to whoever is listening.
            const what = failure.kind === 'timeout' ? `no chunk within ${settings.timeoutMs} ms` : failure.message;
            const message = `the stream broke after text had arrived (${what})`;
            throw failed(
              { kind: 'other', message },
              attempts,
              error,
              'it is not retried, since the text was already streamed: run the node again',
            );
          }
          if (!isRetryable(failure) || attempts > settings.maxRetries) throw failed(failure, attempts, error);
          const retryAfterMs = failure.kind === 'status' ? failure.retryAfterMs : undefined;
          if (retryAfterMs !== undefined && retryAfterMs > LONGEST_RETRY_AFTER_MS) {
            const wait = `the server asked to wait ${Math.ceil(retryAfterMs / 1000)} s, longer than Interlock waits between retries (${LONGEST_RETRY_AFTER_MS / 1000} s): try again later`;
            throw failed(failure, attempts, error, wait);
          }
          try {
            await sleep(retryAfterMs ?? backoffMs(attempts, settings), undefined, { signal: request.signal });
          } catch {
            throw cancelled(request.signal);
          }
        } finally {
          attempt.stop();
        }
      }
    },
  };
}

/** An attempt that ended without data for `timeoutMs`. */
class AttemptTimedOut extends Error {}

/** One try at a completion: its own signal, so an idle timer can end it without ending the run. */
export interface Attempt {
  readonly signal: AbortSignal;
  readonly timedOut: boolean;
  /** True once text went to `onTextDelta`: a retry would then repeat it. */
  streamedText: boolean;
  /** Data arrived: restart the idle timer. */
  onActivity(): void;
  stop(): void;
}

/**
 * Starts an attempt that aborts with `signal`, or after `timeoutMs` without data. The SDK's
 * own timeout stops at the response headers; a stream that stalls later would hang forever.
 */
export function startAttempt(signal: AbortSignal, timeoutMs: number): Attempt {
  const controller = new AbortController();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const attempt = {
    signal: AbortSignal.any([signal, controller.signal]),
    timedOut: false,
    streamedText: false,
    onActivity() {
      clearTimeout(timer);
      timer = setTimeout(() => {
        attempt.timedOut = true;
        controller.abort();
      }, timeoutMs);
    },
    stop() {
      clearTimeout(timer);
    },
  };
  attempt.onActivity();
  return attempt;
}

export interface Settings {
  stream: boolean;
  timeoutMs: number;
  maxRetries: number;
  initialRetryDelayMs: number;
  maxRetryDelayMs: number;
}

/**
 * Checks a provider's options: `baseURL` an http(s) URL, `model` not empty, numbers ≥ 0.
 * @throws InterlockError INVALID_OPTIONS naming `provider` (`openAICompatible`).
 */
export function validateSettings(
  provider: string,
  options: ConnectionOptions & { baseURL: string; model: string },
  example: { baseURL: string; model: string },
): Settings {
  const invalid = (message: string): InterlockError => new InterlockError('INVALID_OPTIONS', `${provider}: ${message}`);
  let url: URL;
  try {
    url = new URL(options.baseURL);
  } catch {
    throw invalid(`baseURL "${displayURL(options.baseURL)}" is not a URL: use e.g. ${example.baseURL}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw invalid(`baseURL must be http(s), not ${url.protocol}: use e.g. ${example.baseURL}`);
  }
  if (options.timeoutMs !== undefined && !(options.timeoutMs > 0))
    throw invalid(`timeoutMs must be a number > 0, got ${options.timeoutMs}`);
  if (options.model.trim() === '')
    throw invalid(`model is empty: name the model as the server knows it, e.g. ${example.model}`);
  const count = (name: string, value: number | undefined, fallback: number, integer: boolean): number => {
    if (value === undefined) return fallback;
    if (!(value >= 0) || !Number.isFinite(value) || (integer && !Number.isInteger(value))) {
      throw invalid(`${name} must be a ${integer ? 'whole ' : ''}number ≥ 0, got ${value}`);
    }
    return value;
  };
  return {
    stream: options.stream ?? true,
    timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    maxRetries: count('maxRetries', options.maxRetries, 3, true),
    initialRetryDelayMs: count('initialRetryDelayMs', options.initialRetryDelayMs, 500, false),
    maxRetryDelayMs: count('maxRetryDelayMs', options.maxRetryDelayMs, 8000, false),
  };
}

/** Exponential backoff with up to 25 % jitter, so clients that failed together do not retry together. */
function backoffMs(attempts: number, settings: Settings): number {
  const delay = Math.min(settings.initialRetryDelayMs * 2 ** (attempts - 1), settings.maxRetryDelayMs);
  return delay * (1 - Math.random() * 0.25);
}

/** The base URL for messages: credentials in it (`https://user:secret@host`) are dropped. */
export function displayURL(baseURL: string): string {
  try {
    const url = new URL(baseURL);
    url.username = '';
    url.password = '';
    return url.toString().replace(/\/$/, '');
  } catch {
    return baseURL.replace(/\/\/[^/@]*@/, '//');
  }
}

/** Keeps the SDK's error as the cause unless its message repeats the key (some servers echo it). */
function redactCause(error: unknown, redact: (text: string) => string): unknown {
  if (!(error instanceof Error) || redact(error.message) === error.message) return error;
  const copy = new Error(redact(error.message));
  copy.name = error.name;
  return copy;
}
