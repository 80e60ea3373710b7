import { createServer } from 'node:net';
import type { Message } from '@interlock/sdk-types';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  chatCompletion,
  chunk,
  startChatCompletionsServer,
  toolCallDelta,
  type ChatCompletionsServer,
} from '../__fixtures__/chat-completions-server.js';
import { InterlockError } from '../errors/interlock-error.js';
import type { ModelRequest, ToolSpec } from './model-provider.js';
import { openAICompatible, type OpenAICompatibleOptions } from './openai-compatible.js';

const API_KEY = 'sk-test-secret-key-0123456789';

let server: ChatCompletionsServer;

beforeEach(async () => {
  server = await startChatCompletionsServer();
});

afterEach(async () => {
  vi.unstubAllEnvs();
  await server.close();
});

function provider(options: Partial<OpenAICompatibleOptions> = {}) {
  return openAICompatible({
    baseURL: server.baseURL,
    model: 'test-model',
    initialRetryDelayMs: 1,
    maxRetryDelayMs: 4,
    ...options,
  });
}

function modelRequest(overrides: Partial<ModelRequest> = {}): ModelRequest {
  return {
    threadId: 'thread-1',
    nodeId: 'agent',
    messages: [{ role: 'user', content: 'Hello' }],
    signal: new AbortController().signal,
    ...overrides,
  };
}

/** The InterlockError a promise rejects with (fails the test if it resolves or throws something else). */
async function rejection(promise: Promise<unknown>): Promise<InterlockError> {
  const outcome = await promise.then(
    (value) => ({ resolved: value }),
    (error: unknown) => ({ rejected: error }),
  );
  if (!('rejected' in outcome)) throw new Error(`expected a rejection, got ${JSON.stringify(outcome.resolved)}`);
  if (!InterlockError.is(outcome.rejected))
    throw new Error(`expected an InterlockError, got ${String(outcome.rejected)}`);
  return outcome.rejected;
}

const weatherTool: ToolSpec = {
  name: 'get_weather',
  description: 'The weather in a city',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
};

describe('openAICompatible — streaming', () => {
  it('assembles streamed text and reports each delta as it arrives', async () => {
    server.enqueue({
      kind: 'stream',
      chunks: [
        chunk({ role: 'assistant', content: '' }),
        chunk({ content: 'Hel' }),
        chunk({ content: 'lo, ' }),
        chunk({ content: 'world' }),
        chunk({}, 'stop'),
      ],
    });
    const deltas: string[] = [];

    const response = await provider().complete(modelRequest({ onTextDelta: (delta) => deltas.push(delta) }));

    expect(response).toEqual({ text: 'Hello, world' });
    expect(deltas).toEqual(['Hel', 'lo, ', 'world']);
    expect(server.requests[0]?.body).toMatchObject({ model: 'test-model', stream: true });
  });

  it('assembles two streamed tool calls whose arguments arrive in pieces', async () => {
    server.enqueue({
      kind: 'stream',
      chunks: [
        chunk({ role: 'assistant', content: 'Checking. ' }),
        chunk(toolCallDelta(0, { id: 'call_a', name: 'get_weather', arguments: '' })),
        chunk(toolCallDelta(0, { arguments: '{"ci' })),
        chunk(toolCallDelta(0, { arguments: 'ty": "Par' })),
        chunk(toolCallDelta(1, { id: 'call_b', name: 'get_weather' })),
        chunk(toolCallDelta(0, { arguments: 'is"}' })),
        chunk(toolCallDelta(1, { arguments: '{"city":' })),
        chunk(toolCallDelta(1, { arguments: ' "Oslo"}' })),
        chunk({}, 'tool_calls'),
      ],
    });

    const response = await provider().complete(modelRequest({ tools: [weatherTool] }));

    expect(response).toEqual({
      text: 'Checking. ',
      toolCalls: [
        { id: 'call_a', name: 'get_weather', arguments: { city: 'Paris' } },
        { id: 'call_b', name: 'get_weather', arguments: { city: 'Oslo' } },
      ],
    });
  });

  it('reports malformed streamed arguments as argumentsError instead of throwing', async () => {
    server.enqueue({
      kind: 'stream',
      chunks: [
        chunk(toolCallDelta(0, { id: 'call_a', name: 'get_weather', arguments: '{"city": "Par' })),
        chunk(toolCallDelta(1, { id: 'call_b', name: 'get_weather', arguments: '["Oslo"]' })),
        chunk({}, 'length'),
      ],
    });

    const response = await provider().complete(modelRequest({ tools: [weatherTool] }));

    expect(response.toolCalls).toEqual([
      { id: 'call_a', name: 'get_weather', arguments: {}, argumentsError: expect.stringContaining('not valid JSON') },
      { id: 'call_b', name: 'get_weather', arguments: {}, argumentsError: expect.stringContaining('a list') },
    ]);
    expect(response.toolCalls?.[0]?.argumentsError).toContain('cut off at the token limit');
    expect(response.toolCalls?.[0]?.argumentsError).toContain('{"city": "Par');
  });
});

