import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadProjectConfig, openStore, servedVersions } from '@interlock/core';
import { startCommitCutter } from '@interlock/core/testing';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { api, dropDeploymentSchemas, newDeployment, until } from './deployment/deployment-harness.js';
import { agentWorkflow, startWebServer, startWorker, TOKENS, type Store } from './answer-outcomes/deployment-parts.js';

/*
 * What the inbox of a deployment says an answer came to (issue 28; docs/web.md, "What an
 * answer came to"), each outcome produced for real: web servers and workers on one real
 * PostgreSQL, workers of two versions, two approvers at once, an edit the pipeline refuses,
 * a passed deadline, a commit cut off by the network.
 */

const closers: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close().catch(() => undefined);
});
afterAll(() => dropDeploymentSchemas());

async function postgresStore(): Promise<Store> {
  return (await newDeployment()).store;
}

/** Starts a thread of `workflowId` through the page's API and waits for its call to wait for an approver. */
async function waitingCall(baseUrl: string, workflowId: string) {
  const started = await api(baseUrl, TOKENS.ada, '/api/threads', { workflowId });
  expect(started.status, JSON.stringify(started.body)).toBe(201);
  const threadId = started.body.threadId as string;
  const { body } = await until(
    `thread ${threadId} to ask`,
    () => api(baseUrl, TOKENS.ada, `/api/interactions?threadId=${threadId}`),
    (response) => response.body?.interactions?.length === 1,
    30_000,
  );
  return { threadId, interactionId: body.interactions[0].interactionId as string };
}

function answer(baseUrl: string, who: keyof typeof TOKENS, interactionId: string, body: unknown) {
  return api(baseUrl, TOKENS[who], `/api/interactions/${interactionId}/respond`, body);
}

async function threadOf(baseUrl: string, threadId: string) {
  return (await api(baseUrl, TOKENS.ada, `/api/threads/${threadId}`)).body?.thread;
}

/** The thread as stored once it ended, output included. */
async function ended(store: Store, threadId: string) {
  const reader = await openStore(store);
  try {
    return await until(
      `thread ${threadId} to end`,
      () => reader.getThread(threadId),
      (thread) => thread?.status === 'completed' || thread?.status === 'failed',
      30_000,
    );
  } finally {
    await reader.close();
  }
}

/**
 * A worker on PostgreSQL and a web server reaching the same database through a commit cutter,
 * with a refund call of version 1 waiting for approval.
 */
async function waitingBehindCutter() {
  const store = await postgresStore();
  if (store.type !== 'postgres') throw new Error('PostgreSQL only');
  await startWorker(store, [agentWorkflow('1')], closers);
  const cutter = await startCommitCutter(store.url);
  closers.push(() => cutter.close());
  const { baseUrl } = await startWebServer({ ...store, url: cutter.url }, closers);
  return { store, cutter, baseUrl, call: await waitingCall(baseUrl, 'agent-refund') };
}

