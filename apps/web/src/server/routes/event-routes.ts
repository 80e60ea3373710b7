import type { ServerResponse } from 'node:http';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { LiveChange, LiveUpdates } from '../live-updates.js';

/** How often an idle stream gets a comment, so proxies keep it open. */
const HEARTBEAT_MS = 20_000;

/**
 * `GET /api/events`: Server-Sent Events, one `change` message per change (see
 * {@link LiveChange}); the page refetches what it shows. A stream ends when the server
 * closes, or when its session ended (sign-out, expiry): `stillSignedIn` is asked before
 * every message and heartbeat.
 */
export function registerEventRoutes(
  app: FastifyInstance,
  live: LiveUpdates,
  stillSignedIn: (request: FastifyRequest) => boolean,
  extraSources: ReadonlyArray<(listener: (change: LiveChange) => void) => () => void> = [],
): void {
  const streams = new Set<ServerResponse>();

  app.get('/api/events', (request, reply) => {
    reply.hijack();
    const response = reply.raw;
    response.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-store',
      connection: 'keep-alive',
      'x-accel-buffering': 'no',
    });
    response.write('retry: 2000\n: connected\n\n');
    const write = (text: string) => {
      if (stillSignedIn(request)) response.write(text);
      else response.end();
    };
    const send = (change: LiveChange) => write(`event: change\ndata: ${JSON.stringify(change)}\n\n`);
    const unsubscribers = [live.subscribe(send), ...extraSources.map((source) => source(send))];
    const heartbeat = setInterval(() => write(': heartbeat\n\n'), HEARTBEAT_MS);
    heartbeat.unref();
    streams.add(response);
    request.raw.on('close', () => {
      clearInterval(heartbeat);
      for (const unsubscribe of unsubscribers) unsubscribe();
      streams.delete(response);
    });
  });

  // Open streams would keep the server from closing: end them first.
  app.addHook('preClose', async () => {
    for (const response of streams) response.end();
    streams.clear();
  });
}