describe('openAICompatible — non-streaming', () => {
  it('reads text and tool calls from a JSON answer', async () => {
    server.enqueue({
      kind: 'json',
      body: chatCompletion({
        content: 'Let me look.',
        toolCalls: [
          { id: 'call_1', name: 'get_weather', arguments: '{"city":"Rome"}' },
          { id: 'call_2', name: 'get_weather', arguments: '"Rome"' },
        ],
      }),
    });
    const deltas: string[] = [];

    const response = await provider({ stream: false }).complete(
      modelRequest({ tools: [weatherTool], onTextDelta: (delta) => deltas.push(delta) }),
    );

    expect(response).toEqual({
      text: 'Let me look.',
      toolCalls: [
        { id: 'call_1', name: 'get_weather', arguments: { city: 'Rome' } },
        { id: 'call_2', name: 'get_weather', arguments: {}, argumentsError: expect.stringContaining('a string') },
      ],
    });
    expect(deltas).toEqual([]);
    expect(server.requests[0]?.body).toMatchObject({ stream: false });
  });

  it('answers null content as empty text', async () => {
    server.enqueue({
      kind: 'json',
      body: chatCompletion({ content: null, toolCalls: [{ id: 'call_1', name: 'get_weather', arguments: '{}' }] }),
    });

    const response = await provider({ stream: false }).complete(modelRequest());

    expect(response.text).toBe('');
    expect(response.toolCalls).toEqual([{ id: 'call_1', name: 'get_weather', arguments: {} }]);
  });
});

