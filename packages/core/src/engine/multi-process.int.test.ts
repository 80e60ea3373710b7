import { readFile, writeFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt } from '../crash/__fixtures__/crash-harness.js';
import {
  deployWorkflow,
  dropScenarioSchemas,
  ledgerLines,
  newScenario,
  startWorker,
  withStore,
  type StoreName,
} from './__fixtures__/claim-workers.js';

/*
 * Several processes on one store (issue 11, F21, F40): real processes running the built
 * package, a ledger outside the database counting the deploys that really happened.
 */

const STORES: StoreName[] = ['SQLite', 'PostgreSQL'];

beforeAll(() => assertBuilt());
afterAll(() => dropScenarioSchemas());

describe.each(STORES)('a run and its claim across processes on %s (issue 11)', (storeName) => {
  it('refuses resume() in another process while a live process runs a slow approved tool: it runs once and nobody is asked whether it ran', async () => {
    const scenario = await newScenario(storeName);
    const runner = startWorker(scenario, {
      mode: 'start',
      threadId: 'slow-1',
      approve: true,
      toolMs: 3_000,
      leaseMs: 600,
    });
    await runner.printed('TOOL-STARTED slow-1');
    // Well past the lease: a claim that was not renewed during the tool would have run out.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const other = await startWorker(scenario, { mode: 'resume', threadId: 'slow-1', leaseMs: 600 }).exit;
    expect(other.result?.error?.code, other.stderr).toBe('THREAD_BUSY');

    const finished = await runner.exit;
    expect(finished.result?.outcome, finished.stderr).toMatchObject({ status: 'completed' });
    expect(ledgerLines(scenario)).toEqual(['deployed slow-1 deploy-1 production']);
    await withStore(scenario, async (store) => {
      const interactions = await store.listInteractions({ threadId: 'slow-1' });
      expect(interactions.map((interaction) => interaction.request.toolApproval?.stage)).toEqual(['execution']);
      expect(
        (await store.listToolExecutions({ threadId: 'slow-1' })).find((call) => call.toolCallId === 'deploy-1'),
      ).toMatchObject({ status: 'finished' });
      expect((await store.getThread('slow-1'))?.lease).toBeUndefined();
    });
  }, 30_000);

  it('fences off a process frozen mid-tool past its lease: once another took the thread over, the woken process writes nothing', async () => {
    const scenario = await newScenario(storeName);
    const frozen = startWorker(scenario, {
      mode: 'start',
      threadId: 'frozen-1',
      approve: true,
      toolMs: 1_500,
      leaseMs: 500,
    });
    await frozen.printed('TOOL-STARTED frozen-1');
    frozen.child.kill('SIGSTOP');
    try {
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      // Another process takes the thread over: the call started and never finished, so a person must say what happened.
      const taker = await startWorker(scenario, { mode: 'resume', threadId: 'frozen-1', leaseMs: 500 }).exit;
      expect(taker.result?.outcome, taker.stderr).toMatchObject({ status: 'waiting' });
    } finally {
      frozen.child.kill('SIGCONT');
    }
    const before = await snapshot(scenario, 'frozen-1');
    expect(before.execution).toMatchObject({ status: 'unknown' });

    const woken = await frozen.exit;
    expect(woken.result?.error?.code, woken.stderr).toBe('STORE_CONFLICT');
    const after = await snapshot(scenario, 'frozen-1');
    // No audit entry, no lease, no outcome, no save: everything as the new owner left it.
    expect(after).toEqual(before);
    expect(after.thread?.lease).toBeUndefined();
    expect(ledgerLines(scenario)).toEqual(['deployed frozen-1 deploy-1 production']);
  }, 30_000);

  it('aborts the signal of a process that thaws after losing its claim: its tool, checking the signal before its effect, never applies it; the person says retry and the effect happens once (issue 27)', async () => {
    const scenario = await newScenario(storeName);
    const tool = { effectLast: true, toolMs: 1_500 };
    const frozen = startWorker(scenario, { mode: 'start', threadId: 'frozen-2', approve: true, leaseMs: 500, ...tool });
    await frozen.printed('TOOL-STARTED frozen-2');
    frozen.child.kill('SIGSTOP');
    let question: string | undefined;
    let interactionId: string | undefined;
    try {
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      const taker = await startWorker(scenario, { mode: 'resume', threadId: 'frozen-2', leaseMs: 500 }).exit;
      expect(taker.result?.outcome, taker.stderr).toMatchObject({ status: 'waiting' });
      [interactionId] = taker.result?.outcome?.pendingInteractionIds ?? [];
      question = await withStore(
        scenario,
        async (store) => (await store.getInteraction(interactionId!))?.request.prompt,
      );
    } finally {
      frozen.child.kill('SIGCONT');
    }
    // No effect is visible yet, so the person is told the previous holder may still be running, and since when.
    expect(question).toMatch(/may still be running: its claim on the thread ended at \d{4}-\d\d-\d\dT/);
    expect(ledgerLines(scenario)).toEqual([]);

    const woken = await frozen.exit;
    expect(['CLAIM_LOST', 'STORE_CONFLICT'], woken.stderr).toContain(
      woken.result?.error?.code ?? woken.result?.outcome?.error?.code,
    );
    expect(ledgerLines(scenario)).toEqual([]);

    const retried = await startWorker(scenario, {
      mode: 'respond',
      interactionId,
      answer: 'retry',
      approve: true,
      ...tool,
      toolMs: 0,
    }).exit;
    expect(retried.result?.outcome, retried.stderr).toMatchObject({ status: 'completed' });
    const lines = ledgerLines(scenario);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^deployed frozen-2 deploy-1 production fence=\d+$/);
  }, 30_000);

  it('refuses an answer before storing it when the workflow file was edited without a version bump, and runs nothing', async () => {
    const scenario = await newScenario(storeName);
    const started = await startWorker(scenario, { mode: 'start', threadId: 'edited-1' }).exit;
    expect(started.result?.outcome, started.stderr).toMatchObject({ status: 'waiting' });
    const [interactionId] = started.result?.outcome?.pendingInteractionIds ?? [];

    // The file is edited, its version left at the default.
    await writeFile(
      scenario.workflow,
      JSON.stringify(deployWorkflow('Run the database migration first, then deploy.')),
    );
    const answered = await startWorker(scenario, { mode: 'respond', interactionId, answer: { approved: true } }).exit;
    expect(answered.result?.error?.code, answered.stderr).toBe('WORKFLOW_CHANGED');
    expect(answered.result?.error?.message).toMatch(/hash [0-9a-f]{12}….*hash [0-9a-f]{12}…/);
    await withStore(scenario, async (store) => {
      expect((await store.getInteraction(interactionId!))?.status).toBe('pending');
      expect(
        (await store.listToolExecutions({ threadId: 'edited-1' })).find((call) => call.toolCallId === 'deploy-1'),
      ).toBeUndefined();
    });
    expect(ledgerLines(scenario)).toEqual([]);
    expect(JSON.parse(await readFile(scenario.workflow, 'utf8'))).toMatchObject({ id: 'deploy' });
  }, 30_000);
});

