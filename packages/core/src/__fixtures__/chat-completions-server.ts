import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';

/** One request the fixture server received. */
export interface RecordedRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  /** The parsed JSON body (the raw text when it was not JSON). */
  body: unknown;
  /** True once the client closed the connection before the reply was complete (an abort). */
  closedEarly: boolean;
}

/** How the server answers one request; replies are used in the order they were queued. */
export type ScriptedReply =
  /** A non-streamed JSON answer (see {@link chatCompletion}). */
  | { kind: 'json'; body: unknown }
  /**
   * An SSE stream: one `data:` event per chunk (see {@link chunk}), then `data: [DONE]`.
   * `breakAfter` destroys the connection after the chunks instead, like a server that dies;
   * `chunkIntervalMs` spaces the chunks out, like a slow model.
   */
  | { kind: 'stream'; chunks: unknown[]; breakAfter?: boolean; chunkIntervalMs?: number }
  /** An error status with OpenAI's error body, `times` times in a row (default once). */
  | { kind: 'error'; status: number; message?: string; headers?: Record<string, string>; times?: number }
  /** Never finishes; with `chunks`, starts an SSE stream with them first. */
  | { kind: 'hang'; chunks?: unknown[] };

/** A node:http server on 127.0.0.1 that speaks `POST /v1/chat/completions` from a script. */
export interface ChatCompletionsServer {
  /** `http://127.0.0.1:<port>/v1`, the `baseURL` to give a provider. */
  readonly baseURL: string;
  readonly requests: readonly RecordedRequest[];
  /** Queues replies; with the queue empty the server answers 400 and says so. */
  enqueue(...replies: ScriptedReply[]): void;
  close(): Promise<void>;
}

/** Starts a fixture server on a free port. Close it in `afterEach`. */
export async function startChatCompletionsServer(): Promise<ChatCompletionsServer> {
  const requests: RecordedRequest[] = [];
  const queue: ScriptedReply[] = [];

  const server = createServer((request, response) => {
    const parts: Buffer[] = [];
    request.on('data', (part: Buffer) => parts.push(part));
    request.on('end', () => {
      const text = Buffer.concat(parts).toString('utf8');
      const record: RecordedRequest = {
        method: request.method ?? '',
        url: request.url ?? '',
        headers: request.headers,
        body: parseJson(text),
        closedEarly: false,
      };
      requests.push(record);
      response.on('close', () => {
        if (!response.writableFinished) record.closedEarly = true;
      });
      if (request.method !== 'POST' || request.url !== '/v1/chat/completions') {
        sendError(
          response,
          404,
          `the fixture server speaks POST /v1/chat/completions only, not ${request.method} ${request.url}`,
        );
        return;
      }
      const reply = queue.shift();
      if (reply === undefined) {
        sendError(
          response,
          400,
          `the fixture server has no scripted reply for request ${requests.length}: enqueue one`,
        );
        return;
      }
      answer(reply, response);
    });
  });

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string')
    throw new Error(`the fixture server is not on a TCP port: ${address}`);
  const { port } = address;

  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    requests,
    enqueue(...replies) {
      for (const reply of replies) {
        const times = reply.kind === 'error' ? (reply.times ?? 1) : 1;
        for (let time = 0; time < times; time += 1) queue.push(reply);
      }
    },
    close() {
      server.closeAllConnections();
      return new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve())));
    },
  };
}

/** A non-streamed chat completion with text and/or tool calls (arguments as raw strings). */
export function chatCompletion(options: {
  content?: string | null;
  toolCalls?: { id: string; name: string; arguments: string }[];
  finishReason?: string;
}): Record<string, unknown> {
  const toolCalls = options.toolCalls ?? [];
  return {
    id: 'chatcmpl-fixture',
    object: 'chat.completion',
    created: 1_700_000_000,
    model: 'fixture-model',
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: options.content ?? null,
          refusal: null,
          ...(toolCalls.length > 0
            ? {
                tool_calls: toolCalls.map((call) => ({
                  id: call.id,
                  type: 'function',
                  function: { name: call.name, arguments: call.arguments },
                })),
              }
            : {}),
        },
        logprobs: null,
        finish_reason: options.finishReason ?? (toolCalls.length > 0 ? 'tool_calls' : 'stop'),
      },
    ],
  };
}

/** One streamed chunk with the given delta (`{ content }` or `{ tool_calls }`). */
export function chunk(delta: Record<string, unknown>, finishReason: string | null = null): Record<string, unknown> {
  return {
    id: 'chatcmpl-fixture',
    object: 'chat.completion.chunk',
    created: 1_700_000_000,
    model: 'fixture-model',
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
  };
}

/** A streamed piece of a tool call: id and name come first, the arguments in pieces after. */
export function toolCallDelta(
  index: number,
  piece: { id?: string; name?: string; arguments?: string },
): Record<string, unknown> {
  return {
    tool_calls: [
      {
        index,
        ...(piece.id === undefined ? {} : { id: piece.id, type: 'function' }),
        function: {
          ...(piece.name === undefined ? {} : { name: piece.name }),
          ...(piece.arguments === undefined ? {} : { arguments: piece.arguments }),
        },
      },
    ],
  };
}

function answer(reply: ScriptedReply, response: ServerResponse): void {
  switch (reply.kind) {
    case 'error':
      sendError(response, reply.status, reply.message ?? `scripted ${reply.status}`, reply.headers);
      return;
    case 'json':
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify(reply.body));
      return;
    case 'stream':
      void startStream(response, reply.chunks, reply.chunkIntervalMs).then(
        () => {
          if (reply.breakAfter) {
            // Once the chunks are on the wire: destroying at once could drop them unsent.
            response.write('', () => setTimeout(() => response.socket?.destroy(), 10));
            return;
          }
          response.end('data: [DONE]\n\n');
        },
        (error: unknown) => response.destroy(error instanceof Error ? error : new Error(String(error))),
      );
      return;
    case 'hang':
      if (reply.chunks) startStream(response, reply.chunks).catch((error: unknown) => response.destroy(error as Error));
      return;
  }
}

async function startStream(response: ServerResponse, chunks: unknown[], intervalMs = 0): Promise<void> {
  response.writeHead(200, {
    'content-type': 'text/event-stream',
    'cache-control': 'no-cache',
    connection: 'keep-alive',
  });
  response.flushHeaders();
  for (const [position, data] of chunks.entries()) {
    if (intervalMs > 0 && position > 0) await new Promise((resolve) => setTimeout(resolve, intervalMs));
    response.write(`data: ${JSON.stringify(data)}\n\n`);
  }
}

function sendError(
  response: ServerResponse,
  status: number,
  message: string,
  headers: Record<string, string> = {},
): void {
  response.writeHead(status, { 'content-type': 'application/json', ...headers });
  response.end(JSON.stringify({ error: { message, type: 'fixture_error', param: null, code: null } }));
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
