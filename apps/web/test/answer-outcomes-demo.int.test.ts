import { join } from 'node:path';
import { createInterlock, defineTool, holdUntilAnsweredElsewhere, scriptedModel } from '@interlock/core';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { RELEASE_QUESTION_WORKFLOW } from '../src/demo/web-demo.js';
import { agentWorkflow } from './answer-outcomes/deployment-parts.js';
import { until } from './deployment/deployment-harness.js';
import { request, startHarness, type WebHarness } from './web-harness.js';

/*
 * What the inbox says an answer came to where threads go on in the web server's own process
 * (`interlock-web --demo`, issue 28; docs/web.md, "What an answer came to"): the thread goes
 * on now, or the answer is stored and the thread could not go on here, and why.
 */

const refund = defineTool({
  name: 'refund',
  description: 'Refunds an order',
  category: 'network',
  riskLevel: 'HIGH',
  parameters: z.object({ order: z.string(), cents: z.number().int() }),
  execute: async ({ cents }) => `refunded ${cents}`,
});

/** A service on the harness's SQLite file that holds `refund`; its threads ask on the web channel. */
function service(directory: string, holdsQuestions: boolean) {
  return createInterlock({
    store: { type: 'sqlite', path: join(directory, 'interlock.db') },
    tools: [refund],
    models: {
      default: scriptedModel([
        { text: 'Refunding.', toolCalls: [{ id: 'r-1', name: 'refund', arguments: { order: 'A', cents: 5 } }] },
        'Refunded.',
      ]),
    },
    // Holding the question: the service keeps the thread (and its claim) while it waits.
    ...(holdsQuestions ? { handlers: { web: holdUntilAnsweredElsewhere } } : {}),
  });
}

let harness: WebHarness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

describe('what the inbox of the demo says an answer came to (issue 28, F43)', () => {
  it('says the thread goes on now when this server takes it forward', async () => {
    harness = await startHarness();
    const { approvals } = await harness.startReleaseAgent();
    const response = await request(harness, `/api/interactions/${approvals[0]!.interactionId}/respond`, {
      token: harness.tokens['alice']!,
      body: { action: 'approve' },
    });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({
      result: 'accepted',
      continuation: 'continued',
      continued: true,
      message: 'Your answer is stored; the thread goes on now.',
    });
  });

  it('says the answer is stored but the thread did not go on, and why, for a thread whose tool this server does not hold', async () => {
    harness = await startHarness();
    // A service on the same file started a thread whose tool (refund) only it holds, then stopped.
    const stopped = await service(harness.directory, false);
    const outcome = await (
      await stopped.start(stopped.registerWorkflow(agentWorkflow('1')), { channel: 'web' })
    ).done();
    await stopped.close();
    if (outcome.status !== 'waiting') throw new Error(`the service's thread did not wait: ${outcome.status}`);

    const response = await request(harness, `/api/interactions/${outcome.pendingInteractionIds[0]!}/respond`, {
      token: harness.tokens['alice']!,
      body: { action: 'approve' },
    });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({
      result: 'accepted',
      continuation: 'stalled',
      continued: false,
      error: { code: 'WORKFLOW_INVALID', message: expect.stringContaining('refund') },
      message: expect.stringMatching(/^Your answer is stored, but the thread did not go on \(WORKFLOW_INVALID: /),
    });
    expect((await harness.store.getInteraction(outcome.pendingInteractionIds[0]!))?.status).toBe('responded');
  });

  it('says the process running the thread applies the answer, and it does', async () => {
    harness = await startHarness();
    const running = await service(harness.directory, true);
    try {
      const thread = await running.start(running.registerWorkflow(agentWorkflow('1')), { channel: 'web' });
      const [asked] = await until(
        'the service to ask',
        () => harness!.interlock.pending(),
        (pending) => pending.some((request) => request.threadId === thread.threadId),
      );
      const response = await request(harness, `/api/interactions/${asked!.interactionId}/respond`, {
        token: harness.tokens['alice']!,
        body: { action: 'approve' },
      });
      expect(response.body).toMatchObject({
        continuation: 'elsewhere',
        continued: false,
        message: 'Your answer is stored; the process running the thread applies it.',
      });
      expect(await thread.done()).toMatchObject({ status: 'completed', output: 'v1: Refunded.' });
    } finally {
      await running.close();
    }
  });

  it('says a repeated answer found the thread ended', async () => {
    harness = await startHarness();
    const alice = harness.tokens['alice']!;
    const started = await request(harness, '/api/threads', {
      token: alice,
      body: { workflowId: RELEASE_QUESTION_WORKFLOW },
    });
    const threadId = started.body.threadId as string;
    const [question] = await until(
      'the question',
      () => harness!.interlock.pending(),
      (pending) => pending.some((request) => request.threadId === threadId),
    );
    const answer = () =>
      request(harness!, `/api/interactions/${question!.interactionId}/respond`, {
        token: alice,
        body: { action: 'answer', value: 'staging' },
      });
    expect((await answer()).body).toMatchObject({ continuation: 'continued' });
    await until(
      'the thread to complete',
      () => harness!.store.getThread(threadId),
      (thread) => thread?.status === 'completed',
    );
    expect((await answer()).body).toMatchObject({
      continuation: 'finished',
      repeated: true,
      message: 'Your answer was stored before and was applied; the thread has completed since.',
    });
  });
});
