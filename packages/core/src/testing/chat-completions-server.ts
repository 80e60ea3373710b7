import { createServer, type ServerResponse } from 'node:http';

/** One scripted answer of the model: text, or tool calls (arguments as objects). */
export interface ScriptedCompletion {
  text?: string;
  toolCalls?: { id: string; name: string; arguments: Record<string, unknown> }[];
}

/**
 * A local server speaking OpenAI's chat completions, answering from a script in order: one
 * JSON completion, or — for a request with `stream: true` — server-sent chunks as OpenAI
 * streams them (text and tool-call arguments in pieces, then `[DONE]`).
 */
export interface ChatCompletionsServer {
  /** `http://127.0.0.1:<port>/v1`. */
  readonly baseURL: string;
  /** The bodies of the requests received, in order. */
  readonly requests: Record<string, unknown>[];
  enqueue(...answers: ScriptedCompletion[]): void;
  close(): Promise<void>;
}

export async function startChatCompletionsServer(): Promise<ChatCompletionsServer> {
  const requests: Record<string, unknown>[] = [];
  const queue: ScriptedCompletion[] = [];
  const server = createServer((request, response) => {
    let text = '';
    request.on('data', (part: Buffer) => (text += part.toString('utf8')));
    request.on('end', () => {
      const body = JSON.parse(text) as Record<string, unknown>;
      requests.push(body);
      const answer = queue.shift();
      if (request.url !== '/v1/chat/completions' || answer === undefined) {
        response.writeHead(400, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ error: { message: `no scripted answer for ${request.url ?? ''}` } }));
        return;
      }
      const id = `chatcmpl-${requests.length}`;
      if (body['stream'] === true) {
        const options = body['stream_options'] as { include_usage?: boolean } | undefined;
        streamAnswer(response, id, answer, options?.include_usage === true);
        return;
      }
      const toolCalls = answer.toolCalls ?? [];
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(
        JSON.stringify({
          id,
          object: 'chat.completion',
          created: 1_700_000_000,
          model: 'fixture-model',
          choices: [
            {
              index: 0,
              message: {
                role: 'assistant',
                content: answer.text ?? null,
                ...(toolCalls.length === 0
                  ? {}
                  : {
                      tool_calls: toolCalls.map((call) => ({
                        id: call.id,
                        type: 'function',
                        function: { name: call.name, arguments: JSON.stringify(call.arguments) },
                      })),
                    }),
              },
              finish_reason: toolCalls.length === 0 ? 'stop' : 'tool_calls',
            },
          ],
          usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
        }),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('the fixture server has no port');
  return {
    baseURL: `http://127.0.0.1:${address.port}/v1`,
    requests,
    enqueue: (...answers) => queue.push(...answers),
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** The answer as `chat.completion.chunk` events: the role, the text or each call's arguments in pieces, the finish reason. */
function streamAnswer(response: ServerResponse, id: string, answer: ScriptedCompletion, includeUsage: boolean): void {
  const chunk = (delta: Record<string, unknown>, finishReason: string | null = null) => ({
    id,
    object: 'chat.completion.chunk',
    created: 1_700_000_000,
    model: 'fixture-model',
    choices: [{ index: 0, delta, finish_reason: finishReason }],
  });
  const events: unknown[] = [chunk({ role: 'assistant', content: '' })];
  for (const piece of pieces(answer.text ?? '')) events.push(chunk({ content: piece }));
  (answer.toolCalls ?? []).forEach((call, index) => {
    events.push(
      chunk({
        tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.name, arguments: '' } }],
      }),
    );
    for (const piece of pieces(JSON.stringify(call.arguments)))
      events.push(chunk({ tool_calls: [{ index, function: { arguments: piece } }] }));
  });
  events.push(chunk({}, (answer.toolCalls ?? []).length === 0 ? 'stop' : 'tool_calls'));
  if (includeUsage) {
    events.push({
      id,
      object: 'chat.completion.chunk',
      created: 1_700_000_000,
      model: 'fixture-model',
      choices: [],
      usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
    });
  }
  response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  for (const event of events) response.write(`data: ${JSON.stringify(event)}\n\n`);
  response.end('data: [DONE]\n\n');
}

/** Text in pieces of a few characters, as a model streams it. */
function pieces(text: string): string[] {
  const found: string[] = [];
  for (let start = 0; start < text.length; start += 5) found.push(text.slice(start, start + 5));
  return found;
}