describe('openAICompatible — the request', () => {
  it('sends the conversation with tool calls and tool results in order, and the tools as JSON Schema', async () => {
    server.enqueue({ kind: 'stream', chunks: [chunk({ content: 'Sunny.' }, 'stop')] });
    const messages: Message[] = [
      { role: 'system', content: 'You are terse.' },
      { role: 'user', content: 'Weather in Paris and Oslo?', nodeId: 'agent' },
      {
        role: 'assistant',
        content: '',
        toolCalls: [
          { id: 'call_a', name: 'get_weather', arguments: { city: 'Paris' } },
          { id: 'call_b', name: 'get_weather', arguments: { city: 'Oslo' } },
        ],
      },
      { role: 'tool', content: '{"sky":"clear"}', toolCallId: 'call_a' },
      { role: 'tool', content: '{"sky":"snow"}', toolCallId: 'call_b' },
      { role: 'assistant', content: 'Paris is clear, Oslo snowy.' },
      { role: 'user', content: 'Thanks' },
    ];

    await provider({ temperature: 0.2 }).complete(modelRequest({ messages, tools: [weatherTool] }));

    expect(server.requests[0]?.body).toEqual({
      model: 'test-model',
      stream: true,
      temperature: 0.2,
      messages: [
        { role: 'system', content: 'You are terse.' },
        { role: 'user', content: 'Weather in Paris and Oslo?' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [
            { id: 'call_a', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
            { id: 'call_b', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Oslo"}' } },
          ],
        },
        { role: 'tool', tool_call_id: 'call_a', content: '{"sky":"clear"}' },
        { role: 'tool', tool_call_id: 'call_b', content: '{"sky":"snow"}' },
        { role: 'assistant', content: 'Paris is clear, Oslo snowy.' },
        { role: 'user', content: 'Thanks' },
      ],
      tools: [
        {
          type: 'function',
          function: {
            name: 'get_weather',
            description: 'The weather in a city',
            parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
          },
        },
      ],
    });
    expect(server.requests[0]).toMatchObject({ method: 'POST', url: '/v1/chat/completions' });
  });

  it('leaves out tools and temperature when there are none', async () => {
    server.enqueue({ kind: 'stream', chunks: [chunk({ content: 'Hi' }, 'stop')] });

    await provider().complete(modelRequest({ tools: [] }));

    expect(server.requests[0]?.body).not.toHaveProperty('tools');
    expect(server.requests[0]?.body).not.toHaveProperty('temperature');
  });

  it('sends the key as a bearer token', async () => {
    server.enqueue({ kind: 'stream', chunks: [chunk({ content: 'Hi' }, 'stop')] });

    await provider({ apiKey: API_KEY }).complete(modelRequest());

    expect(server.requests[0]?.headers.authorization).toBe(`Bearer ${API_KEY}`);
  });

  it('sends a placeholder, not OPENAI_API_KEY from the environment, when no key is given', async () => {
    vi.stubEnv('OPENAI_API_KEY', 'sk-from-the-environment');
    vi.stubEnv('OPENAI_ORG_ID', 'org-from-the-environment');
    server.enqueue({ kind: 'stream', chunks: [chunk({ content: 'Hi' }, 'stop')] });

    await provider().complete(modelRequest());

    const headers = server.requests[0]?.headers;
    expect(headers?.authorization).toMatch(/^Bearer \S+$/);
    expect(JSON.stringify(headers)).not.toContain('from-the-environment');
  });

  it('is named after the model', () => {
    expect(provider({ model: 'llama3.1:8b' }).name).toBe('openai:llama3.1:8b');
  });

  it('rejects options it cannot use', () => {
    for (const options of [
      { baseURL: 'not a url' },
      { baseURL: 'ftp://example.com/v1' },
      { model: ' ' },
      { maxRetries: -1 },
      { maxRetries: 1.5 },
    ]) {
      expect(() => provider(options)).toThrow(expect.objectContaining({ code: 'INVALID_OPTIONS' }));
    }
  });
});

describe('openAICompatible — retries and failures', () => {
  it('retries after a 429 and succeeds', async () => {
    server.enqueue(
      { kind: 'error', status: 429, message: 'Rate limit reached', headers: { 'retry-after': '0' } },
      { kind: 'stream', chunks: [chunk({ content: 'Made it' }, 'stop')] },
    );

    const response = await provider().complete(modelRequest());

    expect(response.text).toBe('Made it');
    expect(server.requests).toHaveLength(2);
  });

  it('retries 5xx with backoff until maxRetries, then fails with MODEL_FAILED without the key', async () => {
    server.enqueue({ kind: 'error', status: 500, message: 'The server had an error', times: 3 });

    const error = await rejection(provider({ apiKey: API_KEY, maxRetries: 2 }).complete(modelRequest()));

    expect(server.requests).toHaveLength(3);
    expect(error.code).toBe('MODEL_FAILED');
    expect(error.message).toBe(
      `openai-compatible model test-model at ${server.baseURL} failed: 500 The server had an error (after 3 attempts); the server kept failing: check its logs, try again later, or raise maxRetries`,
    );
    expect(error.details).toMatchObject({ status: 500, attempts: 3, model: 'test-model' });
    expect(JSON.stringify(error.toJSON())).not.toContain(API_KEY);
  });

  it('does not retry a 400 and says the server rejected the request', async () => {
    server.enqueue(
      { kind: 'error', status: 400, message: "'tools' is not supported by this model" },
      { kind: 'stream', chunks: [chunk({ content: 'never' }, 'stop')] },
    );

    const error = await rejection(provider().complete(modelRequest()));

    expect(server.requests).toHaveLength(1);
    expect(error.code).toBe('MODEL_FAILED');
    expect(error.message).toContain(
      "failed: 400 'tools' is not supported by this model; the server rejected the request",
    );
  });

  it('keeps the key out of the error when the server echoes it', async () => {
    server.enqueue({ kind: 'error', status: 401, message: `Incorrect API key provided: ${API_KEY}` });

    const error = await rejection(provider({ apiKey: API_KEY }).complete(modelRequest()));

    expect(server.requests).toHaveLength(1);
    expect(error.message).toContain('401 Incorrect API key provided: ***');
    expect(error.message).toContain('check apiKey');
    expect(error.message).not.toContain(API_KEY);
    expect(String(error.cause)).not.toContain(API_KEY);
  });

  it('does not wait out a Retry-After longer than a minute', async () => {
    server.enqueue({ kind: 'error', status: 429, message: 'Quota exceeded', headers: { 'retry-after': '3600' } });

    const error = await rejection(provider().complete(modelRequest()));

    expect(server.requests).toHaveLength(1);
    expect(error.message).toContain('429 Quota exceeded; the server asked to wait 3600 s');
  });

  it('retries when the connection is refused, then says to check that the server runs', async () => {
    const port = await closedPort();

    const error = await rejection(
      provider({ baseURL: `http://127.0.0.1:${port}/v1`, maxRetries: 2 }).complete(modelRequest()),
    );

    expect(error.message).toMatch(
      new RegExp(
        `^openai-compatible model test-model at http://127\\.0\\.0\\.1:${port}/v1 failed: could not reach the server`,
      ),
    );
    expect(error.message).toContain('ECONNREFUSED');
    expect(error.message).toContain('(after 3 attempts); check that it is running');
  });

  it('retries a stream that breaks before any text arrived', async () => {
    server.enqueue(
      { kind: 'stream', chunks: [chunk(toolCallDelta(0, { id: 'call_a', name: 'get_weather' }))], breakAfter: true },
      { kind: 'stream', chunks: [chunk({ content: 'Second try' }, 'stop')] },
    );

    const response = await provider().complete(modelRequest());

    expect(response).toEqual({ text: 'Second try' });
    expect(server.requests).toHaveLength(2);
  });

  it('does not retry a stream that breaks after text was streamed, so no text is repeated', async () => {
    server.enqueue({ kind: 'stream', chunks: [chunk({ content: 'Half an ans' })], breakAfter: true });
    const deltas: string[] = [];

    const error = await rejection(provider().complete(modelRequest({ onTextDelta: (delta) => deltas.push(delta) })));

    expect(server.requests).toHaveLength(1);
    expect(deltas).toEqual(['Half an ans']);
    expect(error.message).toContain('failed: the stream broke after text had arrived');
  });

  it('fails without retrying when the server reports an error inside the stream', async () => {
    server.enqueue({ kind: 'stream', chunks: [{ error: { message: 'the model crashed', type: 'server_error' } }] });

    const error = await rejection(provider().complete(modelRequest()));

    expect(server.requests).toHaveLength(1);
    expect(error.message).toContain(
      "failed: the server reported an error in its answer (the model crashed); check the server's logs",
    );
  });

  it('times out an attempt after timeoutMs and retries it', async () => {
    server.enqueue({ kind: 'hang' }, { kind: 'hang' });

    const error = await rejection(provider({ timeoutMs: 50, maxRetries: 1 }).complete(modelRequest()));

    expect(server.requests).toHaveLength(2);
    expect(error.message).toContain('failed: no answer within 50 ms (after 2 attempts); raise timeoutMs');
  });

  it('times out a stream that stalls before any text, and retries it', async () => {
    server.enqueue(
      { kind: 'hang', chunks: [chunk(toolCallDelta(0, { id: 'call_a', name: 'get_weather' }))] },
      { kind: 'stream', chunks: [chunk({ content: 'Back' }, 'stop')] },
    );

    const response = await provider({ timeoutMs: 50 }).complete(modelRequest());

    expect(response).toEqual({ text: 'Back' });
    expect(server.requests).toHaveLength(2);
    await vi.waitFor(() => expect(server.requests[0]?.closedEarly).toBe(true));
  });

  it('does not cut off a slow stream that keeps sending chunks', async () => {
    const chunks = [
      chunk({ content: 'a' }),
      chunk({ content: 'b' }),
      chunk({ content: 'c' }),
      chunk({ content: 'd' }, 'stop'),
    ];
    server.enqueue({ kind: 'stream', chunks, chunkIntervalMs: 40 });

    const response = await provider({ timeoutMs: 100, maxRetries: 0 }).complete(modelRequest());

    expect(response.text).toBe('abcd');
  });

  it('fails a stream that stalls after text, without retrying', async () => {
    server.enqueue({ kind: 'hang', chunks: [chunk({ content: 'Once upon' })] });

    const error = await rejection(provider({ timeoutMs: 50 }).complete(modelRequest()));

    expect(server.requests).toHaveLength(1);
    expect(error.message).toContain('failed: the stream broke after text had arrived (no chunk within 50 ms)');
  });
});

describe('openAICompatible — cancellation', () => {
  it('aborts a request the server has not answered', async () => {
    server.enqueue({ kind: 'hang' });
    const controller = new AbortController();
    const pending = rejection(provider().complete(modelRequest({ signal: controller.signal })));
    await vi.waitFor(() => expect(server.requests).toHaveLength(1));

    const started = performance.now();
    controller.abort('the user cancelled');
    const error = await pending;

    expect(performance.now() - started).toBeLessThan(500);
    expect(error.code).toBe('MODEL_FAILED');
    expect(error.details).toMatchObject({ aborted: true });
    expect(error.cause).toBe('the user cancelled');
    await vi.waitFor(() => expect(server.requests[0]?.closedEarly).toBe(true));
  });

  it('aborts a stream midway instead of returning the partial text', async () => {
    server.enqueue({ kind: 'hang', chunks: [chunk({ content: 'Once upon' })] });
    const controller = new AbortController();

    const error = await rejection(
      provider().complete(modelRequest({ signal: controller.signal, onTextDelta: () => controller.abort() })),
    );

    expect(error.details).toMatchObject({ aborted: true });
    await vi.waitFor(() => expect(server.requests[0]?.closedEarly).toBe(true));
  });

  it('stops waiting between retries when aborted', async () => {
    server.enqueue({ kind: 'error', status: 503, message: 'Overloaded', times: 2 });
    const controller = new AbortController();
    const pending = rejection(
      provider({ initialRetryDelayMs: 60_000, maxRetryDelayMs: 60_000 }).complete(
        modelRequest({ signal: controller.signal }),
      ),
    );
    await vi.waitFor(() => expect(server.requests).toHaveLength(1));

    controller.abort();
    const error = await pending;

    expect(error.details).toMatchObject({ aborted: true });
    expect(server.requests).toHaveLength(1);
  });

  it('sends nothing when the signal is already aborted', async () => {
    const error = await rejection(provider().complete(modelRequest({ signal: AbortSignal.abort() })));

    expect(error.details).toMatchObject({ aborted: true });
    expect(server.requests).toHaveLength(0);
  });
});

/** A port nothing listens on: bound, then released. */
async function closedPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const address = probe.address();
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('the probe server is not on a TCP port');
  return address.port;
}
