import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';

/** How the fixture answers one request to `POST /v1/messages`. */
export type MessagesReply =
  | { kind: 'json'; body: unknown; status?: number; headers?: Record<string, string> }
  | { kind: 'stream'; events: Array<Record<string, unknown>> };

/** A node:http server on 127.0.0.1 that speaks Anthropic's Messages API from a script (JSON or Server-Sent Events). */
export interface MessagesServer {
  /** `http://127.0.0.1:<port>`, the `baseURL` to give the provider. */
  baseURL: string;
  requests: Array<{ headers: IncomingMessage['headers']; body: Record<string, unknown> }>;
  enqueue(reply: MessagesReply): void;
  close(): Promise<void>;
}

/** Starts a fixture server on a free port; with no reply queued it answers 500. */
export async function startMessagesServer(): Promise<MessagesServer> {
  const replies: MessagesReply[] = [];
  const requests: MessagesServer['requests'] = [];
  const server: Server = createServer((request: IncomingMessage, response: ServerResponse) => {
    let text = '';
    request.on('data', (chunk: Buffer) => (text += chunk.toString()));
    request.on('end', () => {
      requests.push({ headers: request.headers, body: JSON.parse(text) as Record<string, unknown> });
      const reply = replies.shift() ?? {
        kind: 'json',
        status: 500,
        body: { type: 'error', error: { type: 'api_error', message: 'no reply queued' } },
      };
      if (request.url !== '/v1/messages') {
        response.writeHead(404).end();
        return;
      }
      if (reply.kind === 'json') {
        response
          .writeHead(reply.status ?? 200, { 'content-type': 'application/json', ...reply.headers })
          .end(JSON.stringify(reply.body));
        return;
      }
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      for (const event of reply.events)
        response.write(`event: ${String(event['type'])}\ndata: ${JSON.stringify(event)}\n\n`);
      response.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return {
    baseURL: `http://127.0.0.1:${address.port}`,
    requests,
    enqueue: (reply) => replies.push(reply),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** A streamed answer: text, then tool_use blocks whose input arrives as JSON pieces. */
export function streamedMessage(
  text: string,
  tools: Array<{ id: string; name: string; json: string[] }> = [],
  stopReason = tools.length > 0 ? 'tool_use' : 'end_turn',
) {
  const events: Array<Record<string, unknown>> = [
    {
      type: 'message_start',
      message: {
        id: 'msg_1',
        type: 'message',
        role: 'assistant',
        model: 'claude-test',
        content: [],
        stop_reason: null,
        usage: { input_tokens: 1, output_tokens: 0 },
      },
    },
  ];
  events.push({ type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } });
  for (const piece of text.match(/.{1,4}/g) ?? [])
    events.push({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: piece } });
  events.push({ type: 'content_block_stop', index: 0 });
  for (const [offset, tool] of tools.entries()) {
    const index = offset + 1;
    events.push({
      type: 'content_block_start',
      index,
      content_block: { type: 'tool_use', id: tool.id, name: tool.name, input: {} },
    });
    for (const piece of tool.json)
      events.push({ type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: piece } });
    events.push({ type: 'content_block_stop', index });
  }
  events.push({
    type: 'message_delta',
    delta: { stop_reason: stopReason, stop_sequence: null },
    usage: { output_tokens: 5 },
  });
  events.push({ type: 'message_stop' });
  return { kind: 'stream' as const, events };
}