async function snapshot(scenario: Awaited<ReturnType<typeof newScenario>>, threadId: string) {
  return withStore(scenario, async (store) => ({
    thread: await store.getThread(threadId),
    execution: (await store.listToolExecutions({ threadId: threadId })).find((call) => call.toolCallId === 'deploy-1'),
    audit: await store.listAuditEntries(),
    interactions: await store.listInteractions({ threadId }),
  }));
}

const PROCESSES = 8;
const ROUND_TRIPS = Number(process.env['INTERLOCK_AUDIT_ROUND_TRIPS'] ?? 1_000);

describe('the audit log under many processes on one PostgreSQL (issue 11, F33, F45)', () => {
  it(`takes ${PROCESSES} processes × ${ROUND_TRIPS} approval round trips with no failed append, verifies, and reports a removed last entry`, async () => {
    const scenario = await newScenario('PostgreSQL');
    const exits = await Promise.all(
      Array.from(
        { length: PROCESSES },
        () => startWorker(scenario, { mode: 'roundTrips', approve: true, count: ROUND_TRIPS }).exit,
      ),
    );
    for (const exit of exits) expect(exit.result, exit.stderr).toEqual({ completed: ROUND_TRIPS, failures: [] });
    expect(ledgerLines(scenario)).toHaveLength(PROCESSES * ROUND_TRIPS);

    const { createInterlock } = await import('../index.js');
    const interlock = await createInterlock({ store: scenario.store, recoverOnStart: false });
    try {
      expect(await interlock.verifyAudit()).toEqual({ valid: true, entries: PROCESSES * ROUND_TRIPS });
      await withStore(scenario, async () => {
        const { default: pg } = await import('pg');
        const client = new pg.Client({ connectionString: (scenario.store as { url: string }).url });
        await client.connect();
        try {
          await client.query(
            `DELETE FROM "${(scenario.store as { schema: string }).schema}".audit_entries WHERE sequence = (SELECT MAX(sequence) FROM "${(scenario.store as { schema: string }).schema}".audit_entries)`,
          );
        } finally {
          await client.end();
        }
      });
      expect(await interlock.verifyAudit()).toMatchObject({
        valid: false,
        reason: expect.stringMatching(/entries were removed/),
      });
    } finally {
      await interlock.close();
    }
  }, 600_000);
});
