/**
 * A model provider for Anthropic's Messages API, on the official `@anthropic-ai/sdk`:
 * streaming text and tool use, tool results (and rejections) as `tool_result` blocks, the
 * same retries, timeouts and malformed-arguments handling as {@link openAICompatible}
 * (shared in retrying-provider.ts). Nothing is read from the environment: only what is
 * passed here reaches the server.
 *
 * @module
 */
import type Anthropic from '@anthropic-ai/sdk';
import type { Message } from '@interlock/sdk-types';
import { InterlockError } from '../errors/interlock-error.js';
import type { ModelProvider, ModelRequest, ModelResponse, ModelToolCall, ToolSpec } from './model-provider.js';
import { classifyFailure } from './openai-failure.js';
import { parseToolArguments } from './openai-messages.js';
import { retryingProvider, validateSettings, type Attempt, type ConnectionOptions } from './retrying-provider.js';

type AnthropicSdk = typeof import('@anthropic-ai/sdk');
let anthropicSdk: Promise<AnthropicSdk> | undefined;
const loadAnthropic = (): Promise<AnthropicSdk> => (anthropicSdk ??= import('@anthropic-ai/sdk'));

/** Options of {@link anthropic}. */
export interface AnthropicOptions extends ConnectionOptions {
  /** Sent as `x-api-key`. Never appears in errors. Without it no key is sent (a proxy or a local server that needs none). */
  apiKey?: string;
  /** The model id, e.g. `claude-sonnet-4-5`. */
  model: string;
  /** Default https://api.anthropic.com (a proxy or a test server may stand in). */
  baseURL?: string;
  /** The longest answer in tokens (the API requires one). Default 4096. */
  maxTokens?: number;
  temperature?: number;
  /** A `fetch` to use instead of the global one (proxies, tests). */
  fetch?: typeof globalThis.fetch;
}

const DEFAULT_BASE_URL = 'https://api.anthropic.com';

/**
 * Creates a {@link ModelProvider} named `anthropic:<model>`.
 *
 * @throws InterlockError INVALID_OPTIONS for a baseURL that is not http(s), an empty model, or a negative number.
 * @example
 * const model = anthropic({ model: 'claude-sonnet-4-5', apiKey: process.env.ANTHROPIC_API_KEY });
 */
export function anthropic(options: AnthropicOptions): ModelProvider {
  const baseURL = options.baseURL ?? DEFAULT_BASE_URL;
  const settings = validateSettings(
    'anthropic',
    { ...options, baseURL },
    { baseURL: DEFAULT_BASE_URL, model: 'claude-sonnet-4-5' },
  );
  const maxTokens = options.maxTokens ?? 4096;
  if (!Number.isSafeInteger(maxTokens) || maxTokens < 1)
    throw new InterlockError('INVALID_OPTIONS', `anthropic: maxTokens must be a whole number ≥ 1, got ${maxTokens}`);
  let connected: Promise<{ sdk: AnthropicSdk; client: Anthropic }> | undefined;
  const connect = () =>
    (connected ??= loadAnthropic().then((sdk) => ({
      sdk,
      client: new sdk.default({
        baseURL,
        apiKey: options.apiKey ?? null,
        authToken: null,
        // Without a key, none is sent (a proxy or a local server that needs none, issue 37),
        // rather than the SDK failing at the first call to find one.
        ...(options.apiKey === undefined ? { defaultHeaders: { authorization: null, 'x-api-key': null } } : {}),
        // Retries and timeouts are Interlock's (a streamed answer is never sent twice).
        maxRetries: 0,
        timeout: settings.timeoutMs,
        ...(options.fetch === undefined ? {} : { fetch: options.fetch }),
      }),
    })));

  const send = async (request: ModelRequest, attempt: Attempt): Promise<ModelResponse> => {
    const { client } = await connect();
    const body: Omit<Anthropic.MessageCreateParamsNonStreaming, 'stream'> = {
      model: options.model,
      max_tokens: maxTokens,
      ...toAnthropicMessages(request.messages),
      ...(request.tools?.length ? { tools: toAnthropicTools(request.tools) } : {}),
      ...(options.temperature === undefined ? {} : { temperature: options.temperature }),
    };
    if (!settings.stream)
      return fromAnthropicMessage(await client.messages.create({ ...body, stream: false }, { signal: attempt.signal }));
    const stream = await client.messages.create({ ...body, stream: true }, { signal: attempt.signal });
    let text = '';
    let cutOff = false;
    const blocks = new Map<number, { id: string; name: string; json: string }>();
    for await (const event of stream) {
      attempt.onActivity();
      if (event.type === 'content_block_start' && event.content_block.type === 'tool_use') {
        blocks.set(event.index, { id: event.content_block.id, name: event.content_block.name, json: '' });
      } else if (event.type === 'content_block_delta') {
        if (event.delta.type === 'text_delta') {
          text += event.delta.text;
          attempt.streamedText = true;
          request.onTextDelta?.(event.delta.text);
        } else if (event.delta.type === 'input_json_delta') {
          const block = blocks.get(event.index);
          if (block) block.json += event.delta.partial_json;
        }
      } else if (event.type === 'message_delta' && event.delta.stop_reason === 'max_tokens') {
        cutOff = true;
      }
    }
    const toolCalls: ModelToolCall[] = [...blocks.values()].map((block) => ({
      id: block.id,
      name: block.name,
      ...parseToolArguments(block.json === '' ? '{}' : block.json, cutOff),
    }));
    return toolCalls.length === 0 ? { text } : { text, toolCalls };
  };

  return retryingProvider({
    name: `anthropic:${options.model}`,
    kind: 'anthropic',
    model: options.model,
    baseURL,
    ...(options.apiKey === undefined ? {} : { apiKey: options.apiKey }),
    settings,
    send,
    classify: async (error) => classifyFailure(error, (await connect()).sdk),
  });
}

