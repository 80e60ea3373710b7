import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { dropSchemas } from '../../__fixtures__/postgres-schemas.js';
import { openStore, type InteractionRecord, type StoreOptions, type ThreadRecord } from '../../index.js';
import type { ToolExecutionRecord } from '../../persistence/checkpoint-store.js';
import { spawnProcessGroup } from '../../testing/process-group.js';

/*
 * The harness of the crash tests: runs of a scenario (a fresh database and witness each),
 * worker processes (test/crash/crash-worker.mjs, which runs the built package), and what
 * the database and the witness say afterwards.
 */

const WORKER = fileURLToPath(new URL('../../../test/crash/crash-worker.mjs', import.meta.url));
const DIST = fileURLToPath(new URL('../../../dist/index.js', import.meta.url));
const RESULT_PREFIX = 'CRASH-WORKER-RESULT ';
const postgresUrl = process.env['INTERLOCK_TEST_POSTGRES_URL'];
const schemas: string[] = [];
let runs = 0;

/** Throws, saying how to build it, when the built package the workers run is missing. */
export function assertBuilt(): void {
  if (existsSync(DIST)) return;
  throw new Error(
    `the crash tests run the built package and ${DIST} is missing: run \`pnpm --filter @interlock/sdk-types build && pnpm --filter @interlock/core build\` first (the root \`pnpm test\` builds first)`,
  );
}

/** Drops the PostgreSQL schemas of every run so far. */
export function dropRunSchemas(): Promise<void> {
  return dropSchemas(postgresUrl, schemas);
}

export type StoreName = 'SQLite' | 'PostgreSQL';

/** One run of a scenario: a fresh database, a fresh witness, one thread. */
export interface Run {
  store: StoreOptions & ({ type: 'sqlite'; path: string } | { type: 'postgres'; url: string; schema: string });
  workspace: string;
  witness: string;
  modelCalls: string;
  threadId: string;
}

export async function newRun(storeName: StoreName): Promise<Run> {
  runs += 1;
  const workspace = await mkdtemp(join(tmpdir(), 'interlock-crash-'));
  let store: Run['store'];
  if (storeName === 'SQLite') {
    store = { type: 'sqlite', path: join(workspace, 'interlock.db') };
  } else {
    if (!postgresUrl)
      throw new Error('INTERLOCK_TEST_POSTGRES_URL is not set: run `eval "$(bash scripts/start-postgres.sh)"` first');
    const schema = `interlock_crash_${process.pid}_${Date.now().toString(36)}_${runs}`;
    schemas.push(schema);
    store = { type: 'postgres', url: postgresUrl, schema };
  }
  return {
    store,
    workspace,
    witness: join(workspace, 'witness.log'),
    modelCalls: join(workspace, 'model-calls.log'),
    threadId: `thread-${runs}`,
  };
}

export type Outcome =
  | { status: 'completed'; threadId: string; output: unknown }
  | { status: 'waiting'; threadId: string; pendingInteractionIds: string[] }
  | { status: 'failed' | 'cancelled' | 'error'; threadId: string; error?: { code: string; message: string } };

export interface WorkerEvent {
  type: string;
  nodeId?: string;
  toolCallId?: string;
  interactionId?: string;
}

export interface PersonStep {
  action: 'respond' | 'resume';
  witnessBefore: string[];
  interactionId?: string;
  operationType?: string;
  toolCallId?: string;
  stage?: string;
  input?: unknown;
  status?: string;
  outcome?: Outcome;
  error?: { code: string; message: string };
}

/** What a worker printed before it exited (nothing when it was killed). */
export interface WorkerResult {
  outcome?: Outcome;
  outcomes?: Outcome[];
  repeated?: { interactionId: string; status?: string; error?: { code: string } }[];
  steps?: PersonStep[];
  final?: { status: string; output?: unknown };
  error?: { code: string; message: string };
  events: WorkerEvent[];
}

export interface WorkerExit {
  signal: NodeJS.Signals | null;
  code: number | null;
  result: WorkerResult | undefined;
  stderr: string;
}

export interface WorkerOptions {
  /** INTERLOCK_CRASH_AT: the failpoint where the worker kills itself. */
  crashAt?: string;
  /** Kill the worker this many ms after it says it started working. */
  killAfterMs?: number;
  /** Called once when the worker prints READY (it then waits for `go`), and once when it prints CLAIMED. */
  onReady?: () => void;
  onClaimed?: () => void;
}

export interface SpawnedWorker {
  exit: Promise<WorkerExit>;
  /** Lets a worker started with `waitForGo` go on. */
  go(): void;
}

