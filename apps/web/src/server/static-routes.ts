import { readdir, readFile } from 'node:fs/promises';
import { extname, join } from 'node:path';
import type { FastifyInstance } from 'fastify';

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
};

/** Serves the page: every file of the public directory at `/<name>`, and index.html at `/`. No sign-in needed: the page signs in. */
export async function registerStaticRoutes(app: FastifyInstance, directory: string): Promise<void> {
  const names = (await readdir(directory)).filter((name) => CONTENT_TYPES[extname(name)] !== undefined);
  for (const name of names) {
    const body = await readFile(join(directory, name));
    const type = CONTENT_TYPES[extname(name)] ?? 'application/octet-stream';
    const send = async (
      _request: unknown,
      reply: { header(name: string, value: string): unknown; send(body: Buffer): unknown },
    ) => {
      reply.header('content-type', type);
      reply.header('cache-control', 'no-cache');
      return reply.send(body);
    };
    app.get(`/${name}`, { config: { public: true } }, send);
    if (name === 'index.html') app.get('/', { config: { public: true } }, send);
  }
}
