import type { ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { dropSchemas } from '../../__fixtures__/postgres-schemas.js';
import { openStore, type ICheckpointStore, type StoreOptions } from '../../index.js';
import { until } from '../../testing/until.js';
import { spawnProcessGroup } from '../../testing/process-group.js';

/*
 * The harness of the multi-process tests (issue 11): a fresh database and ledger per
 * scenario, worker processes (test/claims/claim-worker.mjs, which runs the built package),
 * and a look at the store.
 */

const WORKER = fileURLToPath(new URL('../../../test/claims/claim-worker.mjs', import.meta.url));
const RESULT_PREFIX = 'CLAIM-WORKER-RESULT ';
const postgresUrl = process.env['INTERLOCK_TEST_POSTGRES_URL'];
const schemas: string[] = [];
let scenarios = 0;

export type StoreName = 'SQLite' | 'PostgreSQL';

export interface Scenario {
  store: StoreOptions & ({ type: 'sqlite'; path: string } | { type: 'postgres'; url: string; schema: string });
  dir: string;
  ledger: string;
  workflow: string;
}

/** START → agent (a model that proposes one `deploy`, which asks a person) → END. */
export function deployWorkflow(prompt = 'Deploy to production?', approvalTimeout = '1h'): Record<string, unknown> {
  return {
    id: 'deploy',
    name: 'Deploy',
    config: { toolApproval: { autoApprovedTools: [], approvalTimeout } },
    variables: [{ name: 'output', scope: 'thread' }],
    nodes: [
      { id: 'start', type: 'START' },
      { id: 'agent', type: 'LLM', config: { systemPrompt: prompt, tools: ['deploy'], outputVariable: 'output' } },
      { id: 'end', type: 'END', config: { output: '{{ output }}' } },
    ],
    edges: [
      { from: 'start', to: 'agent' },
      { from: 'agent', to: 'end' },
    ],
  };
}

/** How a SQLite store of a scenario commits (`groupCommit`, `synchronous`); PostgreSQL takes none. */
export type SqliteCommits = { groupCommit?: boolean; synchronous?: 'full' | 'normal' };

export async function newScenario(storeName: StoreName, commits: SqliteCommits = {}): Promise<Scenario> {
  scenarios += 1;
  const dir = await mkdtemp(join(tmpdir(), 'interlock-claims-'));
  const workflow = join(dir, 'deploy.json');
  await writeFile(workflow, JSON.stringify(deployWorkflow()));
  let store: Scenario['store'];
  if (storeName === 'SQLite') store = { type: 'sqlite', path: join(dir, 'interlock.db'), ...commits };
  else {
    if (!postgresUrl)
      throw new Error('INTERLOCK_TEST_POSTGRES_URL is not set: run `eval "$(bash scripts/start-postgres.sh)"` first');
    const schema = `interlock_claims_${process.pid}_${Date.now().toString(36)}_${scenarios}`;
    schemas.push(schema);
    store = { type: 'postgres', url: postgresUrl, schema };
  }
  return { store, dir, ledger: join(dir, 'ledger.log'), workflow };
}

/** Drops the PostgreSQL schemas of every scenario so far. */
export function dropScenarioSchemas(): Promise<void> {
  return dropSchemas(postgresUrl, schemas);
}

export interface WorkerResult {
  outcome?: {
    status: string;
    threadId: string;
    error?: { code: string; message: string };
    pendingInteractionIds?: string[];
  };
  result?: { status: string; continuation?: { status: string; code?: string } };
  error?: { code: string; message: string };
  completed?: number;
  failures?: { code: string; message?: string }[];
  threadIds?: string[];
  results?: string[];
  threads?: string[];
  /** (answerLoop) what the person answered, by kind. */
  counts?: Record<string, number>;
  stuck?: unknown[];
  /** (measureRenewals) how much of the claim was left when each renewal came back committed, in ms. */
  renewals?: { count: number; smallestMs: number | null; medianMs: number | null };
}

export interface Worker {
  child: ChildProcess;
  /** What it printed on stderr so far. */
  stderr(): string;
  /** Resolves when the worker printed `marker`. */
  printed(marker: string): Promise<void>;
  exit: Promise<{
    code: number | null;
    signal: NodeJS.Signals | null;
    result: WorkerResult | undefined;
    stderr: string;
  }>;
}

/** Starts a worker process; `env` adds to its environment (INTERLOCK_CRASH_AT, say). */
export function startWorker(
  scenario: Scenario,
  config: Record<string, unknown>,
  env: Record<string, string> = {},
): Worker {
  const childEnv = {
    ...process.env,
    ...env,
    CLAIM_WORKER_CONFIG: JSON.stringify({
      store: scenario.store,
      ledger: scenario.ledger,
      workflow: scenario.workflow,
      ...config,
    }),
  };
  const child = spawnProcessGroup(process.execPath, [WORKER], { env: childEnv, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  const waiting: { marker: string; resolve: () => void }[] = [];
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk;
    for (const waiter of waiting.filter((candidate) => stdout.includes(candidate.marker))) waiter.resolve();
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  const exit = new Promise<Awaited<Worker['exit']>>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code, signal) => {
      const line = stdout.split('\n').find((candidate) => candidate.startsWith(RESULT_PREFIX));
      resolve({
        code,
        signal,
        result: line === undefined ? undefined : (JSON.parse(line.slice(RESULT_PREFIX.length)) as WorkerResult),
        stderr,
      });
    });
  });
  return {
    child,
    exit,
    stderr: () => stderr,
    printed: (marker) =>
      new Promise<void>((resolve, reject) => {
        if (stdout.includes(marker)) return resolve();
        waiting.push({ marker, resolve });
        void exit.then(({ stderr: errors }) =>
          reject(new Error(`the worker exited before printing ${marker}: ${errors}`)),
        );
      }),
  };
}

