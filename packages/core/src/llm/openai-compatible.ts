/**
 * A model provider for any server that speaks OpenAI's chat-completions API, built on the
 * official `openai` SDK (6.x, the newest major that still runs on Node 20).
 *
 * Base URLs of common servers:
 *
 * | server    | baseURL                     | apiKey                 |
 * |-----------|-----------------------------|------------------------|
 * | OpenAI    | https://api.openai.com/v1   | required               |
 * | Ollama    | http://localhost:11434/v1   | omit                   |
 * | vLLM      | http://localhost:8000/v1    | omit (or `--api-key`)  |
 * | LM Studio | http://localhost:1234/v1    | omit                   |
 *
 * Local servers need no key; the SDK insists on one, so a placeholder is sent instead.
 * Nothing is read from the environment (`OPENAI_API_KEY`, `OPENAI_BASE_URL`, `OPENAI_ORG_ID`,
 * …): only what is passed here reaches the server.
 *
 * @module
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type OpenAI from 'openai';
import type { ChatCompletionCreateParamsBase } from 'openai/resources/chat/completions';
import { InterlockError } from '../errors/interlock-error.js';
import type { ModelProvider, ModelRequest, ModelResponse } from './model-provider.js';
import { classifyFailure, describeFailure, isRetryable, type AttemptFailure } from './openai-failure.js';
import { fromChatCompletion, toChatMessages, toChatTools, ToolCallAssembler, withToolCalls } from './openai-messages.js';

/** Options of {@link openAICompatible}. */
type OpenAISdk = typeof import('openai');
let openAISdk: Promise<OpenAISdk> | undefined;
const loadOpenAI = (): Promise<OpenAISdk> => (openAISdk ??= import('openai'));

export interface OpenAICompatibleOptions {
  /** The server's API root, e.g. `http://localhost:11434/v1` (see the table above). */
  baseURL: string;
  /** Sent as `Authorization: Bearer …`; omit for local servers. Never appears in errors. */
  apiKey?: string;
  /** The model name as the server knows it, e.g. `gpt-4o-mini` or `llama3.1:8b`. */
  model: string;
  /** Sampling temperature; the server's default when absent. */
  temperature?: number;
  /** Retries after a 429, a 5xx, a timeout or a lost connection (default 3); other 4xx are not retried. */
  maxRetries?: number;
  /**
   * The longest wait in milliseconds for the server to start answering and, when streaming,
   * between two chunks (default 600000, as the SDK). A long answer that keeps streaming is
   * not cut off. A timed-out attempt is retried.
   */
  timeoutMs?: number;
  /** Stream the answer and report text through `onTextDelta` (default true). */
  stream?: boolean;
  /** A `fetch` to use instead of the global one (proxies, tests). */
  fetch?: typeof globalThis.fetch;
  /** The first retry's delay in milliseconds (default 500); it doubles with each retry. */
  initialRetryDelayMs?: number;
  /** The longest delay between retries in milliseconds (default 8000). */
  maxRetryDelayMs?: number;
}

/** Sent when no apiKey is given: the SDK refuses to run without one, local servers ignore it. */
const PLACEHOLDER_API_KEY = 'interlock-no-key';

/** As long as the SDK waits by default: local models can be slow to start. */
const DEFAULT_TIMEOUT_MS = 600_000;

/** A `Retry-After` longer than this is not waited out: the run fails and says when to come back. */
const LONGEST_RETRY_AFTER_MS = 60_000;

/**
 * Creates a {@link ModelProvider} named `openai:<model>` that talks to an OpenAI-compatible
 * chat-completions server: it sends the conversation and tools, streams text through
 * `request.onTextDelta`, assembles tool calls (arguments that are not a JSON object come back
 * as `argumentsError`, never as a throw), retries rate limits and server errors with
 * exponential backoff, and stops when `request.signal` aborts.
 *
 * `complete` throws InterlockError `MODEL_FAILED` when the server fails after the retries,
 * rejects the request (4xx), or the request is aborted (`details.aborted` is then true).
 *
 * @throws InterlockError `INVALID_OPTIONS` when baseURL is not an http(s) URL, model is empty,
 *   or a number option is negative.
 *
 * @example
 * const model = openAICompatible({ baseURL: 'http://localhost:11434/v1', model: 'llama3.1:8b' });
 * const interlock = createInterlock({ models: { local: model } });
 */
