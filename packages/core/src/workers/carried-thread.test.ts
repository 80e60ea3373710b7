import { afterEach, describe, expect, it } from 'vitest';
import { askNode, linearWorkflow } from '../__fixtures__/workflows.js';
import { TYPES } from '../di/tokens.js';
import type { ThreadRunner } from '../engine/thread-runner.js';
import { createInterlock, openStore, type ICheckpointStore, type Interlock } from '../index.js';
import { containerOf } from '../interlock.js';
import { present } from '../testing/conformance/store-records.js';
import { JobPlanner } from './job-planner.js';

/*
 * A continuation carries its thread (issue 38): the job of an answer holds the thread as the
 * answer's unit left it, and the worker goes on from that copy without reading the thread
 * back; the copy's version fences the worker's first commit.
 */

const workflow = linearWorkflow([askNode()]);

/** `store`, counting the reads of a whole thread. */
function countingLoads(store: ICheckpointStore) {
  const loads: string[] = [];
  const wrapped = new Proxy(store, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver) as unknown;
      if (typeof value !== 'function') return value;
      if (property === 'loadThread' || property === 'getThread')
        return (threadId: string) => (loads.push(`${String(property)} ${threadId}`), value.call(target, threadId));
      return value.bind(target);
    },
  });
  return { store: wrapped, loads };
}

const opened: Interlock[] = [];
afterEach(async () => {
  for (const interlock of opened.splice(0)) await interlock.close();
});

describe('a continuation that carries its thread (issue 38)', () => {
  it('is the thread as the answer left it, and the worker goes on from it without reading the thread', async () => {
    const raw = await openStore({ type: 'memory' });
    const counted = countingLoads(raw);
    const interlock = await createInterlock({
      store: { type: 'custom', store: counted.store },
      continueIn: 'workers',
      recoverOnStart: false,
    });
    opened.push(interlock);
    await (await interlock.start(interlock.registerWorkflow(workflow), { threadId: 'thread-1' })).done();
    const stored = present(await raw.loadThread('thread-1'));
    const [question] = stored.interactions;
    const response = { input: 'hello', responder: 'ada', respondedAt: new Date().toISOString() };
    // What an answerer commits: the answer with the jobs that carry the thread on.
    const planner = new JobPlanner('workers', { now: () => Date.now() }, 15_000);
    const [continuation] = planner.forAnswer(stored.thread, question!.interactionId, { stored, response });
    expect(continuation?.stored?.interactions).toEqual([
      { ...question, status: 'responded', response, updatedAt: response.respondedAt },
    ]);
    await raw.commit({ interactions: [{ kind: 'answer', interactionId: question!.interactionId, response }] });
    // The answered interaction the copy holds is the one the store now holds.
    expect((await raw.loadThread('thread-1'))?.interactions).toEqual(continuation?.stored?.interactions);

    counted.loads.length = 0;
    const runner = containerOf(interlock).get<ThreadRunner>(TYPES.ThreadRunner);
    await (await runner.resume('thread-1', continuation?.stored)).done();
    expect(await raw.getThread('thread-1')).toMatchObject({ status: 'completed', output: 'hello' });
    expect(counted.loads).toEqual([]);
  });

  it('is refused when the thread moved on since the copy was made: nothing of the stale run is written', async () => {
    const raw = await openStore({ type: 'memory' });
    const interlock = await createInterlock({ store: { type: 'custom', store: raw }, continueIn: 'workers' });
    opened.push(interlock);
    await (await interlock.start(interlock.registerWorkflow(workflow), { threadId: 'thread-1' })).done();
    const stale = present(await raw.loadThread('thread-1'));
    const [question] = stale.interactions;
    expect((await interlock.respond(question!.interactionId, 'first')).status).toBe('accepted');
    // The answer's continuation runs (read from the store) and ends the thread.
    const runner = containerOf(interlock).get<ThreadRunner>(TYPES.ThreadRunner);
    await (await runner.resume('thread-1')).done();
    const finished = present(await raw.getThread('thread-1'));
    expect(finished).toMatchObject({ status: 'completed', output: 'first' });

    const copy = {
      ...stale,
      interactions: [
        {
          ...question!,
          status: 'responded' as const,
          response: { input: 'stale', respondedAt: stale.thread.updatedAt },
        },
      ],
    };
    await (await runner.resume('thread-1', copy)).done().then(
      () => expect.unreachable('a run from a stale copy must be refused'),
      (error: unknown) => expect(error).toMatchObject({ code: 'STORE_CONFLICT' }),
    );
    expect(await raw.getThread('thread-1')).toEqual(finished);
  });
});
