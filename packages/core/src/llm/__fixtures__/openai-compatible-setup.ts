import { afterEach, beforeEach, vi } from 'vitest';
import { startChatCompletionsServer, type ChatCompletionsServer } from '../../__fixtures__/chat-completions-server.js';
import type { ModelRequest } from '../model-provider.js';
import { openAICompatible, type OpenAICompatibleOptions } from '../openai-compatible.js';

/*
 * What the openAICompatible tests (openai-compatible*.int.test.ts) share: a local server that
 * speaks chat-completions, fresh for each test, and a provider pointed at it.
 */

export const API_KEY = 'sk-test-secret-key-0123456789';

/**
 * Starts a chat-completions server before each test of the file and closes it (and undoes
 * `vi.stubEnv`) after. `server` stands for the running test's server; `provider` talks to it.
 */
export function useChatCompletionsServer() {
  let current: ChatCompletionsServer | undefined;

  beforeEach(async () => {
    current = await startChatCompletionsServer();
  });

  afterEach(async () => {
    vi.unstubAllEnvs();
    await current?.close();
    current = undefined;
  });

  const running = (): ChatCompletionsServer => {
    if (!current) throw new Error('the chat-completions server runs only during a test');
    return current;
  };

  const server: ChatCompletionsServer = {
    get baseURL() {
      return running().baseURL;
    },
    get requests() {
      return running().requests;
    },
    enqueue: (...replies) => running().enqueue(...replies),
    close: () => running().close(),
  };

  function provider(options: Partial<OpenAICompatibleOptions> = {}) {
    return openAICompatible({
      baseURL: server.baseURL,
      model: 'test-model',
      initialRetryDelayMs: 1,
      maxRetryDelayMs: 4,
      ...options,
    });
  }

  return { server, provider };
}

export function modelRequest(overrides: Partial<ModelRequest> = {}): ModelRequest {
  return {
    threadId: 'thread-1',
    nodeId: 'agent',
    messages: [{ role: 'user', content: 'Hello' }],
    signal: new AbortController().signal,
    ...overrides,
  };
}