export function openAICompatible(options: OpenAICompatibleOptions): ModelProvider {
  const settings = validateOptions(options);
  // The SDK is loaded on the first request: a process that never calls this model never pays for it.
  const createClient = (sdk: OpenAISdk): OpenAI =>
    new sdk.default({
      baseURL: options.baseURL,
      apiKey: options.apiKey || PLACEHOLDER_API_KEY,
      // Explicit nulls keep the SDK from picking these up from the environment and sending
      // them to a server that is not OpenAI's.
      adminAPIKey: null,
      organization: null,
      project: null,
      webhookSecret: null,
      // The loop below retries: its backoff is configurable and it knows when text has
      // already been streamed (and a retry would repeat it).
      maxRetries: 0,
      timeout: settings.timeoutMs,
      fetch: options.fetch,
    });
  let connected: Promise<{ sdk: OpenAISdk; client: OpenAI }> | undefined;
  const connect = () => (connected ??= loadOpenAI().then((sdk) => ({ sdk, client: createClient(sdk) })));
  const where = `openai-compatible model ${options.model} at ${displayURL(options.baseURL)}`;
  const redact = (text: string): string => (options.apiKey ? text.split(options.apiKey).join('***') : text);

  const failed = (failure: AttemptFailure, attempts: number, error: unknown, advice?: string): InterlockError =>
    new InterlockError(
      'MODEL_FAILED',
      `${where} failed: ${describeFailure(failure, { model: options.model, attempts, timeoutMs: settings.timeoutMs }, advice)}`,
      {
        details: {
          model: options.model,
          baseURL: displayURL(options.baseURL),
          attempts,
          ...(failure.kind === 'status' ? { status: failure.status } : {}),
        },
        cause: redactCause(error, redact),
      },
    );

  const cancelled = (signal: AbortSignal): InterlockError =>
    new InterlockError('MODEL_FAILED', `${where} was cancelled: the request's signal was aborted`, {
      details: { model: options.model, baseURL: displayURL(options.baseURL), aborted: true },
      cause: signal.reason,
    });

  /** One try. `attempt.signal` aborts it; `attempt.onActivity` restarts the idle timer. */
  const send = async (request: ModelRequest, attempt: Attempt): Promise<ModelResponse> => {
    const { client } = await connect();
    const body: ChatCompletionCreateParamsBase = {
      model: options.model,
      messages: toChatMessages(request.messages),
      ...(request.tools?.length ? { tools: toChatTools(request.tools) } : {}),
      ...(options.temperature === undefined ? {} : { temperature: options.temperature }),
    };
    if (!settings.stream) {
      return fromChatCompletion(await client.chat.completions.create({ ...body, stream: false }, { signal: attempt.signal }));
    }
    const stream = await client.chat.completions.create({ ...body, stream: true }, { signal: attempt.signal });
    let text = '';
    let cutOff = false;
    const toolCalls = new ToolCallAssembler();
    for await (const chunk of stream) {
      attempt.onActivity();
      // Usage-only chunks come without choices; some servers omit the field altogether.
      const choice = chunk.choices?.[0];
      if (!choice) continue;
      const delta = choice.delta;
      if (delta?.content) {
        text += delta.content;
        attempt.streamedText = true;
        request.onTextDelta?.(delta.content);
      }
      if (delta?.tool_calls) toolCalls.add(delta.tool_calls);
      if (choice.finish_reason === 'length') cutOff = true;
    }
    return withToolCalls(text, toolCalls.finish(cutOff));
  };

  return {
    name: `openai:${options.model}`,
    async complete(request) {
      for (let attempts = 1; ; attempts += 1) {
        if (request.signal.aborted) throw cancelled(request.signal);
        const attempt = startAttempt(request.signal, settings.timeoutMs);
        let failure: AttemptFailure;
        try {
          const response = await send(request, attempt);
          // The SDK ends a stream quietly when its signal aborts: what arrived is not the answer.
          if (request.signal.aborted) throw cancelled(request.signal);
          if (attempt.timedOut) throw new (await connect()).sdk.APIConnectionTimeoutError();
          return response;
        } catch (error) {
          if (request.signal.aborted) throw cancelled(request.signal);
          if (InterlockError.is(error)) throw error;
          const classified = attempt.timedOut ? { kind: 'timeout' as const, message: 'timed out' } : classifyFailure(error, (await connect()).sdk);
          // Only the server's words can carry the key (some servers echo it back).
          failure = { ...classified, message: redact(classified.message) };
          if (attempt.streamedText) {
            // Retrying would stream the same text a second time to whoever is listening.
            const what = failure.kind === 'timeout' ? `no chunk within ${settings.timeoutMs} ms` : failure.message;
            const message = `the stream broke after text had arrived (${what})`;
            throw failed({ kind: 'other', message }, attempts, error, 'it is not retried, since the text was already streamed: run the node again');
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

/** One try at a completion: its own signal, so an idle timer can end it without ending the run. */
interface Attempt {
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
function startAttempt(signal: AbortSignal, timeoutMs: number): Attempt {
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

interface Settings {
  stream: boolean;
  timeoutMs: number;
  maxRetries: number;
  initialRetryDelayMs: number;
  maxRetryDelayMs: number;
}

function validateOptions(options: OpenAICompatibleOptions): Settings {
  const invalid = (message: string): InterlockError => new InterlockError('INVALID_OPTIONS', `openAICompatible: ${message}`);
  let url: URL;
  try {
    url = new URL(options.baseURL);
  } catch {
    throw invalid(`baseURL "${displayURL(options.baseURL)}" is not a URL: use e.g. http://localhost:11434/v1`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw invalid(`baseURL must be http(s), not ${url.protocol}: use e.g. https://api.openai.com/v1`);
  }
  if (options.timeoutMs !== undefined && !(options.timeoutMs > 0)) throw invalid(`timeoutMs must be a number > 0, got ${options.timeoutMs}`);
  if (options.model.trim() === '') throw invalid('model is empty: name the model as the server knows it, e.g. gpt-4o-mini');
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
function displayURL(baseURL: string): string {
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
