import { randomBytes } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  createInterlock,
  createWorker,
  defineTool,
  openStore,
  scriptedModel,
  type Interlock,
  type StoreOptions,
} from '@interlock/core';
import { startCommitCutter } from '@interlock/core/testing';
import type { WorkflowDefinitionInput } from '@interlock/sdk-types';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { assertBuilt } from './built-cli.js';
import { cliIn, createWorkingDirectory, jsonOf } from './cross-process.js';

/*
 * What `interlock respond` says an answer came to (issue 28; docs/cli.md, "What an answer
 * came to"), each outcome produced for real with the built CLI: a deployment (a worker of the
 * thread's version on PostgreSQL) answered from the CLI, an edit the rules refuse, another
 * person first, a thread that cannot go on here, a repeat after the end, a cut-off commit.
 */

const BASE_URL = process.env['INTERLOCK_TEST_POSTGRES_URL'] ?? '';
const schemas: string[] = [];
const closers: (() => Promise<unknown>)[] = [];
beforeAll(() => assertBuilt());
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close().catch(() => undefined);
});
afterAll(async () => {
  const admin = new pg.Client({ connectionString: BASE_URL });
  await admin.connect();
  for (const schema of schemas) {
    await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await admin.query(`DROP SCHEMA IF EXISTS "${schema}_jobs" CASCADE`);
  }
  await admin.end();
});

const refund = defineTool({
  name: 'refund',
  description: 'Refunds an order',
  category: 'network',
  riskLevel: 'HIGH',
  parameters: z.object({ order: z.string(), cents: z.number().int() }),
  execute: async ({ cents }) => `refunded ${cents}`,
});

/** START → a model that refunds A-1 → END; the call waits an hour for an approver. */
const REFUND: WorkflowDefinitionInput = {
  id: 'refund',
  name: 'Refund',
  version: '3',
  config: { toolApproval: { autoApprovedTools: [], approvalTimeout: '1h' } },
  variables: [{ name: 'output', scope: 'thread' }],
  nodes: [
    { id: 'start', type: 'START' },
    { id: 'agent', type: 'LLM', config: { systemPrompt: 'Refund.', tools: ['refund'], outputVariable: 'output' } },
    { id: 'end', type: 'END', config: { output: '{{ output }}' } },
  ],
  edges: [
    { from: 'start', to: 'agent' },
    { from: 'agent', to: 'end' },
  ],
};

const model = () =>
  scriptedModel((request) =>
    request.messages.some((message) => message.role === 'tool')
      ? 'Refunded.'
      : { text: 'Refunding.', toolCalls: [{ id: 'r-1', name: 'refund', arguments: { order: 'A-1', cents: 900 } }] },
  );

/** A fresh PostgreSQL schema: the store as the CLI's --store names it, and as createWorker takes it. */
function postgresStore(): { spec: string; options: Extract<StoreOptions, { type: 'postgres' }> } {
  const schema = `cli_outcomes_${randomBytes(5).toString('hex')}`;
  schemas.push(schema);
  const url = new URL(BASE_URL);
  url.searchParams.set('schema', schema);
  return { spec: url.toString(), options: { type: 'postgres', url: BASE_URL, schema } };
}

/** A worker of REFUND (the service, holding `refund`), and a thread of it waiting for its approval. */
async function deployment(options: Extract<StoreOptions, { type: 'postgres' }>) {
  const worker = await createWorker({
    store: options,
    workflows: [REFUND],
    tools: [refund],
    models: { default: model() },
    pollMs: 50,
  });
  closers.push(() => worker.stop());
  const outcome = await (await worker.interlock.start('refund', { channel: 'web' })).done();
  if (outcome.status !== 'waiting') throw new Error(`the thread did not wait: ${outcome.status}`);
  return { threadId: outcome.threadId, interactionId: outcome.pendingInteractionIds[0]! };
}

