/**
 * A model provider for any server that speaks OpenAI's chat-completions API, built on the
 * official `openai` SDK (7.x).
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
import type OpenAI from 'openai';
import type { ChatCompletionChunk, ChatCompletionCreateParamsBase } from 'openai/resources/chat/completions';
import type { ModelProvider, ModelRequest, ModelResponse } from './model-provider.js';
import { classifyFailure } from './openai-failure.js';
import { retryingProvider, validateSettings, type Attempt, type ConnectionOptions } from './retrying-provider.js';
import {
  fromChatCompletion,
  toChatMessages,
  toChatTools,
  ToolCallAssembler,
  withToolCalls,
} from './openai-messages.js';

type OpenAISdk = typeof import('openai');
let openAISdk: Promise<OpenAISdk> | undefined;
const loadOpenAI = (): Promise<OpenAISdk> => (openAISdk ??= import('openai'));

/** Options of {@link openAICompatible}. */
export interface OpenAICompatibleOptions extends ConnectionOptions {
  /** The server's API root, e.g. `http://localhost:11434/v1` (see the table above). */
  baseURL: string;
  /** Sent as `Authorization: Bearer …`; omit for local servers. Never appears in errors. */
  apiKey?: string;
  /** The model name as the server knows it, e.g. `gpt-4o-mini` or `llama3.1:8b`. */
  model: string;
  /** Sampling temperature; the server's default when absent. */
  temperature?: number;
  /** A `fetch` to use instead of the global one (proxies, tests). */
  fetch?: typeof globalThis.fetch;
}

/** Sent when no apiKey is given: the SDK refuses to run without one, local servers ignore it. */
const PLACEHOLDER_API_KEY = 'interlock-no-key';

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
  const settings = validateSettings('openAICompatible', options, {
    baseURL: 'http://localhost:11434/v1',
    model: 'gpt-4o-mini',
  });
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
      return fromChatCompletion(
        await client.chat.completions.create({ ...body, stream: false }, { signal: attempt.signal }),
      );
    }
    const stream = await client.chat.completions.create({ ...body, stream: true }, { signal: attempt.signal });
    let text = '';
    let cutOff = false;
    const toolCalls = new ToolCallAssembler();
    for await (const chunk of stream) {
      attempt.onActivity();
      // Usage-only chunks come without choices; some servers omit the field altogether, and
      // some send a choice without `delta` (the SDK's types promise both).
      const { choices } = chunk as Partial<ChatCompletionChunk>;
      const choice = choices?.[0];
      if (!choice) continue;
      const { delta } = choice as Partial<ChatCompletionChunk.Choice>;
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

  return retryingProvider({
    name: `openai:${options.model}`,
    kind: 'openai-compatible',
    model: options.model,
    baseURL: options.baseURL,
    ...(options.apiKey === undefined ? {} : { apiKey: options.apiKey }),
    settings,
    send,
    classify: async (error) => classifyFailure(error, (await connect()).sdk),
  });
}
