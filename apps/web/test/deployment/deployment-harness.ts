import type { ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openStore } from '@interlock/core';
import { until, spawnProcessGroup } from '@interlock/core/testing';
import type { WorkflowDefinitionInput } from '@interlock/sdk-types';
import pg from 'pg';

/*
 * A deployment on one real PostgreSQL (issue 12): the team's service and its workers
 * (refund-service.mjs, running the built @interlock/core), and the built web server,
 * each its own process; a ledger outside the database counts real refunds.
 */

const SERVICE = fileURLToPath(new URL('./refund-service.mjs', import.meta.url));
const WEB_MAIN = fileURLToPath(new URL('../../dist/main.js', import.meta.url));
const postgresUrl = process.env['INTERLOCK_TEST_POSTGRES_URL'];
const schemas: string[] = [];

export interface Deployment {
  store: { type: 'postgres'; url: string; schema: string };
  dir: string;
  ledger: string;
  workflow: string;
}

/** START → agent (proposes one `refund`, which asks an approver) → END. */
export const REFUND_WORKFLOW: WorkflowDefinitionInput = {
  id: 'refund',
  name: 'Refund',
  version: '1',
  config: { toolApproval: { autoApprovedTools: [], approvalTimeout: '1h' } },
  variables: [{ name: 'output', scope: 'thread' }],
  nodes: [
    { id: 'start', type: 'START' },
    {
      id: 'agent',
      type: 'LLM',
      config: { systemPrompt: 'Refund the order.', tools: ['refund'], outputVariable: 'output' },
    },
    { id: 'end', type: 'END', config: { output: '{{ output }}' } },
  ],
  edges: [
    { from: 'start', to: 'agent' },
    { from: 'agent', to: 'end' },
  ],
};

export async function newDeployment(): Promise<Deployment> {
  if (!postgresUrl)
    throw new Error('INTERLOCK_TEST_POSTGRES_URL is not set: run `eval "$(bash scripts/start-postgres.sh)"` first');
  const dir = await mkdtemp(join(tmpdir(), 'interlock-deployment-'));
  const workflow = join(dir, 'refund.json');
  await writeFile(workflow, JSON.stringify(REFUND_WORKFLOW));
  const schema = `interlock_deploy_${process.pid}_${Date.now().toString(36)}_${schemas.length}`;
  schemas.push(schema);
  return { store: { type: 'postgres', url: postgresUrl, schema }, dir, ledger: join(dir, 'ledger.log'), workflow };
}

export async function dropDeploymentSchemas(): Promise<void> {
  if (!postgresUrl || schemas.length === 0) return;
  const admin = new pg.Client({ connectionString: postgresUrl });
  await admin.connect();
  try {
    for (const schema of schemas.splice(0)) {
      await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await admin.query(`DROP SCHEMA IF EXISTS "${schema}_jobs" CASCADE`);
    }
  } finally {
    await admin.end();
  }
}

export interface Child {
  child: ChildProcess;
  /** Resolves with the text printed so far once `pattern` matched it. */
  printed(pattern: RegExp): Promise<RegExpExecArray>;
  exit: Promise<{ code: number | null; stdout: string; stderr: string }>;
}

export function watch(child: ChildProcess): Child {
  let stdout = '';
  let stderr = '';
  const waiting: { pattern: RegExp; resolve: (match: RegExpExecArray) => void }[] = [];
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk;
    for (const waiter of [...waiting]) {
      const match = waiter.pattern.exec(stdout);
      if (match) {
        waiting.splice(waiting.indexOf(waiter), 1);
        waiter.resolve(match);
      }
    }
  });
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const exit = new Promise<Awaited<Child['exit']>>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
  return {
    child,
    exit,
    printed: (pattern) =>
      new Promise((resolve, reject) => {
        const match = pattern.exec(stdout);
        if (match) return resolve(match);
        waiting.push({ pattern, resolve });
        void exit.then(() => reject(new Error(`exited before printing ${pattern}:\n${stdout}\n${stderr}`)));
      }),
  };
}

export function startService(
  deployment: Deployment,
  config: Record<string, unknown>,
  environment: NodeJS.ProcessEnv = {},
): Child {
  const env = {
    ...process.env,
    ...environment,
    SERVICE_CONFIG: JSON.stringify({
      store: deployment.store,
      ledger: deployment.ledger,
      workflow: deployment.workflow,
      ...config,
    }),
  };
  return watch(spawnProcessGroup(process.execPath, [SERVICE], { env, stdio: ['ignore', 'pipe', 'pipe'] }));
}

/** What a service process printed as its result. */
export function resultOf(stdout: string): { threadIds?: string[]; threads?: string[] } | undefined {
  const line = stdout.split('\n').find((candidate) => candidate.startsWith('SERVICE-RESULT '));
  return line === undefined ? undefined : JSON.parse(line.slice('SERVICE-RESULT '.length));
}

/** The built `interlock-web` of a deployment (no --demo) on the deployment's store; resolves with its address and admin token. */
export async function startWebServer(
  deployment: Deployment,
): Promise<{ server: Child; baseUrl: string; token: string }> {
  const url = new URL(deployment.store.url);
  url.searchParams.set('schema', deployment.store.schema);
  const args = [
    WEB_MAIN,
    '--store',
    url.toString(),
    '--port',
    '0',
    '--approvers',
    join(deployment.dir, 'approvers.json'),
    '--new-token',
    '--rate-limit',
    '1000000',
  ];
  const server = watch(
    spawnProcessGroup(process.execPath, args, {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, INTERLOCK_STORE: '' },
    }),
  );
  const [, baseUrl = ''] = await server.printed(/Interlock web inbox: (http:\/\/\S+?)\/\n/);
  const [, token = ''] = await server.printed(/\n\n {2}(\S+)\n\n/);
  return { server, baseUrl, token };
}

export function ledgerLines(deployment: Deployment): string[] {
  return existsSync(deployment.ledger) ? readFileSync(deployment.ledger, 'utf8').split('\n').filter(Boolean) : [];
}

/** One authenticated JSON call to the web server. */
export async function api(
  baseUrl: string,
  token: string,
  path: string,
  body?: unknown,
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read whatever JSON came back
): Promise<{ status: number; body: any }> {
  const response = await fetch(`${baseUrl}${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, body: text === '' ? undefined : JSON.parse(text) };
}

export { until } from '@interlock/core/testing';

/**
 * Waits until every claim on a thread held when it is called has run out, or was renewed,
 * released or taken over: a worker frozen just before has then lost all its claims. The wait
 * is on the claims' ends as stored, not on a time the machine's speed could outrun.
 */
export async function claimsHeldNowRunOut(deployment: Deployment, timeoutMs = 60_000): Promise<void> {
  const store = await openStore(deployment.store);
  try {
    const held = (await store.listThreads()).flatMap((thread) =>
      thread.lease === undefined ? [] : [{ threadId: thread.threadId, lease: thread.lease }],
    );
    await until(
      'the claims held at the freeze to run out',
      () => store.listThreads(),
      (threads) => {
        const now = Date.now();
        return held.every(({ threadId, lease }) => {
          const current = threads.find((thread) => thread.threadId === threadId)?.lease;
          return current?.owner !== lease.owner || current.until !== lease.until || Date.parse(lease.until) < now;
        });
      },
      { timeoutMs, intervalMs: 100 },
    );
  } finally {
    await store.close();
  }
}
