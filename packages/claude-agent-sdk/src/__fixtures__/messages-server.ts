import { createServer } from 'node:http';

/** One scripted answer of the model: text, then tool_use blocks. */
export interface ScriptedMessage {
  text?: string;
  toolUses?: { id: string; name: string; input: Record<string, unknown> }[];
}

/**
 * A local server speaking Anthropic's Messages API as Claude Code uses it (`POST
 * /v1/messages`, streamed as Server-Sent Events). Requests that offer tools (the agent's
 * loop) get the scripted answers in order; any other request (Claude Code's own small
 * calls) gets a short text.
 */
export interface MessagesServer {
  /** `http://127.0.0.1:<port>`: ANTHROPIC_BASE_URL. */
  readonly baseURL: string;
  /** The bodies of the agent-loop requests, in order. */
  readonly requests: Record<string, unknown>[];
  enqueue(...answers: ScriptedMessage[]): void;
  close(): Promise<void>;
}

export async function startMessagesServer(): Promise<MessagesServer> {
  const requests: Record<string, unknown>[] = [];
  const queue: ScriptedMessage[] = [];
  const server = createServer((request, response) => {
    let text = '';
    request.on('data', (part: Buffer) => (text += part.toString('utf8')));
    request.on('end', () => {
      if (request.method !== 'POST' || !(request.url ?? '').startsWith('/v1/messages')) {
        response.writeHead(404).end();
        return;
      }
      const body = JSON.parse(text) as Record<string, unknown>;
      const agentLoop = Array.isArray(body['tools']) && (body['tools'] as unknown[]).length > 0;
      if (agentLoop) requests.push(body);
      const answer = agentLoop ? (queue.shift() ?? { text: 'Nothing more to do.' }) : { text: 'ok' };
      response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      for (const event of streamedEvents(answer, String(body['model'] ?? 'claude-fixture')))
        response.write(`event: ${String(event['type'])}\ndata: ${JSON.stringify(event)}\n\n`);
      response.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('the fixture server has no port');
  return {
    baseURL: `http://127.0.0.1:${address.port}`,
    requests,
    enqueue: (...answers) => queue.push(...answers),
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function streamedEvents(answer: ScriptedMessage, model: string): Record<string, unknown>[] {
  const toolUses = answer.toolUses ?? [];
  const events: Record<string, unknown>[] = [
    {
      type: 'message_start',
      message: {
        id: `msg_${Math.random().toString(36).slice(2)}`,
        type: 'message',
        role: 'assistant',
        model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { input_tokens: 1, output_tokens: 0 },
      },
    },
  ];
  let index = 0;
  if (answer.text !== undefined) {
    events.push(
      { type: 'content_block_start', index, content_block: { type: 'text', text: '' } },
      { type: 'content_block_delta', index, delta: { type: 'text_delta', text: answer.text } },
      { type: 'content_block_stop', index },
    );
    index += 1;
  }
  for (const toolUse of toolUses) {
    events.push(
      {
        type: 'content_block_start',
        index,
        content_block: { type: 'tool_use', id: toolUse.id, name: toolUse.name, input: {} },
      },
      {
        type: 'content_block_delta',
        index,
        delta: { type: 'input_json_delta', partial_json: JSON.stringify(toolUse.input) },
      },
      { type: 'content_block_stop', index },
    );
    index += 1;
  }
  events.push(
    {
      type: 'message_delta',
      delta: { stop_reason: toolUses.length > 0 ? 'tool_use' : 'end_turn', stop_sequence: null },
      usage: { output_tokens: 5 },
    },
    { type: 'message_stop' },
  );
  return events;
}
