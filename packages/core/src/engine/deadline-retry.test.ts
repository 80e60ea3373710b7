import { afterEach, describe, expect, it } from 'vitest';
import { askNode, linearWorkflow } from '../__fixtures__/workflows.js';
import { createInterlock, InterlockError, openStore, type ICheckpointStore, type Interlock } from '../index.js';

/*
 * A deadline that comes while the database is unreachable (F14, F30): the question still
 * times out and its thread goes on once the database is back, without anyone calling
 * resume() — whether the store failed before the question was timed out or after.
 */

const opened: Interlock[] = [];
afterEach(async () => {
  for (const interlock of opened.splice(0)) await interlock.close();
});

type Method = 'failInteraction' | 'getThread';

/** The memory store, with `method` failing as an unreachable database would while `down()` says so. */
async function storeFailing(method: Method, down: () => boolean): Promise<ICheckpointStore> {
  const store = await openStore({ type: 'memory' });
  return new Proxy(store, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver) as unknown;
      if (property !== method || typeof value !== 'function') return value;
      return (...args: unknown[]) =>
        down()
          ? Promise.reject(new InterlockError('STORE_UNAVAILABLE', 'connection refused'))
          : (value as (...args: unknown[]) => unknown).apply(target, args);
    },
  });
}

async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs: number): Promise<T> {
  const started = Date.now();
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() - started > timeoutMs) return value;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('a deadline while the database is unreachable', () => {
  it.each([
    ['before the question was timed out', 'failInteraction'],
    ['after the question was timed out, before the thread went on', 'getThread'],
  ] as const)('times the question out and takes the thread on once it is back: failing %s', async (_, method) => {
    let downUntil = 0;
    const store = await storeFailing(method, () => Date.now() < downUntil);
    const interlock = await createInterlock({ store: { type: 'custom', store } });
    opened.push(interlock);
    const workflow = interlock.registerWorkflow(
      linearWorkflow([askNode('ask', { timeout: '500ms' })], { id: 'deadline' }),
    );
    const { threadId } = await (await interlock.start(workflow, { channel: 'inbox' })).done();
    expect((await interlock.thread(threadId))?.status).toBe('waiting');

    // Down from just before the deadline until 1.5 s after it.
    await new Promise((resolve) => setTimeout(resolve, 400));
    downUntil = Date.now() + 1_600;
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(Date.now()).toBeLessThan(downUntil);

    // A read the store fails is no answer yet.
    const thread = await until(
      () => interlock.thread(threadId).catch(() => undefined),
      (found) => found !== undefined && found.status !== 'waiting',
      10_000,
    );
    expect(thread?.status).not.toBe('waiting');
    expect((await interlock.interactions({ threadId }))[0]).toMatchObject({
      status: 'failed',
      failureReason: 'timeout',
    });
  });
});
