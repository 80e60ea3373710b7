import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { askNode, linearWorkflow } from '../__fixtures__/workflows.js';
import { until } from '../testing/until.js';
import { createInterlock, InterlockError, openStore, type ICheckpointStore, type Interlock } from '../index.js';

/*
 * A deadline that comes while the database is unreachable (F14, F30): the question still
 * times out and its thread goes on once the database is back, without anyone calling
 * resume() — whether the store failed before the question was timed out or after.
 */

const opened: Interlock[] = [];
beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date', 'performance'] });
});
afterEach(async () => {
  for (const interlock of opened.splice(0)) await interlock.close();
  vi.useRealTimers();
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

describe('a deadline while the database is unreachable', () => {
  it.each([
    ['before the question was timed out', 'failInteraction'],
    ['after the question was timed out, before the thread went on', 'getThread'],
  ] as const)('times the question out and takes the thread on once it is back: failing %s', async (_, method) => {
    let down = false;
    const store = await storeFailing(method, () => down);
    const interlock = await createInterlock({ store: { type: 'custom', store } });
    opened.push(interlock);
    const workflow = interlock.registerWorkflow(
      linearWorkflow([askNode('ask', { timeout: '500ms' })], { id: 'deadline' }),
    );
    const { threadId } = await (await interlock.start(workflow, { channel: 'inbox' })).done();
    expect((await interlock.thread(threadId))?.status).toBe('waiting');

    // Down from just before the deadline until well after it (time passes on the fake clock).
    await vi.advanceTimersByTimeAsync(400);
    down = true;
    await vi.advanceTimersByTimeAsync(1_000);
    expect(await interlock.thread(threadId).catch(() => undefined)).not.toMatchObject({ status: 'completed' });
    down = false;

    // A read the store fails is no answer yet.
    const thread = await until(
      'the thread to go on',
      () => interlock.thread(threadId).catch(() => undefined),
      (found) => found !== undefined && found.status !== 'waiting',
      { timeoutMs: 60_000, intervalMs: 100, advance: (ms) => vi.advanceTimersByTimeAsync(ms) },
    );
    expect(thread?.status).not.toBe('waiting');
    expect((await interlock.interactions({ threadId }))[0]).toMatchObject({
      status: 'failed',
      failureReason: 'timeout',
    });
  });
});
