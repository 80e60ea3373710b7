import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTypeormStore, hashArguments, type InteractionRecord, type ThreadRecord, type TypeormStoreOptions } from '../index.js';
import type { ToolExecutionRecord } from '../persistence/checkpoint-store.js';

// Crash tests (issue 4): a child process runs the built package and dies by SIGKILL at a
// named failpoint (INTERLOCK_CRASH_AT) or at a random moment; new processes then open the
// same database and finish the thread as a person would. The witness of every tool effect
// is a file outside the database: it says what really happened, whatever the store says.

const WORKER = fileURLToPath(new URL('../../test/crash/crash-worker.mjs', import.meta.url));
const DIST = fileURLToPath(new URL('../../dist/index.js', import.meta.url));
const RESULT_PREFIX = 'CRASH-WORKER-RESULT ';
/** How many times each named point is crashed, per database. */
const REPEAT = positiveInteger('CRASH_REPEAT', 3);
/** How many random kills per database. */
const RANDOM_RUNS = positiveInteger('CRASH_RANDOM_RUNS', 10);
/** The jobs (threads) the server of the random-kill loop works through in one process. */
const QUEUE = ['job-1', 'job-2', 'job-3', 'job-4', 'job-5'];
const postgresUrl = process.env['INTERLOCK_TEST_POSTGRES_URL'];
const schemas: string[] = [];
let runs = 0;

function positiveInteger(name: string, fallback: number): number {
  const value = Number(process.env[name] ?? fallback);
  if (!Number.isInteger(value) || value < 1) throw new Error(`${name} must be a positive integer, not ${process.env[name]}`);
  return value;
}

beforeAll(() => {
  if (!existsSync(DIST)) {
    throw new Error(
      `the crash tests run the built package and ${DIST} is missing: run \`pnpm --filter @interlock/sdk-types build && pnpm --filter @interlock/core build\` first (the root \`pnpm test\` builds first)`,
    );
  }
});

afterAll(async () => {
  if (!postgresUrl || schemas.length === 0) return;
  const admin = new pg.Client({ connectionString: postgresUrl });
  await admin.connect();
  for (const schema of schemas) await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  await admin.end();
});

type StoreName = 'SQLite' | 'PostgreSQL';

/** One run of a scenario: a fresh database, a fresh witness, one thread. */
interface Run {
  store: TypeormStoreOptions;
  workspace: string;
  witness: string;
  modelCalls: string;
  threadId: string;
}

async function newRun(storeName: StoreName): Promise<Run> {
  runs += 1;
  const workspace = await mkdtemp(join(tmpdir(), 'interlock-crash-'));
  let store: TypeormStoreOptions;
  if (storeName === 'SQLite') {
    store = { type: 'sqlite', path: join(workspace, 'interlock.db') };
  } else {
    if (!postgresUrl) throw new Error('INTERLOCK_TEST_POSTGRES_URL is not set: run `eval "$(bash scripts/start-postgres.sh)"` first');
    const schema = `interlock_crash_${process.pid}_${runs}`;
    schemas.push(schema);
    store = { type: 'postgres', url: postgresUrl, schema };
  }
  return { store, workspace, witness: join(workspace, 'witness.log'), modelCalls: join(workspace, 'model-calls.log'), threadId: `thread-${runs}` };
}

type Outcome =
  | { status: 'completed'; threadId: string; output: unknown }
  | { status: 'waiting'; threadId: string; pendingInteractionIds: string[] }
  | { status: 'failed' | 'cancelled' | 'error'; threadId: string; error?: { code: string; message: string } };

interface WorkerEvent {
  type: string;
  nodeId?: string;
  toolCallId?: string;
  interactionId?: string;
}