describe('what the inbox of a deployment says an answer came to (issue 28, F43, F46, F53)', () => {
  it('stores answers to threads of both versions workers offer, says a worker of each version takes it on, and it does', async () => {
    const store = await postgresStore();
    const first = await startWorker(store, [agentWorkflow('1')], closers);
    const { baseUrl } = await startWebServer(store, closers);
    const old = await waitingCall(baseUrl, 'agent-refund');
    const second = await startWorker(store, [agentWorkflow('2')], closers);
    const fresh = await waitingCall(baseUrl, 'agent-refund');

    for (const [call, version] of [
      [old, '1'],
      [fresh, '2'],
    ] as const) {
      const response = await answer(baseUrl, 'ada', call.interactionId, { action: 'approve' });
      expect(response.status).toBe(200);
      expect(response.body).toMatchObject({
        result: 'accepted',
        continuation: 'scheduled',
        continued: false,
        served: true,
        message: expect.stringContaining(
          `a worker serving workflow "agent-refund" version ${version} takes the thread on`,
        ),
      });
    }
    // Version 2 was what the page started last; the version-1 thread was not refused, and its own worker ran it.
    expect(await ended(store, old.threadId)).toMatchObject({
      status: 'completed',
      output: 'v1: [SUCCESS] refunded 1299',
    });
    expect(await ended(store, fresh.threadId)).toMatchObject({
      status: 'completed',
      output: 'v2: [SUCCESS] refunded 1299',
    });
    expect(first.taken).toContain(old.threadId);
    expect(second.taken).not.toContain(old.threadId);
  }, 90_000);

  it('says so when no live worker serves the version of the thread answered: stored, and going on once one starts', async () => {
    const store = await postgresStore();
    const gone = await startWorker(store, [agentWorkflow('7')], closers, { leaseMs: 1_000 });
    const { baseUrl } = await startWebServer(store, closers);
    const call = await waitingCall(baseUrl, 'agent-refund');
    await gone.worker.stop();
    const reader = await openStore(store);
    closers.push(() => reader.close());
    await until(
      'the stopped worker’s offer to run out',
      () => servedVersions(reader, Date.now()),
      (served) => served.length === 0,
    );
    const response = await answer(baseUrl, 'ada', call.interactionId, { action: 'approve' });
    expect(response.body).toMatchObject({
      continuation: 'scheduled',
      served: false,
      message: expect.stringContaining('no live worker serves workflow "agent-refund" version 7 now'),
    });
    expect((await threadOf(baseUrl, call.threadId))?.status).toBe('waiting');
    await startWorker(store, [agentWorkflow('7')], closers);
    expect(await ended(store, call.threadId)).toMatchObject({ status: 'completed' });
  }, 90_000);

  it('tells the second of two approvers pressing Approve at once on two servers who answered first, and audits the lost attempt', async () => {
    const store = await postgresStore();
    await startWorker(store, [agentWorkflow('1')], closers);
    const one = await startWebServer(store, closers);
    const two = await startWebServer(store, closers);
    for (let pair = 0; pair < 6; pair += 1) {
      const call = await waitingCall(one.baseUrl, 'agent-refund');
      const [ada, bob] = await Promise.all([
        answer(one.baseUrl, 'ada', call.interactionId, { action: 'approve' }),
        answer(two.baseUrl, 'bob', call.interactionId, { action: 'approve' }),
      ]);
      expect([ada.status, bob.status].sort()).toEqual([200, 409]);
      const [winner, loser] = ada.status === 200 ? (['web:ada', bob] as const) : (['web:bob', ada] as const);
      expect(loser.body).toMatchObject({
        code: 'INTERACTION_ALREADY_ANSWERED',
        message: expect.stringContaining(`already answered by ${winner}`),
        details: { answeredBy: winner },
      });
      const audit = (await api(one.baseUrl, TOKENS.ada, `/api/audit?threadId=${call.threadId}`)).body.entries;
      expect(audit).toContainEqual(
        expect.objectContaining({
          rule: 'attempt:lost',
          responder: winner === 'web:ada' ? 'web:bob' : 'web:ada',
        }),
      );
    }
  }, 120_000);

  it('refuses, with the rule, an edit the pipeline refuses — a banned command, a deny rule of the project file — and the question stays open', async () => {
    const store = await postgresStore();
    const dir = await mkdtemp(join(tmpdir(), 'interlock-outcomes-'));
    await writeFile(
      join(dir, 'interlock.toml'),
      `[approval]\ndenyRules = ['tool == "refund" && args.cents > 10000']\n`,
    );
    const config = await loadProjectConfig(join(dir, 'interlock.toml'));
    await startWorker(store, [agentWorkflow('1'), agentWorkflow('1', 'bash', { command: 'ls' })], closers, {
      config,
    });
    const { baseUrl } = await startWebServer(store, closers, { config });
    const shell = await waitingCall(baseUrl, 'agent-bash');
    const refund = await waitingCall(baseUrl, 'agent-refund');
    for (const [call, edited, rule] of [
      [shell, { command: 'echo ok; dd if=/dev/zero of=/dev/sda' }, 'shell:banned'],
      [refund, { order: 'A-1', cents: 50_000 }, 'deny-rule:0'],
    ] as const) {
      const refused = await answer(baseUrl, 'ada', call.interactionId, { action: 'edit', arguments: edited });
      expect(refused.status).toBe(422);
      expect(refused.body).toMatchObject({
        code: 'INTERACTION_INVALID_RESPONSE',
        message: expect.stringContaining(rule),
      });
      expect((await api(baseUrl, TOKENS.ada, `/api/interactions/${call.interactionId}`)).body.status).toBe('pending');
    }
    const fixed = await answer(baseUrl, 'ada', refund.interactionId, {
      action: 'edit',
      arguments: { order: 'A-1', cents: 700 },
    });
    expect(fixed.body).toMatchObject({ result: 'accepted', continuation: 'scheduled' });
    expect(await ended(store, refund.threadId)).toMatchObject({ output: 'v1: [SUCCESS] refunded 700' });
  }, 90_000);

  it('says an answer after the deadline expired (410), and nothing runs', async () => {
    const store = await postgresStore();
    await startWorker(store, [agentWorkflow('1', 'refund', { order: 'A-1', cents: 5 }, '1s')], closers);
    const { baseUrl } = await startWebServer(store, closers);
    const call = await waitingCall(baseUrl, 'agent-refund');
    // The worker's deadline job times the call out: the model is told nobody approved it in time.
    expect(await ended(store, call.threadId)).toMatchObject({ output: expect.stringContaining('TIMEOUT') });
    const late = await answer(baseUrl, 'ada', call.interactionId, { action: 'approve' });
    expect(late.status).toBe(410);
    expect(late.body).toMatchObject({ code: 'INTERACTION_EXPIRED', message: expect.stringContaining('nothing ran') });
  }, 90_000);

  it('says an answer whose commit was cut off may or may not be stored (503); sent again it is taken once', async () => {
    const { store, cutter, baseUrl, call } = await waitingBehindCutter();
    const cut = cutter.arm();
    const unknown = await answer(baseUrl, 'ada', call.interactionId, { action: 'approve' });
    await cut;
    expect(unknown.status).toBe(503);
    expect(unknown.body).toMatchObject({
      code: 'STORE_OUTCOME_UNKNOWN',
      message: expect.stringContaining('may or may not be stored'),
    });
    // It was committed: stored (and maybe applied already by the worker its job went to). The
    // cut connection's server process may still be committing when the 503 comes back (seen
    // once on a loaded machine: a read right away found the question still pending), so read
    // until it is no longer pending: a commit that never happens leaves it pending, and fails.
    const { body: state } = await until(
      'the cut-off commit to finish on the server',
      () => api(baseUrl, TOKENS.ada, `/api/interactions/${call.interactionId}`),
      (response) => response.body?.status !== 'pending',
      30_000,
    );
    expect(['responded', 'processed']).toContain(state.status);
    const again = await answer(baseUrl, 'ada', call.interactionId, { action: 'approve' });
    expect(again.body, JSON.stringify(again.body)).toMatchObject({ result: 'accepted', repeated: true });
    expect(await ended(store, call.threadId)).toMatchObject({ output: 'v1: [SUCCESS] refunded 1299' });
  }, 90_000);

  it('says an answer whose write was cut off was not stored (503); the question still waits and takes it again', async () => {
    const { cutter, baseUrl, call } = await waitingBehindCutter();
    const cut = cutter.arm('write');
    const lost = await answer(baseUrl, 'ada', call.interactionId, { action: 'approve' });
    await cut;
    expect(lost.status).toBe(503);
    expect(lost.body).toMatchObject({
      code: 'STORE_UNAVAILABLE',
      message: expect.stringContaining('your answer was not stored'),
    });
    expect((await api(baseUrl, TOKENS.ada, `/api/interactions/${call.interactionId}`)).body.status).toBe('pending');
    expect((await answer(baseUrl, 'ada', call.interactionId, { action: 'approve' })).body).toMatchObject({
      result: 'accepted',
      continuation: 'scheduled',
    });
  }, 90_000);
});
