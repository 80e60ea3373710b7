import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  createInterlock,
  createWorker,
  defineTool,
  scriptedModel,
  type Interlock,
  type InterlockWorker,
} from '../index.js';
import { until } from '../testing/until.js';

/*
 * Edited arguments in a deployment (issue 12): the answerer does not hold the tool, so it
 * checks an edit against the schema the request carries; the worker that holds the tool
 * checks it again — schema and deny rules — before anything runs.
 */

const closers: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

const WORKFLOW = {
  id: 'refund',
  name: 'Refund',
  version: '1',
  config: { toolApproval: { autoApprovedTools: [], approvalTimeout: '1h' } },
  variables: [{ name: 'output', scope: 'thread' as const }],
  nodes: [
    { id: 'start', type: 'START' as const },
    {
      id: 'agent',
      type: 'LLM' as const,
      config: { systemPrompt: 'Refund.', tools: ['refund'], outputVariable: 'output' },
    },
    { id: 'end', type: 'END' as const, config: { output: '{{ output }}' } },
  ],
  edges: [
    { from: 'start', to: 'agent' },
    { from: 'agent', to: 'end' },
  ],
};

async function deployment() {
  const store = {
    type: 'sqlite' as const,
    path: join(await mkdtemp(join(tmpdir(), 'interlock-edits-')), 'interlock.db'),
  };
  const refunded: number[] = [];
  const refund = defineTool({
    name: 'refund',
    description: 'Refunds an order',
    category: 'network',
    riskLevel: 'HIGH',
    parameters: z.object({ order: z.string(), cents: z.number().int().positive() }),
    execute: async ({ cents }) => {
      refunded.push(cents);
      return `refunded ${cents}`;
    },
  });
  const model = scriptedModel((request) =>
    request.messages.some((message) => message.role === 'tool')
      ? String(request.messages.find((message) => message.role === 'tool')?.content)
      : { text: 'Refunding.', toolCalls: [{ id: 'r-1', name: 'refund', arguments: { order: 'A-1', cents: 500 } }] },
  );
  const worker: InterlockWorker = await createWorker({
    store,
    workflows: [WORKFLOW],
    tools: [refund],
    models: { default: model },
    approval: { denyRules: ['tool == "refund" && args.cents > 10000'] },
    pollMs: 50,
  });
  closers.push(() => worker.stop());
  const answerer: Interlock = await createInterlock({ store, continueIn: 'workers-only' });
  closers.push(() => answerer.close());
  const started = await answerer.start(answerer.registerWorkflow(WORKFLOW), { channel: 'web' });
  const approval = await eventually(async () =>
    (await answerer.pending()).find((request) => request.threadId === started.threadId),
  );
  const outcome = () =>
    eventually(async () => {
      const thread = await answerer.thread(started.threadId);
      return thread?.status === 'completed' ? thread : undefined;
    });
  return { answerer, approval, refunded, outcome };
}

/** Reads until `read` gives something; a hang reaches the limit. */
function eventually<T>(read: () => Promise<T | undefined>, timeoutMs = 30_000): Promise<T> {
  return until('the thread to complete', read, (value) => value !== undefined, timeoutMs) as Promise<T>;
}

describe('edited arguments answered where the tool is not (issue 12)', () => {
  it('refuses an edit that does not fit the schema the request carries, before storing it', async () => {
    const { answerer, approval } = await deployment();
    await expect(
      answerer.respond(approval.interactionId, { approved: true, editedParameters: { order: 'A-1', cents: 'lots' } }),
    ).rejects.toMatchObject({
      code: 'INTERACTION_INVALID_RESPONSE',
      message: expect.stringContaining('cents'),
    });
    expect((await answerer.interactions({ threadId: approval.threadId }))[0]?.status).toBe('pending');
  });

  it('runs an edit that fits, in the worker, with the edited arguments', async () => {
    const { answerer, approval, refunded, outcome } = await deployment();
    const answered = await answerer.respond(approval.interactionId, {
      approved: true,
      editedParameters: { order: 'A-1', cents: 250 },
    });
    expect(answered).toMatchObject({ status: 'accepted', continuation: { status: 'scheduled' } });
    await outcome();
    expect(refunded).toEqual([250]);
  });

  it('never runs an edit a deny rule of the worker refuses: the model is told it was refused', async () => {
    const { answerer, approval, refunded, outcome } = await deployment();
    await answerer.respond(approval.interactionId, {
      approved: true,
      editedParameters: { order: 'A-1', cents: 99_999 },
    });
    const thread = await outcome();
    expect(refunded).toEqual([]);
    expect(String(thread.output)).toMatch(/EXECUTION_REJECTED.*edited arguments were refused/);
    // The answer was read and decided the call: it is consumed, not left answered for ever.
    expect(await answerer.interactions({ threadId: thread.threadId })).toEqual([
      expect.objectContaining({ interactionId: approval.interactionId, status: 'processed' }),
    ]);
  });
});