interface PersonStep {
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
interface WorkerResult {
  outcome?: Outcome;
  outcomes?: Outcome[];
  respond?: { status: string; resumedHere: boolean };
  repeated?: { interactionId: string; status?: string; error?: { code: string } }[];
  steps?: PersonStep[];
  final?: { status: string; output?: unknown };
  error?: { code: string; message: string };
  events: WorkerEvent[];
}

interface WorkerExit {
  signal: NodeJS.Signals | null;
  code: number | null;
  result: WorkerResult | undefined;
  stderr: string;
}

interface WorkerOptions {
  /** INTERLOCK_CRASH_AT: the failpoint where the worker kills itself. */
  crashAt?: string;
  /** Kill the worker this many ms after it says it started working. */
  killAfterMs?: number;
  /** Called with the child once it printed READY (it then waits for a line on stdin). */
  onReady?: () => void;
}

interface SpawnedWorker {
  exit: Promise<WorkerExit>;
  go(): void;
}

function startWorker(run: Run, config: Record<string, unknown>, options: WorkerOptions = {}): SpawnedWorker {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    CRASH_WORKER_CONFIG: JSON.stringify({ store: run.store, workspace: run.workspace, witness: run.witness, modelCalls: run.modelCalls, threadId: run.threadId, ...config }),
  };
  delete env['INTERLOCK_CRASH_AT'];
  if (options.crashAt !== undefined) env['INTERLOCK_CRASH_AT'] = options.crashAt;
  const child = spawn(process.execPath, [WORKER], { env, stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  let timer: ReturnType<typeof setTimeout> | undefined;
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    const seen = stdout;
    stdout += chunk;
    if (options.killAfterMs !== undefined && !seen.includes('CRASH-WORKER-WORKING') && stdout.includes('CRASH-WORKER-WORKING')) {
      timer = setTimeout(() => child.kill('SIGKILL'), options.killAfterMs);
    }
    if (options.onReady && !seen.includes('CRASH-WORKER-READY') && stdout.includes('CRASH-WORKER-READY')) options.onReady();
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
      child.stdin.end('go\n');
    },
  };
}

/** Runs a worker that must finish on its own, and returns what it printed. */
async function runWorker(run: Run, config: Record<string, unknown>): Promise<WorkerResult> {
  const { signal, code, result, stderr } = await startWorker(run, config).exit;
  if (signal !== null || code !== 0 || result === undefined) {
    throw new Error(`the ${String(config['mode'])} worker did not finish cleanly (signal ${signal}, code ${code}): ${stderr}`);
  }
  if (result.error) throw new Error(`the ${String(config['mode'])} worker failed: ${result.error.code} ${result.error.message}`);
  return result;
}

/** Runs a worker that must die by SIGKILL at `point`. */
async function crashWorker(run: Run, config: Record<string, unknown>, point: string): Promise<void> {
  const { signal, code, result, stderr } = await startWorker(run, config, { crashAt: point }).exit;
  expect({ signal, code, printed: result, stderr }, `the worker should have died at ${point}`).toMatchObject({ signal: 'SIGKILL', code: null, printed: undefined });
}

/** Everything the database and the witness say about a run. */
interface RunState {
  threads: ThreadRecord[];
  interactions: InteractionRecord[];
  executions: ToolExecutionRecord[];
  witness: string[];
  modelCalls: string[];
}