/**
 * Disturbs the worker at random moments: `delayMs` after it printed `marker`, freezes it
 * (SIGSTOP) for `freezeMs` when given, then SIGKILLs it `killMs` after that (or after the
 * marker). Nothing happens once it exited. The delays are the moments of a freeze or a
 * kill, not waits on anything.
 */
export function disturb(
  worker: Worker,
  marker: string,
  plan: { delayMs: number; freezeMs?: number; killMs: number },
): void {
  const timers: ReturnType<typeof setTimeout>[] = [];
  const later = (ms: number, then: () => void) => timers.push(setTimeout(then, ms));
  const kill = () => later(plan.killMs, () => worker.child.kill('SIGKILL'));
  void worker.exit.then(() => {
    for (const timer of timers) clearTimeout(timer);
  });
  void worker.printed(marker).then(
    () =>
      later(plan.delayMs, () => {
        if (plan.freezeMs === undefined) return kill();
        worker.child.kill('SIGSTOP');
        later(plan.freezeMs, () => {
          worker.child.kill('SIGCONT');
          kill();
        });
      }),
    () => undefined,
  );
}

/** Runs `work` on the scenario's store, opened in this process, then closes it. */
export async function withStore<T>(scenario: Scenario, work: (store: ICheckpointStore) => Promise<T>): Promise<T> {
  const store = await openStore(scenario.store);
  try {
    return await work(store);
  } finally {
    await store.close();
  }
}

/**
 * Waits until every claim on a thread held when it is called has run out, or was renewed,
 * released or taken over: a process frozen just before has then lost all its claims. The
 * wait is on the claims' ends as stored, not on a time the machine's speed could outrun.
 */
export async function claimsHeldNowRunOut(scenario: Scenario, timeoutMs = 60_000): Promise<void> {
  await withStore(scenario, async (store) => {
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
  });
}

export function ledgerLines(scenario: Scenario): string[] {
  return existsSync(scenario.ledger) ? readFileSync(scenario.ledger, 'utf8').split('\n').filter(Boolean) : [];
}
