import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  startMessagesServer,
  streamedMessage as streamed,
  type MessagesServer,
} from '../__fixtures__/messages-server.js';
import { linearWorkflow } from '../__fixtures__/workflows.js';
import { InterlockError } from '../errors/interlock-error.js';
import { createInterlock, defineTool } from '../index.js';
import { scriptedHandler } from '../testing/index.js';
import { anthropic, type AnthropicOptions } from './anthropic.js';
import type { ModelRequest } from './model-provider.js';

/**
 * Issue 16: the Anthropic provider against a local server that speaks the Messages API
 * (POST /v1/messages, JSON or Server-Sent Events), as the chat-completions fixture does for OpenAI.
 */

const API_KEY = 'sk-ant-test-secret-0123456789';
let server: MessagesServer;
beforeEach(async () => {
  server = await startMessagesServer();
});
afterEach(async () => {
  await server.close();
});

const provider = (options: Partial<AnthropicOptions> = {}) =>
  anthropic({
    baseURL: server.baseURL,
    model: 'claude-test',
    apiKey: API_KEY,
    initialRetryDelayMs: 1,
    maxRetryDelayMs: 4,
    ...options,
  });
const modelRequest = (overrides: Partial<ModelRequest> = {}): ModelRequest => ({
  threadId: 't',
  nodeId: 'agent',
  messages: [{ role: 'user', content: 'Hello' }],
  signal: new AbortController().signal,
  ...overrides,
});

describe('anthropic without a key (issue 37)', () => {
  it('talks to a server that needs none (a proxy, a local server) and sends it no key', async () => {
    server.enqueue(streamed('Hi.', []));
    const { apiKey: _apiKey, ...withoutKey } = {
      baseURL: server.baseURL,
      model: 'claude-test',
      apiKey: undefined,
      initialRetryDelayMs: 1,
      maxRetryDelayMs: 4,
    };
    const response = await anthropic(withoutKey).complete(modelRequest());
    expect(response.text).toBe('Hi.');
    expect(server.requests[0]?.headers['x-api-key']).toBeUndefined();
    expect(server.requests[0]?.headers['authorization']).toBeUndefined();
  });
});