async function inspect(run: Run): Promise<RunState> {
  const store = await createTypeormStore(run.store);
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

function threadOf(state: RunState, threadId: string): ThreadRecord {
  const thread = state.threads.find((candidate) => candidate.threadId === threadId);
  if (!thread) throw new Error(`thread ${threadId} is not in the store`);
  return thread;
}

function chargesOf(state: RunState, threadId: string): string[] {
  return state.witness.filter((line) => line.startsWith(`charged ${threadId} `));
}

function lookupsOf(state: RunState, threadId: string): string[] {
  return state.witness.filter((line) => line.startsWith(`looked-up ${threadId} `));
}

/** The questions of one thread about one tool call at one stage, or its notes (toolCallId null). */
function questions(state: RunState, threadId: string, toolCallId: string | null, stage?: string): InteractionRecord[] {
  return state.interactions.filter((interaction) => {
    if (interaction.threadId !== threadId) return false;
    const approval = interaction.request.toolApproval;
    if (toolCallId === null) return approval === undefined;
    return approval?.toolCallId === toolCallId && (stage === undefined || approval.stage === stage);
  });
}

function pendingOf(state: RunState, threadId: string): InteractionRecord[] {
  return state.interactions.filter((interaction) => interaction.threadId === threadId && interaction.status === 'pending');
}

function execution(state: RunState, threadId: string, toolCallId: string): ToolExecutionRecord | undefined {
  return state.executions.find((candidate) => candidate.threadId === threadId && candidate.toolCallId === toolCallId);
}

/**
 * Promise 1: every effect in the witness has a stored approval of that tool bound to the hash
 * of exactly the arguments it ran with; a charge was approved by a person who said yes.
 */
function expectEveryEffectApproved(state: RunState): void {
  for (const line of state.witness) {
    const [effect, threadId = '', toolCallId = '', argument = ''] = line.split(' ');
    const record = execution(state, threadId, toolCallId);
    const [toolName, args] = effect === 'charged' ? ['charge', { amount: Number(argument) }] : ['lookup', { customer: argument }];
    expect(record, `the effect "${line}" has a stored approval`).toMatchObject({ toolName, argumentsHash: hashArguments(args), arguments: args });
    if (toolName !== 'charge') continue;
    expect(record?.approvedBy).toMatch(/^person/);
    const approvals = questions(state, threadId, toolCallId, 'execution');
    expect(approvals.map((interaction) => ({ status: interaction.status, input: interaction.response?.input }))).toEqual([
      { status: 'processed', input: { approved: true } },
    ]);
  }
}

/**
 * What holds at the end of every named-point run: the thread completed with the person's note;
 * the model was asked twice in all (promise 4: never again for a stored turn); the person was
 * asked once per decision (promise 4) and nothing waits; every effect was approved (promise 1).
 */
function expectFinishedOnce(state: RunState, run: Run, note: string, charges: number): void {
  const thread = threadOf(state, run.threadId);
  expect({ status: thread.status, output: thread.output }).toEqual({ status: 'completed', output: note });
  expect(state.modelCalls).toEqual([`model-call ${run.threadId}`, `model-call ${run.threadId}`]);
  expect(questions(state, run.threadId, 'charge-1', 'execution')).toHaveLength(1);
  expect(questions(state, run.threadId, 'lookup-1')).toHaveLength(0);
  expect(questions(state, run.threadId, null).map((interaction) => interaction.status)).toEqual(['processed']);
  expect(pendingOf(state, run.threadId)).toEqual([]);
  expect(chargesOf(state, run.threadId)).toEqual(Array.from({ length: charges }, () => `charged ${run.threadId} charge-1 42`));
  expect(execution(state, run.threadId, 'charge-1')).toMatchObject({ status: 'finished', argumentsHash: hashArguments({ amount: 42 }) });
  expectEveryEffectApproved(state);
}

/** Starts the thread in a worker that ends once the thread waits for the charge's approval. */
async function startUntilApproval(run: Run): Promise<InteractionRecord> {
  const started = await runWorker(run, { mode: 'start' });
  expect(started.outcome?.status).toBe('waiting');
  const [approval] = pendingOf(await inspect(run), run.threadId);
  expect(approval?.request.toolApproval).toMatchObject({ toolCallId: 'charge-1', stage: 'execution' });
  return approval!;
}

function approve(run: Run, approval: InteractionRecord, point: string): Promise<void> {
  return crashWorker(run, { mode: 'respond', interactionId: approval.interactionId, answer: { approved: true } }, point);
}

function person(run: Run, options: { note: string; recovery?: 'done' | 'retry'; repeatAnswers?: string[] }): Promise<WorkerResult> {
  return runWorker(run, { mode: 'person', person: options });
}

const STORES: StoreName[] = ['SQLite', 'PostgreSQL'];
const POINT_TIMEOUT = 20_000 * REPEAT;

describe.each(STORES)('a process killed at a named point, then a restart on %s (issue 4)', (storeName) => {
  it(`keeps a question asked just before the kill (interaction:requested), and answering it finishes the thread [×${REPEAT}]`, async () => {
    for (let repetition = 0; repetition < REPEAT; repetition += 1) {
      const run = await newRun(storeName);
      await crashWorker(run, { mode: 'start' }, 'interaction:requested');

      const crashed = await inspect(run);
      expect(threadOf(crashed, run.threadId).status).toBe('waiting');
      expect(pendingOf(crashed, run.threadId).map((interaction) => interaction.request.toolApproval?.toolCallId)).toEqual(['charge-1']);
      expect(execution(crashed, run.threadId, 'charge-1')).toBeUndefined();
      expect(chargesOf(crashed, run.threadId)).toEqual([]);

      const finished = await person(run, { note: 'paid' });
      expect(finished.steps?.map((step) => step.stage ?? step.operationType)).toEqual(['execution', 'UPDATE_VARIABLES']);
      expectFinishedOnce(await inspect(run), run, 'paid', 1);
    }
  }, POINT_TIMEOUT);

  it(`applies an answer stored just before the kill (interaction:answer-stored) without asking again, and refuses a second answer [×${REPEAT}]`, async () => {
    for (let repetition = 0; repetition < REPEAT; repetition += 1) {
      const run = await newRun(storeName);
      const approval = await startUntilApproval(run);
      await approve(run, approval, 'interaction:answer-stored');

      const crashed = await inspect(run);
      expect(crashed.interactions.find((interaction) => interaction.interactionId === approval.interactionId)?.status).toBe('responded');
      expect(threadOf(crashed, run.threadId)).toMatchObject({ status: 'waiting', pendingInteractionIds: [approval.interactionId] });
      expect(chargesOf(crashed, run.threadId)).toEqual([]);

      const finished = await person(run, { note: 'paid', repeatAnswers: [approval.interactionId] });
      expect(finished.repeated).toEqual([{ interactionId: approval.interactionId, status: 'already_answered' }]);
      // Nothing waits for the person: the stored answer is applied by a plain resume.
      expect(finished.steps?.map((step) => step.action)).toEqual(['resume', 'respond']);
      expectFinishedOnce(await inspect(run), run, 'paid', 1);
    }
  }, POINT_TIMEOUT);

  it(`runs a call approved just before the kill (tool:approved) once after the restart [×${REPEAT}]`, async () => {
    for (let repetition = 0; repetition < REPEAT; repetition += 1) {
      const run = await newRun(storeName);
      await approve(run, await startUntilApproval(run), 'tool:approved');

      const crashed = await inspect(run);
      expect(execution(crashed, run.threadId, 'charge-1')).toMatchObject({ status: 'approved', argumentsHash: hashArguments({ amount: 42 }) });
      expect(chargesOf(crashed, run.threadId)).toEqual([]);

      const finished = await person(run, { note: 'paid' });
      expect(finished.steps?.map((step) => step.action)).toEqual(['resume', 'respond']);
      expectFinishedOnce(await inspect(run), run, 'paid', 1);
    }
  }, POINT_TIMEOUT);

  it(`never runs a call killed after it started (tool:started) again without a person's say: it reports the outcome unknown [×${REPEAT}]`, async () => {
    for (let repetition = 0; repetition < REPEAT; repetition += 1) {
      const run = await newRun(storeName);
      await approve(run, await startUntilApproval(run), 'tool:started');

      const crashed = await inspect(run);
      expect(execution(crashed, run.threadId, 'charge-1')?.status).toBe('started');
      expect(chargesOf(crashed, run.threadId)).toEqual([]);

      const resumed = await runWorker(run, { mode: 'resume' });
      expect(resumed.events).toContainEqual(expect.objectContaining({ type: 'TOOL_CALL_OUTCOME_UNKNOWN', toolCallId: 'charge-1' }));
      expect(resumed.outcome?.status).toBe('waiting');
      const unknown = await inspect(run);
      expect(execution(unknown, run.threadId, 'charge-1')?.status).toBe('unknown');
      expect(pendingOf(unknown, run.threadId).map((interaction) => interaction.request.toolApproval?.stage)).toEqual(['recovery']);
      expect(chargesOf(unknown, run.threadId)).toEqual([]);

      // The card was not charged (the witness says so), so the person says retry: it runs once.
      const finished = await person(run, { note: 'paid', recovery: 'retry' });
      expect(finished.steps?.[0]).toMatchObject({ stage: 'recovery', input: 'retry', witnessBefore: [`looked-up ${run.threadId} lookup-1 ada`] });
      expectFinishedOnce(await inspect(run), run, 'paid', 1);
    }
  }, POINT_TIMEOUT);

  it(`reports a call killed after its effect and before it finished (tool:effect-done) as unknown, and "done" keeps it at one run [×${REPEAT}]`, async () => {
    for (let repetition = 0; repetition < REPEAT; repetition += 1) {
      const run = await newRun(storeName);
      await approve(run, await startUntilApproval(run), 'tool:effect-done');

      const crashed = await inspect(run);
      expect(execution(crashed, run.threadId, 'charge-1')?.status).toBe('started');
      expect(chargesOf(crashed, run.threadId)).toHaveLength(1);

      const resumed = await runWorker(run, { mode: 'resume' });
      expect(resumed.events).toContainEqual(expect.objectContaining({ type: 'TOOL_CALL_OUTCOME_UNKNOWN', toolCallId: 'charge-1' }));
      const unknown = await inspect(run);
      expect(pendingOf(unknown, run.threadId).map((interaction) => interaction.request.toolApproval?.stage)).toEqual(['recovery']);
      expect(chargesOf(unknown, run.threadId)).toHaveLength(1);

      await person(run, { note: 'paid', recovery: 'done' });
      const state = await inspect(run);
      expectFinishedOnce(state, run, 'paid', 1);
      expect(execution(state, run.threadId, 'charge-1')?.outcome?.content).toMatch(/^\[SUCCESS\] A person confirmed the call ran/);
    }
  }, POINT_TIMEOUT);

  it(`goes on at the next node after a kill between nodes (node:checkpointed) without asking the model again [×${REPEAT}]`, async () => {
    for (let repetition = 0; repetition < REPEAT; repetition += 1) {
      const run = await newRun(storeName);
      // The first node this process completes is the LLM node: the kill lands between it and the question.
      await approve(run, await startUntilApproval(run), 'node:checkpointed');

      const crashed = await inspect(run);
      const thread = threadOf(crashed, run.threadId);
      expect({ cursor: thread.frames[0]?.cursor, activeNode: thread.activeNode, pending: thread.pendingInteractionIds }).toEqual({
        cursor: 'confirm',
        activeNode: null,
        pending: [],
      });
      expect(crashed.modelCalls).toHaveLength(2);
      expect(chargesOf(crashed, run.threadId)).toHaveLength(1);

      const finished = await person(run, { note: 'paid' });
      expect(finished.steps?.map((step) => step.action)).toEqual(['resume', 'respond']);
      expectFinishedOnce(await inspect(run), run, 'paid', 1);
    }
  }, POINT_TIMEOUT);
});

describe.each(STORES)('more kills on %s (issue 4)', (storeName) => {
  it('re-runs an idempotent call killed after its effect without asking anybody', async () => {
    const run = await newRun(storeName);
    // In the first process the lookup is the first call to run (the charge waits for a person).
    await crashWorker(run, { mode: 'start' }, 'tool:effect-done');
    const crashed = await inspect(run);
    expect(lookupsOf(crashed, run.threadId)).toHaveLength(1);
    expect(execution(crashed, run.threadId, 'lookup-1')?.status).toBe('started');

    const finished = await person(run, { note: 'paid' });
    expect(finished.steps?.map((step) => step.stage ?? step.operationType)).toEqual(['execution', 'UPDATE_VARIABLES']);
    const state = await inspect(run);
    expect(lookupsOf(state, run.threadId)).toEqual([`looked-up ${run.threadId} lookup-1 ada`, `looked-up ${run.threadId} lookup-1 ada`]);
    expectFinishedOnce(state, run, 'paid', 1);
  });

  it('keeps the next question asked just before a kill (interaction:requested at the USER_INTERACTION node)', async () => {
    const run = await newRun(storeName);
    // In the process that approves the charge, the first question asked is the note.
    await approve(run, await startUntilApproval(run), 'interaction:requested');
    const crashed = await inspect(run);
    expect(pendingOf(crashed, run.threadId).map((interaction) => interaction.nodeId)).toEqual(['confirm']);
    expect(threadOf(crashed, run.threadId).status).toBe('waiting');

    const finished = await person(run, { note: 'paid' });
    expect(finished.steps?.map((step) => step.operationType)).toEqual(['UPDATE_VARIABLES']);
    expectFinishedOnce(await inspect(run), run, 'paid', 1);
  });

  it('does not lose the last answer of a thread stored just before a kill (interaction:answer-stored at the USER_INTERACTION node)', async () => {
    const run = await newRun(storeName);
    const approval = await startUntilApproval(run);
    await runWorker(run, { mode: 'respond', interactionId: approval.interactionId, answer: { approved: true } });
    const [note] = pendingOf(await inspect(run), run.threadId);
    expect(note?.nodeId).toBe('confirm');
    await crashWorker(run, { mode: 'respond', interactionId: note!.interactionId, answer: 'paid before the crash' }, 'interaction:answer-stored');

    const finished = await person(run, { note: 'a second note', repeatAnswers: [note!.interactionId] });
    expect(finished.repeated).toEqual([{ interactionId: note!.interactionId, status: 'already_answered' }]);
    expect(finished.steps?.map((step) => step.action)).toEqual(['resume']);
    expectFinishedOnce(await inspect(run), run, 'paid before the crash', 1);
  });

  it('runs a call twice only when the person says retry after a kill that followed its effect', async () => {
    const run = await newRun(storeName);
    await approve(run, await startUntilApproval(run), 'tool:effect-done');
    await runWorker(run, { mode: 'resume' });
    await person(run, { note: 'paid', recovery: 'retry' });
    expectFinishedOnce(await inspect(run), run, 'paid', 2);
  });

  it(`lets only one of two processes that resume a thread at the same moment take it forward [×${REPEAT}]`, async () => {
    for (let repetition = 0; repetition < REPEAT; repetition += 1) {
      const run = await newRun(storeName);
      await approve(run, await startUntilApproval(run), 'interaction:answer-stored');

      // Both processes open the store first and resume only when both are ready.
      let ready = 0;
      const workers: SpawnedWorker[] = [];
      const onReady = () => {
        ready += 1;
        if (ready === 2) for (const worker of workers) worker.go();
      };
      workers.push(startWorker(run, { mode: 'resume', waitForGo: true }, { onReady }), startWorker(run, { mode: 'resume', waitForGo: true }, { onReady }));
      const exits = await Promise.all(workers.map((worker) => worker.exit));
      const results = exits.map((exit) => exit.result);
      const winners = results.filter((result) => result?.outcome?.status === 'waiting');
      const losers = results.filter((result) => result?.error !== undefined);
      expect(exits.map((exit) => exit.signal)).toEqual([null, null]);
      expect(winners, JSON.stringify(results)).toHaveLength(1);
      expect(losers.map((result) => result?.error?.code)).toEqual([expect.stringMatching(/^(THREAD_BUSY|STORE_CONFLICT)$/)]);

      await person(run, { note: 'paid' });
      expectFinishedOnce(await inspect(run), run, 'paid', 1);
    }
  }, POINT_TIMEOUT);
});

describe.each(STORES)('a server killed at random moments on %s (issue 4)', (storeName) => {
  it(`loses no thread and no answer and runs no call twice [${RANDOM_RUNS} random kills]`, async () => {
    const report: string[] = [];
    for (let index = 0; index < RANDOM_RUNS; index += 1) {
      const run = await newRun(storeName);
      const delay = Math.floor(Math.random() * 301);
      const killed = await startWorker(run, { mode: 'auto', threadIds: QUEUE }, { killAfterMs: delay }).exit;
      const before = await inspect(run);
      report.push(
        `${delay} ms: ${killed.signal === 'SIGKILL' ? 'killed' : 'finished first'}, ${before.threads.filter((thread) => thread.status === 'completed').length}/${QUEUE.length} done`,
      );

      // A clean restart works through the same queue; then every job is done exactly once.
      const restarted = await runWorker(run, { mode: 'auto', threadIds: QUEUE });
      expect(restarted.outcomes?.map((outcome) => outcome.status)).toEqual(QUEUE.map(() => 'completed'));
      const state = await inspect(run);
      expect(state.interactions.filter((interaction) => interaction.status === 'pending'), 'a question nobody waits for').toEqual([]);
      for (const threadId of QUEUE) {
        const context = `${threadId} after a kill at ${delay} ms`;
        expect({ status: threadOf(state, threadId).status, output: threadOf(state, threadId).output }, context).toEqual({ status: 'completed', output: 'auto note' });
        expect(chargesOf(state, threadId), context).toEqual([`charged ${threadId} charge-1 42`]);
        expect(questions(state, threadId, 'charge-1', 'execution'), context).toHaveLength(1);
        expect(questions(state, threadId, null).map((interaction) => interaction.response?.input), context).toEqual(['auto note']);
        expect(execution(state, threadId, 'charge-1')?.status, context).toBe('finished');
      }
      expectEveryEffectApproved(state);
    }
    console.info(`random kills on ${storeName}:\n  ${report.join('\n  ')}`);
  }, 15_000 * RANDOM_RUNS);
});
