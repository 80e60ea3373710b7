import { writeFile } from 'node:fs/promises';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { until } from '../testing/until.js';
import { assertBuilt } from '../crash/__fixtures__/crash-harness.js';
import {
  claimsHeldNowRunOut,
  deployWorkflow,
  dropScenarioSchemas,
  ledgerLines,
  newScenario,
  startWorker,
  withStore,
  type Scenario,
  type StoreName,
  type Worker,
} from '../engine/__fixtures__/claim-workers.js';

/*
 * Workers (issue 12): the processes that answer and the ones that act are apart. Real
 * processes running the built package; a ledger outside the database counts real deploys.
 */

const STORES: StoreName[] = ['SQLite', 'PostgreSQL'];
const running: Worker[] = [];

beforeAll(() => assertBuilt());
afterEach(async () => {
  for (const worker of running.splice(0)) {
    worker.child.kill('SIGCONT');
    worker.child.kill('SIGKILL');
  }
});
afterAll(() => dropScenarioSchemas());

async function startWorkers(
  scenario: Scenario,
  count: number,
  config: Record<string, unknown> = {},
): Promise<Worker[]> {
  const workers = Array.from({ length: count }, () => startWorker(scenario, { mode: 'worker', ...config }));
  running.push(...workers);
  await Promise.all(workers.map((worker) => worker.printed('WORKER-READY')));
  return workers;
}

describe.each(STORES)('workers on %s (issue 12)', (storeName) => {
  it('times out and continues a thread whose process exited once its deadline passes: the model is told the call was refused', async () => {
    const scenario = await newScenario(storeName);
    await writeFile(scenario.workflow, JSON.stringify(deployWorkflow('Deploy to production?', '2s')));
    const started = await startWorker(scenario, { mode: 'start', threadId: 'deadline-1', continueIn: 'workers' }).exit;
    expect(started.result?.outcome, started.stderr).toMatchObject({ status: 'waiting' });
    await startWorkers(scenario, 1);

    const thread = await until(
      'the thread to end',
      () => withStore(scenario, (store) => store.getThread('deadline-1')),
      (found) => found?.status === 'completed',
    );
    expect(thread?.conversation.find((message) => message.role === 'tool')?.content).toMatch(/^\[TIMEOUT\]/);
    expect(ledgerLines(scenario)).toEqual([]);
  }, 60_000);

  it('answering in another process only stores the answer and schedules it; a worker runs the tool, once', async () => {
    const scenario = await newScenario(storeName);
    const service = await startWorker(scenario, { mode: 'startMany', count: 3, continueIn: 'workers' }).exit;
    const threadIds = service.result?.threadIds ?? [];
    expect(threadIds, service.stderr).toHaveLength(3);
    const answered = await startWorker(scenario, { mode: 'answerAll', continueIn: 'workers' }).exit;
    expect(answered.result?.results, answered.stderr).toEqual(['scheduled', 'scheduled', 'scheduled']);
    // The answerer holds no tool: nothing ran yet.
    expect(ledgerLines(scenario)).toEqual([]);

    await startWorkers(scenario, 1);
    await until(
      'every thread to complete',
      () => withStore(scenario, (store) => store.listThreads({ status: 'completed' })),
      (done) => done.length === 3,
    );
    expect(ledgerLines(scenario).sort()).toEqual(
      threadIds.map((threadId) => `deployed ${threadId} deploy-1 production`).sort(),
    );
  }, 60_000);

  // A worker that dies after it took an answer in and before its checkpoint must leave
  // the answer to the next one: consumed apart from the thread, it was lost for good.
  it.each([
    { question: 'an approval', workflow: deployWorkflow(), answer: { approved: true }, deploys: 1 },
    { question: "a node's question", workflow: noteWorkflow(), answer: 'ship it', deploys: 0 },
  ])(
    'leaves $question a killed worker took in but never checkpointed to the next worker, which takes the thread to the end once',
    async ({ workflow, answer, deploys }) => {
      const scenario = await newScenario(storeName);
      await writeFile(scenario.workflow, JSON.stringify(workflow));
      const leaseMs = 1_000;
      const service = await startWorker(scenario, { mode: 'startMany', count: 1, continueIn: 'workers', leaseMs }).exit;
      const [threadId = ''] = service.result?.threadIds ?? [];
      const answered = await startWorker(scenario, { mode: 'answerAll', continueIn: 'workers', answer, leaseMs }).exit;
      expect(answered.result?.results, answered.stderr).toEqual(['scheduled']);

      const doomed = startWorker(scenario, { mode: 'worker', leaseMs }, { INTERLOCK_CRASH_AT: 'interaction:applied' });
      expect((await doomed.exit).signal).toBe('SIGKILL');
      const crashed = await withStore(scenario, async (store) => ({
        thread: await store.getThread(threadId),
        interactions: await store.listInteractions({ threadId }),
      }));
      expect(crashed.thread?.status).toBe('waiting');
      expect(crashed.interactions.map((interaction) => interaction.status)).toEqual(['responded']);

      await startWorkers(scenario, 1, { leaseMs });
      const thread = await until(
        'the thread to end',
        () => withStore(scenario, (store) => store.getThread(threadId)),
        (found) => found?.status === 'completed',
      );
      expect(ledgerLines(scenario)).toEqual(
        Array.from({ length: deploys }, () => `deployed ${threadId} deploy-1 production`),
      );
      const { interactions, audit } = await withStore(scenario, async (store) => ({
        interactions: await store.listInteractions({ threadId }),
        audit: await store.listAuditEntries({ threadId }),
      }));
      expect(interactions.map((interaction) => interaction.status)).toEqual(['processed']);
      // The answer was applied twice (once by the killed worker): it is audited once.
      expect(audit.map((entry) => `${entry.decidedBy} ${entry.outcome}`)).toEqual(
        deploys === 1 ? ['person allow'] : [],
      );
      if (typeof answer === 'string') expect(thread?.output).toBe(answer);
    },
    60_000,
  );
});

