import { createServer } from 'node:net';
import { describe, expect, it, vi } from 'vitest';
import { chunk, toolCallDelta } from '../__fixtures__/chat-completions-server.js';
import { InterlockError } from '../errors/interlock-error.js';
import { API_KEY, modelRequest, useChatCompletionsServer } from './__fixtures__/openai-compatible-setup.js';

// How openAICompatible retries, fails (without the key) and is cancelled.
// Answers and requests: openai-compatible.int.test.ts.

const { server, provider } = useChatCompletionsServer();

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
