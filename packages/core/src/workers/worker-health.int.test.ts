import pg from 'pg';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { dropSchemas } from '../__fixtures__/postgres-schemas.js';
import { askNode, linearWorkflow } from '../__fixtures__/workflows.js';
import { until } from '../__fixtures__/until.js';
import { createWorker, type InterlockWorker } from '../index.js';
import { tcpGate, type TcpGate } from '../testing/tcp-gate.js';

/*
 * A worker's health port (F60): /healthz while the process lives, /readyz while its store
 * answers, its migrations are applied and its job queue takes jobs — 503 naming the check
 * that fails, so an orchestrator takes out (or restarts) a worker that is stuck. A real
 * PostgreSQL, reached through a gate the test closes.
 */

const url = process.env['INTERLOCK_TEST_POSTGRES_URL'] ?? '';
if (url === '')
  throw new Error('INTERLOCK_TEST_POSTGRES_URL is not set: run `eval "$(bash scripts/start-postgres.sh)"` first');
const run = `interlock_health_${process.pid}_${Date.now().toString(36)}`;
const schemas: string[] = [];
const closers: (() => Promise<unknown>)[] = [];

afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});
afterAll(() => dropSchemas(url, schemas));

/** Asks once, then ends. */
const ASK = linearWorkflow([askNode()], { id: 'ask' });

/** A worker on its own schema, reaching PostgreSQL through a gate, with its health port. */
async function gatedWorker(name: string): Promise<{ worker: InterlockWorker; gate: TcpGate; schema: string }> {
  const schema = `${run}_${name}`;
  schemas.push(schema);
  const gate = await tcpGate(url);
  closers.push(() => gate.close());
  const worker = await createWorker({
    store: { type: 'postgres', url: gate.url, schema, timeouts: { connectMs: 1_000, statementMs: 2_000 } },
    workflows: [ASK],
    pollMs: 200,
    healthPort: 0,
    onJobFailure: () => undefined,
  });
  closers.push(() => worker.stop());
  return { worker, gate, schema };
}

async function probe(worker: InterlockWorker, path: '/healthz' | '/readyz') {
  const response = await fetch(`${worker.healthUrl ?? ''}${path}`);
  return { status: response.status, body: (await response.json()) as { status: string; failing?: string[] } };
}

async function admin<T>(action: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await action(client);
  } finally {
    await client.end();
  }
}

describe('a worker’s health port (F60)', () => {
  it('answers /healthz and /readyz, every check passing, while the worker can work', async () => {
    const { worker } = await gatedWorker('ready');
    expect(await probe(worker, '/healthz')).toEqual({ status: 200, body: { status: 'ok' } });
    const ready = await probe(worker, '/readyz');
    expect(ready.status).toBe(200);
    expect(ready.body).toMatchObject({
      status: 'ready',
      failing: [],
      checks: [
        { name: 'store', ok: true },
        { name: 'migrations', ok: true },
        { name: 'jobQueue', ok: true },
      ],
    });
  });

  it('answers 503 naming the store when its database cannot be reached, and 200 once it can again', async () => {
    const { worker, gate } = await gatedWorker('store');
    gate.refuse();
    gate.cut();
    const down = await probe(worker, '/readyz');
    expect(down.status).toBe(503);
    expect(down.body.failing).toEqual(expect.arrayContaining(['store', 'migrations', 'jobQueue']));
    // The process itself lives: an orchestrator does not restart it for an outage of the database.
    expect((await probe(worker, '/healthz')).status).toBe(200);
    gate.admit();
    await until(
      'the worker to be ready again',
      () => probe(worker, '/readyz'),
      (answer) => answer.status === 200,
      30_000,
    );
  }, 60_000);

  it('answers 503 naming the job queue when its connections are killed and cannot come back', async () => {
    const { worker, gate } = await gatedWorker('queue');
    expect((await probe(worker, '/readyz')).status).toBe(200);
    gate.refuse();
    // The job queue's connections only (graphile-worker's, named interlock-jobs:…): the store's stay open.
    const killed = await admin(async (client) => {
      const result = await client.query<{ pid: number }>(
        `SELECT pg_terminate_backend(pid), pid FROM pg_stat_activity WHERE application_name LIKE 'interlock-jobs:%' AND client_port = ANY($1::int[])`,
        [gate.serverSidePorts()],
      );
      return result.rowCount;
    });
    expect(killed).toBeGreaterThan(0);
    const down = await until(
      'the job queue to be reported',
      () => probe(worker, '/readyz'),
      (answer) => answer.status === 503,
      10_000,
    );
    expect(down.body.failing).toContain('jobQueue');
    gate.admit();
    await until(
      'the job queue to be back',
      () => probe(worker, '/readyz'),
      (answer) => answer.status === 200,
      30_000,
    );
  }, 60_000);

  it('answers 503 naming the migrations when the database lacks one this version needs', async () => {
    const { worker, schema } = await gatedWorker('migrations');
    const removed = await admin((client) =>
      client.query<{ name: string }>(
        `DELETE FROM "${schema}".interlock_migrations WHERE id = (SELECT max(id) FROM "${schema}".interlock_migrations) RETURNING name, timestamp`,
      ),
    );
    const down = await probe(worker, '/readyz');
    expect(down.status).toBe(503);
    expect(down.body.failing).toEqual(['migrations']);
    expect(JSON.stringify(down.body)).toContain(removed.rows[0]?.name ?? 'no row removed');
  });
});
