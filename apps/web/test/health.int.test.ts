import { storeReadiness } from '@interlock/core';
import pg from 'pg';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { createDeploymentInterlock } from '../src/deployment/deployment-interlock.js';
import { createWebServer } from '../src/server/create-web-server.js';
import { dropDeploymentSchemas, newDeployment } from './deployment/deployment-harness.js';
import { tcpGate, type TcpGate } from '@interlock/core/testing';
import { eventually } from './web-harness.js';

/*
 * The web server's health endpoints (F60): /healthz while the process answers, /readyz while
 * its store answers, its migrations are applied and its job queue can take the answers'
 * jobs — 503 naming the check that fails. A deployment's inbox on a real PostgreSQL, reached
 * through a gate the test closes.
 */

const closers: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});
afterAll(() => dropDeploymentSchemas());

async function inbox(): Promise<{ baseUrl: string; gate: TcpGate; schema: string; url: string }> {
  const { store } = await newDeployment();
  const gate = await tcpGate(store.url);
  closers.push(() => gate.close());
  const storeOptions = {
    type: 'postgres' as const,
    url: gate.url,
    schema: store.schema,
    timeouts: { connectMs: 1_000, statementMs: 2_000 },
  };
  const web = await createDeploymentInterlock({ store: storeOptions });
  const readiness = storeReadiness(web.store, storeOptions, { jobQueue: true });
  const app = await createWebServer({
    interlock: web.interlock,
    store: web.store,
    approvers: [],
    workflows: web.workflows,
    expireDeadlines: false,
    readiness: readiness.checks,
    // Probes come often: none of them is limited.
    rateLimits: { perMinute: 2 },
  });
  const baseUrl = await app.listen({ host: '127.0.0.1', port: 0 });
  closers.push(
    () => web.close(),
    () => readiness.close(),
    () => app.close(),
  );
  return { baseUrl, gate, schema: store.schema, url: store.url };
}

async function probe(baseUrl: string, path: '/healthz' | '/readyz') {
  const response = await fetch(`${baseUrl}${path}`);
  return { status: response.status, body: (await response.json()) as { status: string; failing?: string[] } };
}

async function admin(url: string, sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

describe('the web server’s health endpoints (F60)', () => {
  it('answers /healthz and /readyz without a sign-in or a rate limit, every check passing', async () => {
    const { baseUrl } = await inbox();
    for (let probes = 0; probes < 4; probes += 1) {
      expect(await probe(baseUrl, '/healthz')).toEqual({ status: 200, body: { status: 'ok' } });
      const ready = await probe(baseUrl, '/readyz');
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
    }
  });

  it('answers 503 naming the store when the database cannot be reached, and 200 once it can again', async () => {
    const { baseUrl, gate } = await inbox();
    gate.refuse();
    gate.cut();
    const down = await probe(baseUrl, '/readyz');
    expect(down.status).toBe(503);
    expect(down.body).toMatchObject({ status: 'unready', failing: expect.arrayContaining(['store']) });
    expect((await probe(baseUrl, '/healthz')).status).toBe(200);
    gate.admit();
    await eventually(async () => ((await probe(baseUrl, '/readyz')).status === 200 ? true : undefined), 15_000);
  });

  it('answers 503 naming the job queue when answers could no longer be handed to workers', async () => {
    const { baseUrl, schema, url } = await inbox();
    await admin(url, `ALTER TABLE "${schema}_jobs"._private_jobs RENAME TO _private_jobs_away`);
    const down = await probe(baseUrl, '/readyz');
    expect(down.status).toBe(503);
    expect(down.body.failing).toEqual(['jobQueue']);
    await admin(url, `ALTER TABLE "${schema}_jobs"._private_jobs_away RENAME TO _private_jobs`);
    expect((await probe(baseUrl, '/readyz')).status).toBe(200);
  });

  it('answers 503 naming the migrations when the database lacks one this version needs', async () => {
    const { baseUrl, schema, url } = await inbox();
    await admin(url, `DELETE FROM "${schema}".interlock_migrations WHERE name LIKE 'AddCommitFunction%'`);
    const down = await probe(baseUrl, '/readyz');
    expect(down.status).toBe(503);
    expect(down.body.failing).toEqual(['migrations']);
    expect(JSON.stringify(down.body)).toContain('AddCommitFunction1796256000000');
  });
});
