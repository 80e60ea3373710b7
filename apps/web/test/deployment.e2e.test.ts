import { afterAll, afterEach, describe, expect, it } from 'vitest';
import {
  api,
  claimsHeldNowRunOut,
  dropDeploymentSchemas,
  ledgerLines,
  newDeployment,
  resultOf,
  startService,
  startWebServer,
  until,
  type Child,
  type Deployment,
} from './deployment/deployment-harness.js';

/*
 * A deployment (issue 12): the team's service holds the `refund` tool and its model and
 * runs workers; the web inbox answers and runs nothing; one PostgreSQL. Every part is its
 * own process running the built packages.
 */

const running: Child[] = [];
afterEach(() => {
  for (const { child } of running.splice(0)) {
    child.kill('SIGCONT');
    child.kill('SIGKILL');
  }
});
afterAll(() => dropDeploymentSchemas());

async function startWorkers(deployment: Deployment, count: number, config: Record<string, unknown>): Promise<Child[]> {
  const workers = Array.from({ length: count }, () => startService(deployment, { mode: 'worker', ...config }));
  running.push(...workers);
  await Promise.all(workers.map((worker) => worker.printed(/SERVICE-READY/)));
  return workers;
}

async function startWeb(deployment: Deployment) {
  const web = await startWebServer(deployment);
  running.push(web.server);
  return web;
}

interface PendingCard {
  interactionId: string;
  threadId: string;
  toolApproval?: { stage: string; toolCallId: string };
}

// 120 threads on 3 workers leave each worker many threads before the kill and after it; the
// soak (`pnpm test:soak`) takes 1000.
const THREADS = Number(
  process.env['INTERLOCK_DEPLOYMENT_THREADS'] ?? (process.env['INTERLOCK_SOAK'] === '1' ? 1_000 : 120),
);

