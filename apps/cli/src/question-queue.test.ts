import type { UserInteractionRequest } from '@interlock/sdk-types';
import { describe, expect, it } from 'vitest';
import { QuestionQueue, type QueuedQuestion } from './question-queue.js';

function requestOf(interactionId: string): UserInteractionRequest {
  return {
    interactionId,
    threadId: 'thread-1',
    workflowId: 'w',
    nodeId: 'agent',
    operationType: 'TOOL_APPROVAL',
    prompt: 'Allow?',
    timeout: 0,
    deadline: null,
    metadata: {},
    session: { channel: 'cli' },
    requestedAt: '2025-01-01T00:00:00.000Z',
  };
}

const signal = (): AbortSignal => new AbortController().signal;

describe('QuestionQueue', () => {
  it('hands questions that arrive together over as one batch, and answers batches one after another', async () => {
    const batches: string[][] = [];
    let release: () => void = () => undefined;
    const firstBatchHeld = new Promise<void>((resolve) => (release = resolve));
    const queue = new QuestionQueue(async (batch) => {
      batches.push(batch.map((question) => question.request.interactionId));
      if (batches.length === 1) await firstBatchHeld;
      for (const question of batch) question.settle({ outcome: 'responded', input: true });
    });
    const first = [queue.enqueue(requestOf('a'), signal()), queue.enqueue(requestOf('b'), signal())];
    await new Promise((resolve) => setImmediate(resolve));
    const later = queue.enqueue(requestOf('c'), signal());
    // Everything the queue could do before the first batch is answered, it did.
    await new Promise((resolve) => setImmediate(resolve));
    await new Promise((resolve) => setImmediate(resolve));
    expect(batches).toEqual([['a', 'b']]);
    release();
    await Promise.all([...first, later]);
    expect(batches).toEqual([['a', 'b'], ['c']]);
  });

  it('defers a question withdrawn while it waits, without showing it', async () => {
    const shown: string[] = [];
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    const queue = new QuestionQueue(async (batch) => {
      shown.push(...batch.map((question) => question.request.interactionId));
      await held;
      for (const question of batch) question.settle({ outcome: 'responded', input: true });
    });
    const first = queue.enqueue(requestOf('a'), signal());
    await new Promise((resolve) => setImmediate(resolve));
    const controller = new AbortController();
    const withdrawn = queue.enqueue(requestOf('b'), controller.signal);
    controller.abort();
    expect(await withdrawn).toEqual({ outcome: 'deferred' });
    release();
    await first;
    expect(shown).toEqual(['a']);
  });

  it('defers what the batch left unanswered, and fails the rest when answering throws', async () => {
    const skipping = new QuestionQueue(async () => undefined);
    expect(await skipping.enqueue(requestOf('a'), signal())).toEqual({ outcome: 'deferred' });
    const failing = new QuestionQueue(async (batch: QueuedQuestion[]) => {
      batch[0]?.settle({ outcome: 'responded', input: false });
      throw new Error('the terminal went away');
    });
    const answers = [failing.enqueue(requestOf('a'), signal()), failing.enqueue(requestOf('b'), signal())];
    await expect(answers[0]).resolves.toEqual({ outcome: 'responded', input: false });
    await expect(answers[1]).rejects.toThrow('the terminal went away');
  });
});