/** START → note (a person's answer becomes the output) → END. */
function noteWorkflow(): Record<string, unknown> {
  return {
    id: 'note',
    name: 'Note',
    variables: [{ name: 'output', scope: 'thread' }],
    nodes: [
      { id: 'start', type: 'START' },
      {
        id: 'note',
        type: 'USER_INTERACTION',
        config: {
          operationType: 'UPDATE_VARIABLES',
          prompt: 'What shall we ship?',
          variables: [{ variableName: 'output', expression: '{{ input }}' }],
        },
      },
      { id: 'end', type: 'END', config: { output: '{{ output }}' } },
    ],
    edges: [
      { from: 'start', to: 'note' },
      { from: 'note', to: 'end' },
    ],
  };
}

// On PostgreSQL a job taken by a worker that dies stays locked (graphile-worker frees it after
// hours): every job that takes a thread forward needs a recover job beside it. (On SQLite the
// store's own queue lets the lock run out, and a frozen process may hold the file's write lock.)
describe('a worker that dies on PostgreSQL (issue 12)', () => {
  it('recovers a thread handed to the workers whose worker died before it first waited, with no worker started since', async () => {
    const scenario = await newScenario('PostgreSQL');
    const leaseMs = 1_000;
    // Up before the thread exists (its start-up sweep finds nothing), and frozen while the other one dies.
    const [bystander] = (await startWorkers(scenario, 1, { leaseMs })) as [Worker];
    bystander.child.kill('SIGSTOP');
    const doomed = startWorker(scenario, { mode: 'worker', leaseMs }, { INTERLOCK_CRASH_AT: 'node:checkpointed' });
    running.push(doomed);
    await doomed.printed('WORKER-READY');
    const handedOver = await startWorker(scenario, { mode: 'startMany', count: 1, continueIn: 'workers-only', leaseMs })
      .exit;
    const [threadId = ''] = handedOver.result?.threadIds ?? [];
    expect(threadId, handedOver.stderr).not.toBe('');
    expect((await doomed.exit).signal).toBe('SIGKILL');
    expect((await withStore(scenario, (store) => store.getThread(threadId)))?.status).toBe('running');

    bystander.child.kill('SIGCONT');
    const thread = await until(
      'the thread to wait for its approval',
      () => withStore(scenario, (store) => store.getThread(threadId)),
      (found) => found?.status === 'waiting',
      30_000,
    );
    expect(thread?.pendingInteractionIds).toHaveLength(1);
    expect(ledgerLines(scenario)).toEqual([]);
  }, 60_000);
});

// 120 threads on 3 workers leave each worker many threads before the kill and after it; the
// soak (`pnpm test:soak`) takes 1000.
const CHAOS_THREADS = Number(
  process.env['INTERLOCK_WORKER_THREADS'] ?? (process.env['INTERLOCK_SOAK'] === '1' ? 1_000 : 120),
);

describe('three workers on one PostgreSQL, one killed and one frozen mid-way (issue 12)', () => {
  it(`takes ${CHAOS_THREADS} threads to the end, every deploy once, with nobody resuming anything by hand`, async () => {
    const scenario = await newScenario('PostgreSQL');
    const leaseMs = 1_000;
    const workers = await startWorkers(scenario, 3, { leaseMs, toolMs: 50, concurrency: 4 });
    const service = await startWorker(scenario, {
      mode: 'startMany',
      count: CHAOS_THREADS,
      continueIn: 'workers',
      leaseMs,
    }).exit;
    const threadIds = service.result?.threadIds ?? [];
    expect(threadIds, service.stderr).toHaveLength(CHAOS_THREADS);

    const person = startWorker(scenario, { mode: 'answerLoop', continueIn: 'workers', leaseMs, giveUpMs: 200_000 });
    await until(
      'a third of the deploys',
      async () => ledgerLines(scenario).length,
      (count) => count >= CHAOS_THREADS / 3,
    );
    const [killed, frozen, steady] = workers as [Worker, Worker, Worker];
    killed.child.kill('SIGKILL');
    frozen.child.kill('SIGSTOP');
    await claimsHeldNowRunOut(scenario);
    frozen.child.kill('SIGCONT');

    const answered = await person.exit;
    const said = workers.map((worker, index) => `worker ${index + 1}: ${worker.stderr().slice(-2_000)}`).join('\n');
    expect(answered.result?.error, `${JSON.stringify(answered.result)}\n${answered.stderr}\n${said}`).toBeUndefined();
    const completed = await withStore(scenario, (store) => store.listThreads({ status: 'completed' }));
    expect(completed.map((thread) => thread.threadId).sort()).toEqual([...threadIds].sort());
    const ledger = ledgerLines(scenario);
    expect(ledger.sort()).toEqual(threadIds.map((threadId) => `deployed ${threadId} deploy-1 production`).sort());

    frozen.child.kill('SIGTERM');
    steady.child.kill('SIGTERM');
    const reports = await Promise.all([frozen.exit, steady.exit]);
    // The work was spread: the two workers that lived took threads forward.
    for (const report of reports) expect(report.result?.threads?.length ?? 0, report.stderr).toBeGreaterThan(0);
  }, 300_000);
});