describe('a deployment on PostgreSQL: workers apart from the web inbox (issue 12)', () => {
  it('the page starts only workflows a live worker serves, and a thread started there runs its refund in the worker', async () => {
    const deployment = await newDeployment();
    const { baseUrl, token } = await startWeb(deployment);
    expect((await api(baseUrl, token, '/api/workflows')).body.workflows).toEqual([]);
    expect((await api(baseUrl, token, '/api/threads', { workflowId: 'refund' })).body.code).toBe('WORKFLOW_NOT_FOUND');

    const [worker] = await startWorkers(deployment, 1, { leaseMs: 1_000 });
    const served = await until(
      'the worker to be listed',
      () => api(baseUrl, token, '/api/workflows'),
      (response) => response.body.workflows.length > 0,
    );
    expect(served.body.workflows).toEqual([{ id: 'refund', name: 'Refund', version: '1' }]);
    const started = await api(baseUrl, token, '/api/threads', { workflowId: 'refund' });
    expect(started.status).toBe(201);
    const { threadId } = started.body as { threadId: string };

    // The worker takes the thread until its refund asks; the web process answers; the worker refunds.
    const card = await until(
      'the refund to ask',
      () => api(baseUrl, token, '/api/interactions'),
      (response) => response.body.interactions.length === 1,
    );
    expect(card.body.interactions[0]).toMatchObject({ threadId, toolApproval: { toolName: 'refund' } });
    const answered = await api(baseUrl, token, `/api/interactions/${card.body.interactions[0].interactionId}/respond`, {
      action: 'approve',
    });
    expect(answered.status).toBe(200);
    await until(
      'the thread to complete',
      () => api(baseUrl, token, `/api/threads/${threadId}`),
      (response) => response.body.thread?.status === 'completed',
    );
    expect(ledgerLines(deployment)).toEqual([`refunded ${threadId} refund-1 A-1 1299`]);

    // A worker that stops stops serving: once its offer lapses, the page cannot start the workflow.
    worker?.child.kill('SIGTERM');
    await until(
      'the workflow to be withdrawn',
      () => api(baseUrl, token, '/api/workflows'),
      (response) => response.body.workflows.length === 0,
      10_000,
    );
  }, 60_000);

  it('asks the inbox what became of a refund whose worker died after it paid, refuses approve, and done never runs it again (F40, issue 37)', async () => {
    const deployment = await newDeployment();
    const { baseUrl, token } = await startWeb(deployment);
    // This worker dies right after the refund's effect, before its result is stored.
    const doomed = startService(
      deployment,
      { mode: 'worker', leaseMs: 1_000 },
      { INTERLOCK_CRASH_AT: 'tool:effect-done' },
    );
    running.push(doomed);
    await doomed.printed(/SERVICE-READY/);
    const service = startService(deployment, { mode: 'start', count: 1, leaseMs: 1_000 });
    const [threadId] = resultOf((await service.exit).stdout)?.threadIds ?? [];
    const asked = await until(
      'the refund to ask',
      () => api(baseUrl, token, '/api/interactions'),
      (response) => response.body.interactions.length === 1,
    );
    await api(baseUrl, token, `/api/interactions/${asked.body.interactions[0].interactionId}/respond`, {
      action: 'approve',
    });
    expect((await doomed.exit).code).not.toBe(0);
    expect(ledgerLines(deployment)).toEqual([`refunded ${threadId} refund-1 A-1 1299`]);

    await startWorkers(deployment, 1, { leaseMs: 1_000 });
    const recovery = await until(
      'the question about the refund',
      () => api(baseUrl, token, '/api/interactions'),
      (response) => response.body.interactions.some((card: PendingCard) => card.toolApproval?.stage === 'recovery'),
    );
    const card = recovery.body.interactions.find((item: PendingCard) => item.toolApproval?.stage === 'recovery');
    const respond = (body: unknown) => api(baseUrl, token, `/api/interactions/${card.interactionId}/respond`, body);
    const approved = await respond({ action: 'approve' });
    expect(approved.status).toBe(422);
    expect(approved.body.message).toMatch(/done .*retry .*failed/);
    expect((await respond({ action: 'approve', resolution: 'done' })).status).toBe(200);
    await until(
      'the thread to complete',
      () => api(baseUrl, token, `/api/threads/${threadId}`),
      (response) => response.body.thread?.status === 'completed',
    );
    // It paid once: "done" never ran it again.
    expect(ledgerLines(deployment)).toEqual([`refunded ${threadId} refund-1 A-1 1299`]);
  }, 60_000);

  it(`takes ${THREADS} threads answered in the web inbox to the end on 3 workers, one killed and one frozen mid-way, each refund once`, async () => {
    const deployment = await newDeployment();
    const leaseMs = 1_000;
    const workers = await startWorkers(deployment, 3, { leaseMs, concurrency: 4 });
    const { baseUrl, token } = await startWeb(deployment);

    const service = startService(deployment, { mode: 'start', count: THREADS, leaseMs });
    const { code, stdout, stderr } = await service.exit;
    const threadIds = resultOf(stdout)?.threadIds ?? [];
    expect(threadIds, `${code} ${stderr}`).toHaveLength(THREADS);

    // A person at the inbox: approves each call; for a call whose outcome is unknown (its worker
    // died while it ran) says `done` when the ledger shows it ran, `retry` otherwise.
    const [killed, frozen, steady] = workers as [Child, Child, Child];
    // Once a third of the refunds ran: one worker is killed, one frozen past its lease, then resumed.
    let remainingAtChaos = -1;
    const chaos = until(
      'a third of the refunds',
      async () => ledgerLines(deployment).length,
      (count) => count >= THREADS / 3,
      300_000,
    ).then(async (count) => {
      remainingAtChaos = THREADS - count;
      killed.child.kill('SIGKILL');
      frozen.child.kill('SIGSTOP');
      await claimsHeldNowRunOut(deployment);
      frozen.child.kill('SIGCONT');
    });
    const counts: Record<string, number> = {};
    // Bounded in time, so that a stall ends in the assertions below (with what was left) rather than the test's timeout.
    await until(
      'every thread to complete',
      async () => {
        const completed = (await api(baseUrl, token, '/api/threads?status=completed')).body.threads.length as number;
        if (completed === THREADS) return completed;
        const ledger = ledgerLines(deployment).join('\n');
        for (const card of (await api(baseUrl, token, '/api/interactions')).body.interactions as PendingCard[]) {
          const recovery = card.toolApproval?.stage === 'recovery';
          const ran = recovery && ledger.includes(`refunded ${card.threadId} ${card.toolApproval?.toolCallId} `);
          const body = recovery ? { action: 'approve', resolution: ran ? 'done' : 'retry' } : { action: 'approve' };
          const answered = await api(baseUrl, token, `/api/interactions/${card.interactionId}/respond`, body);
          const name = `${recovery ? `recovery-${body.resolution}` : 'approve'}:${answered.status}`;
          counts[name] = (counts[name] ?? 0) + 1;
        }
        return completed;
      },
      (completed) => completed === THREADS,
      { timeoutMs: 300_000, intervalMs: 100 },
    ).catch(() => undefined);
    await chaos;
    // The chaos happened mid-way, not after the end.
    expect(remainingAtChaos).toBeGreaterThan(0);

    const completed = (await api(baseUrl, token, '/api/threads?status=completed')).body.threads.map(
      (thread: { threadId: string }) => thread.threadId,
    );
    const statuses: Record<string, number> = {};
    for (const status of ['running', 'waiting', 'failed', 'cancelled'])
      statuses[status] = (await api(baseUrl, token, `/api/threads?status=${status}`)).body.threads?.length ?? 0;
    const left = {
      counts,
      statuses,
      ledger: ledgerLines(deployment).length,
      pending: (await api(baseUrl, token, '/api/interactions')).body.interactions.length,
    };
    expect([...completed].sort(), JSON.stringify(left)).toEqual([...threadIds].sort());
    expect(ledgerLines(deployment).sort()).toEqual(
      threadIds.map((threadId) => `refunded ${threadId} refund-1 A-1 1299`).sort(),
    );
    // Every answer given in the inbox was accepted: none needed anything but an answer.
    expect(
      Object.keys(counts).every((name) => name.endsWith(':200')),
      JSON.stringify(counts),
    ).toBe(true);

    frozen.child.kill('SIGTERM');
    steady.child.kill('SIGTERM');
    const reports = await Promise.all([frozen.exit, steady.exit]);
    // The work was spread: the two workers that lived took threads forward.
    for (const report of reports)
      expect(resultOf(report.stdout)?.threads?.length ?? 0, report.stderr).toBeGreaterThan(0);
  }, 400_000);
});