describe('anthropic — the Messages API', () => {
  it('streams text and assembles tool_use input from its JSON pieces', async () => {
    server.enqueue(
      streamed('Checking the weather.', [{ id: 'toolu_1', name: 'get_weather', json: ['{"ci', 'ty": "Pa', 'ris"}'] }]),
    );
    const deltas: string[] = [];
    const response = await provider().complete(
      modelRequest({
        messages: [
          { role: 'system', content: 'Be brief.' },
          { role: 'user', content: 'Weather in Paris?' },
        ],
        tools: [
          {
            name: 'get_weather',
            description: 'The weather',
            parameters: { type: 'object', properties: { city: { type: 'string' } } },
          },
        ],
        onTextDelta: (delta) => deltas.push(delta),
      }),
    );
    expect(response).toEqual({
      text: 'Checking the weather.',
      toolCalls: [{ id: 'toolu_1', name: 'get_weather', arguments: { city: 'Paris' } }],
    });
    expect(deltas.join('')).toBe('Checking the weather.');
    const sent = server.requests[0]!;
    expect(sent.headers['x-api-key'] ?? sent.headers['authorization']).toMatch(new RegExp(`^(Bearer )?${API_KEY}$`));
    expect(sent.body).toMatchObject({
      model: 'claude-test',
      stream: true,
      system: 'Be brief.',
      max_tokens: 4096,
      messages: [{ role: 'user', content: 'Weather in Paris?' }],
    });
    expect(sent.body['tools']).toEqual([
      {
        name: 'get_weather',
        description: 'The weather',
        input_schema: { type: 'object', properties: { city: { type: 'string' } } },
      },
    ]);
  });

  it('sends tool results back as tool_result blocks in one user message, a rejection marked is_error', async () => {
    server.enqueue(streamed('Done.'));
    await provider().complete(
      modelRequest({
        messages: [
          { role: 'user', content: 'Tidy up' },
          {
            role: 'assistant',
            content: '',
            toolCalls: [
              { id: 'a', name: 'write_file', arguments: { path: 'x' } },
              { id: 'b', name: 'bash', arguments: { command: 'rm -r build' } },
            ],
          },
          { role: 'tool', toolCallId: 'a', content: '[SUCCESS] wrote x' },
          { role: 'tool', toolCallId: 'b', content: '[EXECUTION_REJECTED] This call was not run: no' },
          { role: 'user', content: 'Also add a title.' },
        ],
      }),
    );
    expect(server.requests[0]!.body['messages']).toEqual([
      { role: 'user', content: 'Tidy up' },
      {
        role: 'assistant',
        content: [
          { type: 'tool_use', id: 'a', name: 'write_file', input: { path: 'x' } },
          { type: 'tool_use', id: 'b', name: 'bash', input: { command: 'rm -r build' } },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'a', content: '[SUCCESS] wrote x' },
          {
            type: 'tool_result',
            tool_use_id: 'b',
            content: '[EXECUTION_REJECTED] This call was not run: no',
            is_error: true,
          },
        ],
      },
      { role: 'user', content: 'Also add a title.' },
    ]);
  });

  it('reports malformed or cut-off tool input as argumentsError, never a throw', async () => {
    server.enqueue(
      streamed('', [{ id: 'toolu_2', name: 'write_file', json: ['{"path": "a.txt", "content": "hel'] }], 'max_tokens'),
    );
    const response = await provider().complete(modelRequest());
    expect(response.toolCalls?.[0]).toMatchObject({
      id: 'toolu_2',
      arguments: {},
      argumentsError: expect.stringMatching(/cut off|not valid JSON/),
    });
  });

  it('retries a 529 overload and a 429 with retry-after, then answers; a 400 is not retried and the key never shows', async () => {
    server.enqueue({
      kind: 'json',
      status: 529,
      body: { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } },
    });
    server.enqueue({
      kind: 'json',
      status: 429,
      headers: { 'retry-after': '0' },
      body: { type: 'error', error: { type: 'rate_limit_error', message: 'slow down' } },
    });
    server.enqueue(streamed('Fine.'));
    expect(await provider().complete(modelRequest())).toEqual({ text: 'Fine.' });
    expect(server.requests).toHaveLength(3);
    server.enqueue({
      kind: 'json',
      status: 400,
      body: { type: 'error', error: { type: 'invalid_request_error', message: `bad key ${API_KEY}` } },
    });
    const error = await provider()
      .complete(modelRequest())
      .catch((failure: unknown) => failure);
    expect(InterlockError.is(error) && error.code).toBe('MODEL_FAILED');
    expect(String((error as Error).message)).toMatch(
      /^anthropic model claude-test at http:\/\/127\.0\.0\.1:\d+ failed: 400 .*the server rejected the request/,
    );
    expect(String((error as Error).message)).not.toContain(API_KEY);
    expect(server.requests).toHaveLength(4);
  });

  it('says what to check of Anthropic, never of OpenAI, when a call fails (issue 28)', async () => {
    server.enqueue({
      kind: 'json',
      status: 404,
      body: { type: 'error', error: { type: 'not_found_error', message: 'model: claude-test' } },
    });
    const missing = await provider({ maxRetries: 0 })
      .complete(modelRequest())
      .catch((failure: unknown) => failure);
    expect(String((missing as Error).message)).toContain('check that Anthropic has a model named "claude-test"');
    const closed = await startMessagesServer();
    await closed.close();
    const unreachable = await provider({ baseURL: closed.baseURL, maxRetries: 0 })
      .complete(modelRequest())
      .catch((failure: unknown) => failure);
    for (const failure of [missing, unreachable]) {
      expect(String((failure as Error).message)).not.toMatch(/OpenAI|chat-completions|\/v1|Ollama/);
    }
    expect(String((unreachable as Error).message)).toContain('https://api.anthropic.com, or your proxy of it');
  });

  it('takes a whole answer without streaming', async () => {
    server.enqueue({
      kind: 'json',
      body: {
        id: 'msg',
        type: 'message',
        role: 'assistant',
        model: 'claude-test',
        stop_reason: 'tool_use',
        usage: { input_tokens: 1, output_tokens: 1 },
        content: [
          { type: 'text', text: 'Sure.' },
          { type: 'tool_use', id: 't1', name: 'read_file', input: { path: 'README.md' } },
        ],
      },
    });
    expect(await provider({ stream: false }).complete(modelRequest())).toEqual({
      text: 'Sure.',
      toolCalls: [{ id: 't1', name: 'read_file', arguments: { path: 'README.md' } }],
    });
  });

  it('runs a workflow whose tool calls go through the approvals, like the OpenAI provider', async () => {
    server.enqueue(streamed('Writing it.', [{ id: 'toolu_w', name: 'note', json: ['{"text":"hi"}'] }]));
    server.enqueue(streamed('Noted.'));
    let ran = 0;
    const note = defineTool({
      name: 'note',
      description: 'Notes',
      category: 'write',
      riskLevel: 'MEDIUM',
      parameters: z.object({ text: z.string() }),
      execute: async ({ text }) => `noted ${text} (${(ran += 1)})`,
    });
    const handler = scriptedHandler([{ outcome: 'responded', input: { approved: true } }]);
    const interlock = await createInterlock({
      models: { default: provider() },
      tools: [note],
      handlers: { cli: handler },
    });
    try {
      const workflow = interlock.registerWorkflow(
        linearWorkflow(
          [{ id: 'agent', type: 'LLM', config: { prompt: 'Note hi', tools: ['note'], outputVariable: 'output' } }],
          { id: 'claude-flow' },
        ),
      );
      expect(await (await interlock.start(workflow, { channel: 'cli' })).done()).toMatchObject({
        status: 'completed',
        output: 'Noted.',
      });
      expect(ran).toBe(1);
      expect(handler.requests[0]?.toolApproval?.toolName).toBe('note');
      expect(server.requests[1]!.body['messages']).toContainEqual({
        role: 'user',
        content: [{ type: 'tool_result', tool_use_id: 'toolu_w', content: expect.stringContaining('noted hi') }],
      });
    } finally {
      await interlock.close();
    }
  });
});