async function storedThread(options: StoreOptions, threadId: string, until: (status: string) => boolean) {
  const store = await openStore(options);
  try {
    for (const started = Date.now(); Date.now() - started < 30_000;) {
      const thread = await store.getThread(threadId);
      if (thread !== undefined && until(thread.status)) return thread;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error(`thread ${threadId} did not get there`);
  } finally {
    await store.close();
  }
}

describe('what interlock respond says an answer came to (issue 28, F46, F53)', () => {
  it('answers a deployment as an answerer: stores the answer for the worker of the thread’s version, says so (exit 0), and the worker finishes it', async () => {
    const { spec, options } = postgresStore();
    const { threadId, interactionId } = await deployment(options);
    const directory = await createWorkingDirectory();
    const answered = await cliIn(directory, ['respond', interactionId, 'approve', '--store', spec]);
    expect(answered.stderr).toBe('');
    expect(answered.exitCode).toBe(0);
    expect(answered.stdout).toContain(
      `✓ approved: stored for interaction ${interactionId}; a worker serving workflow "refund" version 3 takes thread ${threadId} forward`,
    );
    expect(await storedThread(options, threadId, (status) => status !== 'waiting')).toMatchObject({
      status: 'completed',
      output: 'Refunded.',
    });
  }, 60_000);

  it('refuses an edit the project file’s rules deny (exit 1, the rule), the question still waits; --json says so', async () => {
    const { spec, options } = postgresStore();
    const { interactionId } = await deployment(options);
    const directory = await createWorkingDirectory();
    await writeFile(
      join(directory, 'interlock.toml'),
      `[approval]\ndenyRules = ['tool == "refund" && args.cents > 1000']\n`,
    );
    const refused = await cliIn(directory, [
      'respond',
      interactionId,
      'edit',
      '{"order":"A-1","cents":5000}',
      '--store',
      spec,
      '--json',
    ]);
    expect(refused.exitCode).toBe(1);
    expect(jsonOf(refused)).toMatchObject({
      result: 'refused',
      message: expect.stringMatching(/the edited arguments are denied \(deny-rule:0\).*The question still waits/),
    });
    const store = await openStore(options);
    expect((await store.getInteraction(interactionId))?.status).toBe('pending');
    await store.close();
  }, 60_000);

  it('tells who answered first (exit 4) and audits the lost attempt', async () => {
    const { spec, options } = postgresStore();
    const { threadId, interactionId } = await deployment(options);
    const web: Interlock = await createInterlock({ store: options, continueIn: 'workers-only', recoverOnStart: false });
    closers.push(() => web.close());
    await web.respond(interactionId, { approved: true }, { responder: 'web:ada' });
    const directory = await createWorkingDirectory();
    const late = await cliIn(directory, ['respond', interactionId, 'approve', '--store', spec]);
    expect(late.exitCode).toBe(4);
    expect(late.stderr).toMatch(
      new RegExp(
        `Interaction ${interactionId} was already answered by web:ada at \\S+ \\(thread ${threadId}\\): your answer changed nothing`,
      ),
    );
    expect(await web.audit({ threadId })).toContainEqual(
      expect.objectContaining({ rule: 'attempt:lost', responder: expect.stringMatching(/^cli:/) }),
    );
  }, 60_000);

  it('says the answer is stored but the thread did not go on, and why (exit 3), when nothing here or in a worker can run it', async () => {
    const directory = await createWorkingDirectory();
    const path = join(directory, '.interlock', 'interlock.db');
    const service = await createInterlock({
      store: { type: 'sqlite', path },
      tools: [refund],
      models: { default: model() },
    });
    const outcome = await (await service.start(service.registerWorkflow(REFUND), { channel: 'web' })).done();
    await service.close();
    if (outcome.status !== 'waiting') throw new Error('the thread did not wait');
    const stalled = await cliIn(directory, ['respond', outcome.pendingInteractionIds[0]!, 'approve']);
    expect(stalled.exitCode).toBe(3);
    expect(stalled.stderr).toMatch(
      /: stored for interaction \S+, but thread \S+ did not go on \(WORKFLOW_INVALID: .*refund/,
    );
    expect(stalled.stderr).toContain('start a worker that serves it');
  }, 60_000);

  it('says a repeated answer found the thread ended (exit 0)', async () => {
    const directory = await createWorkingDirectory();
    const detached = jsonOf<{ pendingInteractionIds: string[]; threadId: string }>(
      await cliIn(directory, ['run', 'ask.toml', '--detach', '--json']),
    );
    const [interactionId] = detached.pendingInteractionIds;
    expect((await cliIn(directory, ['respond', interactionId!, 'answer', 'yes'])).exitCode).toBe(0);
    const again = await cliIn(directory, ['respond', interactionId!, 'answer', 'yes']);
    expect(again.exitCode).toBe(0);
    expect(again.stdout).toContain(
      `stored before for interaction ${interactionId} and applied; thread ${detached.threadId} has completed since`,
    );
  }, 60_000);

  it('says an answer whose commit was cut off may or may not be stored (exit 6); answered again it is taken once', async () => {
    const { options } = postgresStore();
    const { threadId, interactionId } = await deployment(options);
    const cutter = await startCommitCutter(BASE_URL);
    closers.push(() => cutter.close());
    const through = new URL(cutter.url);
    through.searchParams.set('schema', options.schema ?? '');
    const directory = await createWorkingDirectory();
    const cut = cutter.arm();
    const unknown = await cliIn(directory, [
      'respond',
      interactionId,
      'approve',
      '--store',
      through.toString(),
      '--json',
    ]);
    await cut;
    expect(unknown.exitCode).toBe(6);
    expect(jsonOf(unknown)).toMatchObject({ result: 'unknown', error: { code: 'STORE_OUTCOME_UNKNOWN' } });
    const again = await cliIn(directory, [
      'respond',
      interactionId,
      'approve',
      '--store',
      through.toString(),
      '--json',
    ]);
    expect(jsonOf(again)).toMatchObject({ result: 'accepted', threadId });
    expect(await storedThread(options, threadId, (status) => status !== 'waiting')).toMatchObject({
      status: 'completed',
    });
  }, 60_000);

  it('says an answer whose write was cut off was not stored (exit 1); the question still waits', async () => {
    const { options } = postgresStore();
    const { interactionId } = await deployment(options);
    const cutter = await startCommitCutter(BASE_URL);
    closers.push(() => cutter.close());
    const through = new URL(cutter.url);
    through.searchParams.set('schema', options.schema ?? '');
    const directory = await createWorkingDirectory();
    const cut = cutter.arm('write');
    const lost = await cliIn(directory, ['respond', interactionId, 'approve', '--store', through.toString()]);
    await cut;
    expect(lost.exitCode).toBe(1);
    expect(lost.stderr).toContain('interlock respond: your answer was not stored: the store failed');
    const store = await openStore(options);
    expect((await store.getInteraction(interactionId))?.status).toBe('pending');
    await store.close();
  }, 60_000);
});
