import type { Message } from '@interlock/sdk-types';
import { describe, expect, it, vi } from 'vitest';
import { chatCompletion, chunk, toolCallDelta } from '../__fixtures__/chat-completions-server.js';
import type { ToolSpec } from './model-provider.js';
import { API_KEY, modelRequest, useChatCompletionsServer } from './__fixtures__/openai-compatible-setup.js';

// What openAICompatible reads from an answer (streamed or not) and what it sends.
// Retries, failures and cancellation: openai-compatible-failures.int.test.ts.

const { server, provider } = useChatCompletionsServer();

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
