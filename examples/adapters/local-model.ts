import { createServer } from 'node:http';

/** A turn of the scripted model: text, or tool calls. */
export interface ScriptedTurn {
  text?: string;
  toolCalls?: { id: string; name: string; arguments: Record<string, unknown> }[];
}

/**
 * A model on 127.0.0.1 that answers OpenAI's chat completions from a script (`format:
 * 'chat'`) or Anthropic's Messages, streamed (`format: 'messages'`), so the examples run
 * offline. Requests that offer no tools (a framework's own small calls) get a short text.
 */
export async function startLocalModel(
  format: 'chat' | 'messages',
  turns: ScriptedTurn[],
): Promise<{ baseURL: string; close(): Promise<void> }> {
  let answered = 0;
  const server = createServer((request, response) => {
    let body = '';
    request.on('data', (part: Buffer) => (body += part.toString('utf8')));
    request.on('end', () => {
      const parsed = JSON.parse(body) as { tools?: unknown[] };
      answered += 1;
      // Each answer its own id: LangChain keeps one message per id.
      const id = `local-${String(answered)}`;
      const turn =
        parsed.tools !== undefined && parsed.tools.length > 0 ? (turns.shift() ?? { text: 'Done.' }) : { text: 'ok' };
      if (format === 'chat') {
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(JSON.stringify(chatCompletion(turn, id)));
        return;
      }
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      for (const event of messageEvents(turn, id))
        response.write(`event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`);
      response.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  return {
    baseURL: format === 'chat' ? `http://127.0.0.1:${port}/v1` : `http://127.0.0.1:${port}`,
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function chatCompletion(turn: ScriptedTurn, id: string) {
  const calls = turn.toolCalls ?? [];
  return {
    id,
    object: 'chat.completion',
    created: 0,
    model: 'local',
    choices: [
      {
        index: 0,
        finish_reason: calls.length > 0 ? 'tool_calls' : 'stop',
        message: {
          role: 'assistant',
          content: turn.text ?? null,
          ...(calls.length > 0
            ? {
                tool_calls: calls.map((call) => ({
                  id: call.id,
                  type: 'function',
                  function: { name: call.name, arguments: JSON.stringify(call.arguments) },
                })),
              }
            : {}),
        },
      },
    ],
    usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
  };
}

function messageEvents(turn: ScriptedTurn, id: string): { type: string; [key: string]: unknown }[] {
  const calls = turn.toolCalls ?? [];
  const blocks = [
    ...(turn.text === undefined
      ? []
      : [{ start: { type: 'text', text: '' }, delta: { type: 'text_delta', text: turn.text } }]),
    ...calls.map((call) => ({
      start: { type: 'tool_use', id: call.id, name: call.name, input: {} },
      delta: { type: 'input_json_delta', partial_json: JSON.stringify(call.arguments) },
    })),
  ];
  const usage = { input_tokens: 1, output_tokens: 1 };
  return [
    {
      type: 'message_start',
      message: {
        id,
        type: 'message',
        role: 'assistant',
        model: 'local',
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage,
      },
    },
    ...blocks.flatMap((block, index) => [
      { type: 'content_block_start', index, content_block: block.start },
      { type: 'content_block_delta', index, delta: block.delta },
      { type: 'content_block_stop', index },
    ]),
    {
      type: 'message_delta',
      delta: { stop_reason: calls.length > 0 ? 'tool_use' : 'end_turn', stop_sequence: null },
      usage: { output_tokens: 1 },
    },
    { type: 'message_stop' },
  ];
}
