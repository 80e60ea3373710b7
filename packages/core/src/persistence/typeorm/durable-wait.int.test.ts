import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { askNode, linearWorkflow } from '../../__fixtures__/workflows.js';
import { builtinTools, createInterlock, type StoreOptions } from '../../index.js';
import { scriptedModel } from '../../testing/index.js';

const postgresUrl = process.env['INTERLOCK_TEST_POSTGRES_URL'];
const schema = `interlock_durable_${process.pid}_${Date.now().toString(36)}`;

afterAll(async () => {
  if (!postgresUrl) return;
  const admin = new pg.Client({ connectionString: postgresUrl });
  await admin.connect();
  await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  await admin.end();
});

const stores: [string, () => Promise<StoreOptions>][] = [
  [
    'SQLite',
    async () => ({ type: 'sqlite', path: join(await mkdtemp(join(tmpdir(), 'interlock-durable-')), 'interlock.db') }),
  ],
  [
    'PostgreSQL',
    async () => {
      if (!postgresUrl)
        throw new Error('INTERLOCK_TEST_POSTGRES_URL is not set: run `eval "$(bash scripts/start-postgres.sh)"` first');
      return { type: 'postgres', url: postgresUrl, schema };
    },
  ],
];

describe.each(stores)('a durable wait on %s (F21, F38, F40)', (_name, storeOptions) => {
  it('is answered and finished by another Interlock on the same database', async () => {
    const store = await storeOptions();
    const definition = linearWorkflow([askNode('ask', { timeout: '1h' })], { id: `durable-${Date.now()}` });

    const first = await createInterlock({ store });
    const workflow = first.registerWorkflow(definition);
    const waiting = await (await first.start(workflow, { channel: 'inbox' })).done();
    expect(waiting.status).toBe('waiting');
    await first.close();

    const second = await createInterlock({ store });
    second.registerWorkflow(definition);
    const pending = (await second.pending()).filter((request) => request.threadId === waiting.threadId);
    expect(pending).toHaveLength(1);
    const answer = await second.respond(pending[0]!.interactionId, 'answered elsewhere', { responder: 'grace' });
    const outcome = answer.status === 'accepted' ? await answer.thread?.done() : undefined;
    expect(outcome).toMatchObject({ status: 'completed', output: 'answered elsewhere' });
    expect(await second.respond(pending[0]!.interactionId, 'again')).toMatchObject({ status: 'already_answered' });
    await second.close();
  });

  it('keeps a tool approval across instances, and the approved call runs where it was answered', async () => {
    const store = await storeOptions();
    const workspace = await mkdtemp(join(tmpdir(), 'interlock-durable-ws-'));
    await writeFile(join(workspace, 'README.md'), '# hi');
    const definition = linearWorkflow(
      [{ id: 'agent', type: 'LLM', config: { tools: ['write_file'], outputVariable: 'output' } }],
      {
        id: `durable-tools-${Date.now()}`,
      },
    );
    const proposal = {
      text: 'writing',
      toolCalls: [{ id: 'w1', name: 'write_file', arguments: { path: 'out.txt', content: 'from a crash-safe run' } }],
    };

    const firstModel = scriptedModel([proposal]);
    const first = await createInterlock({
      store,
      models: { default: firstModel },
      tools: builtinTools,
      workspaceRoot: workspace,
    });
    const waiting = await (await first.start(first.registerWorkflow(definition), { channel: 'inbox' })).done();
    expect(waiting.status).toBe('waiting');
    await first.close();

    // The second process never re-asks the model for the turn it already proposed.
    const secondModel = scriptedModel(['Written.']);
    const second = await createInterlock({
      store,
      models: { default: secondModel },
      tools: builtinTools,
      workspaceRoot: workspace,
    });
    second.registerWorkflow(definition);
    const [approval] = (await second.pending()).filter((request) => request.threadId === waiting.threadId);
    expect(approval?.toolApproval).toMatchObject({ toolName: 'write_file', toolParameters: { path: 'out.txt' } });
    const answer = await second.respond(approval!.interactionId, { approved: true });
    const outcome = answer.status === 'accepted' ? await answer.thread?.done() : undefined;
    expect(outcome).toMatchObject({ status: 'completed', output: 'Written.' });
    expect(await readFile(join(workspace, 'out.txt'), 'utf8')).toBe('from a crash-safe run');
    expect(secondModel.requests).toHaveLength(1);
    expect(secondModel.requests[0]!.messages.map((message) => message.role)).toEqual(['assistant', 'tool']);
    await second.close();
  });

  it('times out, at the next start, a deadline that passed while no process ran', async () => {
    const store = await storeOptions();
    let now = Date.parse('2026-03-01T09:00:00Z');
    const clock = { now: () => now };
    const definition = linearWorkflow([askNode('ask', { timeout: '1m' })], { id: `overdue-${Date.now()}` });
    const first = await createInterlock({ store, clock });
    const waiting = await (await first.start(first.registerWorkflow(definition), { channel: 'inbox' })).done();
    const [question] = (await first.pending()).filter((request) => request.threadId === waiting.threadId);
    await first.close();

    now += 120_000; // nobody ran for two minutes
    const second = await createInterlock({ store, clock });
    expect((await second.pending()).filter((request) => request.threadId === waiting.threadId)).toEqual([]);
    expect(await second.respond(question!.interactionId, 'too late')).toMatchObject({ status: 'expired' });
    const outcome = await (await second.resume(waiting.threadId)).done();
    expect(outcome).toMatchObject({ status: 'failed', error: { code: 'INTERACTION_TIMEOUT' } });
    await second.close();
  });

  it('keeps the audit trail and remembered approvals across processes (F30, F33, F45)', async () => {
    const store = await storeOptions();
    const workspace = await mkdtemp(join(tmpdir(), 'interlock-durable-memory-'));
    const definition = linearWorkflow([{ id: 'agent', type: 'LLM', config: { tools: ['write_file'] } }], {
      id: `memory-${Date.now()}`,
    });
    const write = {
      text: '',
      toolCalls: [{ id: 'w', name: 'write_file', arguments: { path: 'same.txt', content: 'x' } }],
    };
    const chatId = `chat-${Date.now()}`;

    const first = await createInterlock({
      store,
      models: { default: scriptedModel([write]) },
      tools: builtinTools,
      workspaceRoot: workspace,
    });
    const waiting = await (
      await first.start(first.registerWorkflow(definition), { channel: 'inbox', session: { chatId } })
    ).done();
    const [approval] = (await first.pending()).filter((request) => request.threadId === waiting.threadId);
    expect(approval?.toolApproval?.rememberable).toBe(true);
    await first.close();

    const second = await createInterlock({
      store,
      models: { default: scriptedModel(['ok']) },
      tools: builtinTools,
      workspaceRoot: workspace,
    });
    second.registerWorkflow(definition);
    const answer = await second.respond(
      approval!.interactionId,
      { approved: true, remember: true },
      { responder: 'ada' },
    );
    if (answer.status === 'accepted') await answer.thread?.done();
    await second.close();

    // A third process: the same call in the same chat runs without asking, and the trail is whole.
    const third = await createInterlock({
      store,
      models: { default: scriptedModel([write, 'ok']) },
      tools: builtinTools,
      workspaceRoot: workspace,
    });
    const again = await (
      await third.start(third.registerWorkflow(definition), { channel: 'inbox', session: { chatId } })
    ).done();
    expect(again.status).toBe('completed');
    const trail = await third.audit();
    expect(
      trail
        .filter((entry) => entry.threadId === waiting.threadId)
        .map((entry) => `${entry.decidedBy}:${entry.responder ?? ''}`),
    ).toEqual(['person:ada']);
    expect(trail.filter((entry) => entry.threadId === again.threadId).map((entry) => entry.decidedBy)).toEqual([
      'memory:session',
    ]);
    expect(await third.verifyAudit()).toMatchObject({ valid: true });
    await third.close();
  });

  it('refuses to resume with a changed workflow version instead of mapping answers to the wrong step', async () => {
    const store = await storeOptions();
    const id = `versioned-${Date.now()}`;
    const first = await createInterlock({ store });
    const waiting = await (
      await first.start(first.registerWorkflow(linearWorkflow([askNode()], { id, version: '1' })), { channel: 'inbox' })
    ).done();
    await first.close();

    const second = await createInterlock({ store });
    second.registerWorkflow(linearWorkflow([askNode()], { id, version: '2' }));
    await expect(second.resume(waiting.threadId)).rejects.toMatchObject({ code: 'WORKFLOW_VERSION_MISMATCH' });
    await second.close();
  });

  it('cancels a thread of a version this process does not run, running none of it (issue 28)', async () => {
    const store = await storeOptions();
    const id = `rolled-out-${Date.now()}`;
    const first = await createInterlock({ store });
    const waiting = await (
      await first.start(first.registerWorkflow(linearWorkflow([askNode()], { id, version: '1' })), { channel: 'inbox' })
    ).done();
    await first.close();

    // The inbox of a deployment after a rollout: version 2 loaded, a person cancels a version 1 thread.
    const inbox = await createInterlock({ store });
    inbox.registerWorkflow(linearWorkflow([askNode('other')], { id, version: '2' }));
    const events: string[] = [];
    inbox.events$.subscribe((event) => events.push(event.type));
    await inbox.cancel(waiting.threadId, 'rolled back by ops');
    expect(await inbox.thread(waiting.threadId)).toMatchObject({ status: 'cancelled', pendingInteractionIds: [] });
    expect(await inbox.thread(waiting.threadId)).not.toHaveProperty('lease');
    expect(await inbox.interactions({ threadId: waiting.threadId })).toMatchObject([
      { status: 'failed', failureReason: 'cancelled', failureMessage: 'rolled back by ops' },
    ]);
    expect(events).toEqual(['THREAD_CANCELLED']);
    await inbox.close();
  });
});