export function startWorker(run: Run, config: Record<string, unknown>, options: WorkerOptions = {}): SpawnedWorker {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    CRASH_WORKER_CONFIG: JSON.stringify({
      store: run.store,
      workspace: run.workspace,
      witness: run.witness,
      modelCalls: run.modelCalls,
      threadId: run.threadId,
      ...config,
    }),
  };
  delete env['INTERLOCK_CRASH_AT'];
  if (options.crashAt !== undefined) env['INTERLOCK_CRASH_AT'] = options.crashAt;
  const child = spawnProcessGroup(process.execPath, [WORKER], { env, stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  let timer: ReturnType<typeof setTimeout> | undefined;
  const markers: [string, (() => void) | undefined][] = [
    [
      'CRASH-WORKER-WORKING',
      options.killAfterMs === undefined
        ? undefined
        : () => (timer = setTimeout(() => child.kill('SIGKILL'), options.killAfterMs)),
    ],
    ['CRASH-WORKER-READY', options.onReady],
    ['CRASH-WORKER-CLAIMED', options.onClaimed],
  ];
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    const seen = stdout;
    stdout += chunk;
    for (const [marker, react] of markers) if (react && !seen.includes(marker) && stdout.includes(marker)) react();
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  const exit = new Promise<WorkerExit>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      const line = stdout.split('\n').find((candidate) => candidate.startsWith(RESULT_PREFIX));
      const result = line === undefined ? undefined : (JSON.parse(line.slice(RESULT_PREFIX.length)) as WorkerResult);
      resolve({ signal, code, result, stderr });
    });
  });
  return {
    exit,
    go: () => {
      if (!child.stdin.writableEnded) child.stdin.end('go\n');
    },
  };
}

/** Runs a worker that must finish on its own, and returns what it printed. */
export async function runWorker(run: Run, config: Record<string, unknown>): Promise<WorkerResult> {
  const { signal, code, result, stderr } = await startWorker(run, config).exit;
  if (signal !== null || code !== 0 || result === undefined) {
    throw new Error(
      `the ${String(config['mode'])} worker did not finish cleanly (signal ${signal}, code ${code}): ${stderr}`,
    );
  }
  if (result.error)
    throw new Error(`the ${String(config['mode'])} worker failed: ${result.error.code} ${result.error.message}`);
  return result;
}

/** Everything the database and the witness say about a run. */
export interface RunState {
  threads: ThreadRecord[];
  interactions: InteractionRecord[];
  executions: ToolExecutionRecord[];
  witness: string[];
  modelCalls: string[];
}

export async function inspect(run: Run): Promise<RunState> {
  const store = await openStore(run.store);
  try {
    return {
      threads: await store.listThreads(),
      interactions: await store.listInteractions(),
      executions: await store.listToolExecutions(),
      witness: readLines(run.witness),
      modelCalls: readLines(run.modelCalls),
    };
  } finally {
    await store.close();
  }
}

function readLines(path: string): string[] {
  return existsSync(path) ? readFileSync(path, 'utf8').split('\n').filter(Boolean) : [];
}

export function threadOf(state: RunState, threadId: string): ThreadRecord {
  const thread = state.threads.find((candidate) => candidate.threadId === threadId);
  if (!thread) throw new Error(`thread ${threadId} is not in the store`);
  return thread;
}

export function chargesOf(state: RunState, threadId: string): string[] {
  return state.witness.filter((line) => line.startsWith(`charged ${threadId} `));
}

export function lookupsOf(state: RunState, threadId: string): string[] {
  return state.witness.filter((line) => line.startsWith(`looked-up ${threadId} `));
}

/** The questions of one thread about one tool call at one stage, or its notes (toolCallId null). */
export function questions(
  state: RunState,
  threadId: string,
  toolCallId: string | null,
  stage?: string,
): InteractionRecord[] {
  return state.interactions.filter((interaction) => {
    if (interaction.threadId !== threadId) return false;
    const approval = interaction.request.toolApproval;
    if (toolCallId === null) return approval === undefined;
    return approval?.toolCallId === toolCallId && (stage === undefined || approval.stage === stage);
  });
}

export function pendingOf(state: RunState, threadId: string): InteractionRecord[] {
  return state.interactions.filter(
    (interaction) => interaction.threadId === threadId && interaction.status === 'pending',
  );
}

export function execution(state: RunState, threadId: string, toolCallId: string): ToolExecutionRecord | undefined {
  return state.executions.find((candidate) => candidate.threadId === threadId && candidate.toolCallId === toolCallId);
}