/**
 * The conversation in the Messages API's shape: system prompts as `system`, an assistant's
 * tool calls as `tool_use` blocks, and the tool results after them as one user message of
 * `tool_result` blocks (a rejection or an error marked `is_error`).
 */
export function toAnthropicMessages(messages: readonly Message[]): {
  system?: string;
  messages: Anthropic.MessageParam[];
} {
  const system = messages.filter((message) => message.role === 'system').map((message) => message.content);
  const out: Anthropic.MessageParam[] = [];
  for (const [position, message] of messages.entries()) {
    switch (message.role) {
      case 'system':
        break;
      case 'user':
        out.push({ role: 'user', content: message.content });
        break;
      case 'assistant': {
        const content: Anthropic.ContentBlockParam[] =
          message.content === '' ? [] : [{ type: 'text', text: message.content }];
        for (const call of message.toolCalls ?? [])
          content.push({ type: 'tool_use', id: call.id, name: call.name, input: call.arguments });
        out.push({ role: 'assistant', content: content.length === 0 ? '' : content });
        break;
      }
      case 'tool': {
        if (message.toolCallId === undefined) {
          throw new InterlockError(
            'MODEL_FAILED',
            `message ${position} of the conversation is a tool result without a toolCallId: set it to the id of the assistant's tool call`,
            { details: { position } },
          );
        }
        const result: Anthropic.ToolResultBlockParam = {
          type: 'tool_result',
          tool_use_id: message.toolCallId,
          content: message.content,
          ...(/^\[(?!SUCCESS\])[A-Z_]+\]/.test(message.content) ? { is_error: true } : {}),
        };
        const last = out[out.length - 1];
        // The results of one turn go back together, in one user message.
        if (
          last?.role === 'user' &&
          Array.isArray(last.content) &&
          last.content.every((block) => block.type === 'tool_result')
        )
          last.content.push(result);
        else out.push({ role: 'user', content: [result] });
        break;
      }
    }
  }
  return { ...(system.length === 0 ? {} : { system: system.join('\n\n') }), messages: out };
}

/** Tool specs as Messages API tools (parameters stay JSON Schema). */
export function toAnthropicTools(tools: readonly ToolSpec[]): Anthropic.Tool[] {
  return tools.map((tool) => ({
    name: tool.name,
    description: tool.description,
    input_schema: { type: 'object', ...tool.parameters },
  }));
}

/** A whole (not streamed) Messages API answer as a model response. */
export function fromAnthropicMessage(message: Anthropic.Message): ModelResponse {
  const cutOff = message.stop_reason === 'max_tokens';
  const text = message.content.flatMap((block) => (block.type === 'text' ? [block.text] : [])).join('');
  const toolCalls = message.content.flatMap((block): ModelToolCall[] =>
    block.type === 'tool_use'
      ? [
          {
            id: block.id,
            name: block.name,
            ...(isObject(block.input)
              ? { arguments: block.input }
              : parseToolArguments(JSON.stringify(block.input), cutOff)),
          },
        ]
      : [],
  );
  return toolCalls.length === 0 ? { text } : { text, toolCalls };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
