import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { checkReadiness, readinessAnswer, storeReadiness, type ReadinessCheck } from '../health/readiness.js';
import { InterlockError } from '../errors/interlock-error.js';
import type { ICheckpointStore } from '../persistence/checkpoint-store.js';
import type { StoreOptions } from '../persistence/open-store.js';
import type { JobConsumer } from './job-consumers.js';

/** A worker's health endpoints (F60), listening until `close()`. */
export interface HealthListener {
  /** `http://host:port`, the port the system gave when 0 was asked for. */
  readonly url: string;
  close(): Promise<void>;
}

/**
 * Answers `GET /healthz` (the process lives: 200) and `GET /readyz` (every check passes:
 * 200; otherwise 503 with the failing checks' names) on a port of its own, for an
 * orchestrator's probes. Nothing else is served; nothing is logged.
 *
 * @throws InterlockError INVALID_OPTIONS when the port is not a port number or cannot be listened on.
 */
export async function listenForHealth(options: {
  port: number;
  host?: string;
  checks: readonly ReadinessCheck[];
}): Promise<HealthListener> {
  const { port, host = '127.0.0.1', checks } = options;
  if (!Number.isInteger(port) || port < 0 || port > 65_535)
    throw new InterlockError(
      'INVALID_OPTIONS',
      `healthPort must be a port number from 0 to 65535, not ${String(port)}`,
    );
  const server = createServer((request, response) => void answer(request, response, checks));
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error) =>
      reject(
        new InterlockError('INVALID_OPTIONS', `cannot listen for health checks on ${host}:${port}: ${error.message}`, {
          cause: error,
        }),
      ),
    );
    server.listen(port, host, resolve);
  });
  const address = server.address();
  const bound = typeof address === 'object' && address !== null ? address.port : port;
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${bound}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

async function answer(request: IncomingMessage, response: ServerResponse, checks: readonly ReadinessCheck[]) {
  const path = (request.url ?? '/').split('?')[0];
  const send = (statusCode: number, body: unknown) => {
    response.writeHead(statusCode, { 'content-type': 'application/json', 'cache-control': 'no-store' });
    response.end(request.method === 'HEAD' ? undefined : JSON.stringify(body));
  };
  if (request.method !== 'GET' && request.method !== 'HEAD') send(405, { status: 'method not allowed' });
  else if (path === '/healthz') send(200, { status: 'ok' });
  else if (path !== '/readyz') send(404, { status: 'not found: /healthz or /readyz' });
  else {
    const { statusCode, body } = readinessAnswer(await checkReadiness(checks));
    send(statusCode, body);
  }
}

/** A worker's health port: its store, the migrations, and its job queue taking jobs (its own pool answering). */
export async function listenForWorkerHealth(
  store: ICheckpointStore,
  storeOptions: StoreOptions,
  consumer: Pick<JobConsumer, 'probe'>,
  port: number,
  host: string | undefined,
): Promise<HealthListener> {
  const readiness = storeReadiness(store, storeOptions);
  const jobQueue = { name: 'jobQueue', check: () => consumer.probe() };
  const listener = await listenForHealth({
    port,
    checks: [...readiness.checks, jobQueue],
    ...(host === undefined ? {} : { host }),
  });
  return {
    url: listener.url,
    close: async () => {
      await listener.close();
      await readiness.close();
    },
  };
}
