import { createServer } from 'node:http';

/** One scripted answer of the model: text, or tool calls (arguments as objects). */
export interface ScriptedAnswer {
  text?: string;
  toolCalls?: { id: string; name: string; arguments: Record<string, unknown> }[];
}

/** A local server speaking OpenAI's chat completions (non-streamed), answering from a script in order. */
export interface ChatCompletionsServer {
  /** `http://127.0.0.1:<port>/v1`. */
  readonly baseURL: string;
  /** The bodies of the requests received, in order. */
  readonly requests: Record<string, unknown>[];
  enqueue(...answers: ScriptedAnswer[]): void;
  close(): Promise<void>;
}

export async function startChatCompletionsServer(): Promise<ChatCompletionsServer> {
  const requests: Record<string, unknown>[] = [];
  const queue: ScriptedAnswer[] = [];
  const server = createServer((request, response) => {
    let text = '';
    request.on('data', (part: Buffer) => (text += part.toString('utf8')));
    request.on('end', () => {
      requests.push(JSON.parse(text) as Record<string, unknown>);
      const answer = queue.shift();
      if (request.url !== '/v1/chat/completions' || answer === undefined) {
        response.writeHead(400, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ error: { message: `no scripted answer for ${request.url ?? ''}` } }));
        return;
      }
      const toolCalls = answer.toolCalls ?? [];
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(
        JSON.stringify({
          id: `chatcmpl-${requests.length}`,
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
