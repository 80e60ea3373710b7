import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { firstValueFrom } from 'rxjs';
import { afterEach, describe, expect, it } from 'vitest';
import type { IUserInteractionHandler } from '@interlock/sdk-types';
import { askNode, linearWorkflow } from '../__fixtures__/workflows.js';
import { createInterlock, ofType, type Interlock, type StoreOptions } from '../index.js';
import type { ICheckpointStore, ThreadRecord, UnitOfWork } from '../persistence/checkpoint-store.js';
import { openSqliteStore } from '../persistence/sqlite/open-sqlite-store.js';
import { committed, present, save } from '../testing/conformance/store-records.js';

/** A person who never answers: the handler waits until the engine calls the question off. */
const silentPerson: IUserInteractionHandler = {
  handle: (_request, context) =>
    new Promise((resolve) =>
      context.signal.addEventListener('abort', () => resolve({ outcome: 'cancelled', reason: 'called off' })),
    ),
};

const open: Interlock[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((interlock) => interlock.close()));
});

async function sqliteStore(): Promise<StoreOptions & { type: 'sqlite'; path: string }> {
  return { type: 'sqlite', path: join(await mkdtemp(join(tmpdir(), 'interlock-lease-')), 'interlock.db') };
}

async function instance(store: StoreOptions, options: Parameters<typeof createInterlock>[0] = {}): Promise<Interlock> {
  const interlock = await createInterlock({ store, ...options });
  open.push(interlock);
  return interlock;
}

/**
 * The store of a process that answers, telling the test when an answer was stored and each
 * time after that the process looked at the thread (to take it forward or leave it to its holder).
 */
function watched(store: ICheckpointStore) {
  let answered = false;
  const looks: (ThreadRecord | undefined)[] = [];
  const waiting: { count: number; resolve: () => void }[] = [];
  const proxy = new Proxy(store, {
    get(target, property) {
      if (property === 'commit')
        return async (unit: UnitOfWork) => {
          const result = await target.commit(unit);
          if (result.status === 'committed' && unit.interactions?.some((change) => change.kind === 'answer'))
            answered = true;
          return result;
        };
      if (property === 'getThread')
        return async (threadId: string) => {
          const thread = await target.getThread(threadId);
          if (answered) {
            looks.push(thread);
            for (const waiter of waiting.filter((waiter) => looks.length >= waiter.count)) waiter.resolve();
          }
          return thread;
        };
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  return {
    store: proxy,
    /** The threads as the process read them after the answer was stored, once it looked `count` times. */
    looksAfterAnswer: (count: number) =>
      new Promise<(ThreadRecord | undefined)[]>((resolve) => {
        if (looks.length >= count) resolve([...looks]);
        else waiting.push({ count, resolve: () => resolve([...looks]) });
      }),
  };
}

/** A claim of another process on the thread, taken in the store directly; returns the epoch it took. */
async function claimElsewhere(path: string, threadId: string, owner: string, until: number): Promise<number> {
  const raw = await openSqliteStore({ path });
  try {
    const stored = present(await raw.getThread(threadId));
    const now = new Date().toISOString();
    const result = await committed(raw, {
      thread: save(stored, {}, { kind: 'take', owner, until: new Date(until).toISOString(), now }),
    });
    return present(result.thread).epoch;
  } finally {
    await raw.close();
  }
}

describe('a thread asked about in one process and answered in another (issue 5, F21)', () => {
  const definition = linearWorkflow([askNode('ask', { timeout: '1h' })], { id: 'leased' });

  it("lets the asking process take the thread forward with the other process's answer", async () => {
    const store = await sqliteStore();
    const asking = await instance(store, { handlers: { terminal: silentPerson } });
    const requested = firstValueFrom(asking.events$.pipe(ofType('USER_INTERACTION_REQUESTED')));
    const thread = await asking.start(asking.registerWorkflow(definition), { channel: 'terminal' });
    const { interactionId } = await requested;

    const other = await instance(store);
    await expect(other.resume(thread.threadId)).rejects.toMatchObject({ code: 'THREAD_BUSY' });
    await expect(other.cancel(thread.threadId)).rejects.toMatchObject({ code: 'THREAD_BUSY' });
    const answer = await other.respond(interactionId, 'from the second terminal', { responder: 'grace' });

    expect(answer).toEqual({ status: 'accepted', threadId: thread.threadId, continuation: { status: 'elsewhere' } });
    expect(await thread.done()).toMatchObject({ status: 'completed', output: 'from the second terminal' });
    const [stored] = await other.threads();
    expect(stored?.lease).toBeUndefined();
  });

  it('frees the lease when the asking process stops cleanly, so another resumes at once', async () => {
    const store = await sqliteStore();
    const asking = await instance(store, { handlers: { terminal: silentPerson } });
    const requested = firstValueFrom(asking.events$.pipe(ofType('USER_INTERACTION_REQUESTED')));
    const thread = await asking.start(asking.registerWorkflow(definition), { channel: 'terminal' });
    const { interactionId } = await requested;
    await asking.close();

    const other = await instance(store);
    const answer = await other.respond(interactionId, 'after the first stopped');
    expect(answer.status).toBe('accepted');
    expect(await (answer.status === 'accepted' ? answer.thread?.done() : undefined)).toMatchObject({
      status: 'completed',
      output: 'after the first stopped',
    });
    expect(thread.threadId).toBe(answer.threadId);
  });

  it('takes the thread forward itself once the lease of a process that died runs out', async () => {
    const store = await sqliteStore();
    let offset = 0;
    const answering = watched(await openSqliteStore({ path: store.path }));
    // The answering process's clock, moved on by the test: the dead process's claim ends when it says.
    const first = await instance(
      { type: 'custom', store: answering.store },
      {
        clock: { now: () => Date.now() + offset },
        leaseMs: 300,
      },
    );
    const waiting = await (await first.start(first.registerWorkflow(definition), { channel: 'inbox' })).done();
    const question = present((await first.pending())[0]);
    // A process that died while asking: its claim is in the store, and nobody renews it.
    const until = Date.now() + 60_000;
    await claimElsewhere(store.path, waiting.threadId, 'a-dead-process', until);

    const answer = first.respond(question.interactionId, 'late but applied');
    // Stored, and looked at twice since: held by the dead process, the thread is left alone while its claim lives.
    const looks = await answering.looksAfterAnswer(2);
    expect(looks.map((thread) => thread?.lease?.owner)).toEqual(['a-dead-process', 'a-dead-process']);
    expect(await first.thread(waiting.threadId)).toMatchObject({ status: 'waiting' });
    expect((await answering.store.getInteraction(question.interactionId))?.status).toBe('responded');

    offset = until - Date.now() + 1;
    const accepted = await answer;
    expect(accepted.status).toBe('accepted');
    expect(await (accepted.status === 'accepted' ? accepted.thread?.done() : undefined)).toMatchObject({
      status: 'completed',
      output: 'late but applied',
    });
  });

  it('takes the thread forward itself when the other process stops asking (frees its lease) without taking the answer', async () => {
    const store = await sqliteStore();
    const answering = watched(await openSqliteStore({ path: store.path }));
    const first = await instance({ type: 'custom', store: answering.store }, { leaseMs: 300 });
    const waiting = await (await first.start(first.registerWorkflow(definition), { channel: 'inbox' })).done();
    const question = present((await first.pending())[0]);
    const epoch = await claimElsewhere(store.path, waiting.threadId, 'an-asking-process', Date.now() + 60_000);

    const answer = first.respond(question.interactionId, 'applied after all');
    // The answer is stored and left to the asking process while it holds the thread.
    const looks = await answering.looksAfterAnswer(2);
    expect(looks.map((thread) => thread?.lease?.owner)).toEqual(['an-asking-process', 'an-asking-process']);
    const other = await openSqliteStore({ path: store.path });
    await committed(other, {
      thread: { kind: 'release', threadId: waiting.threadId, epoch, owner: 'an-asking-process' },
    });
    await other.close();
    const accepted = await answer;
    expect(accepted.status === 'accepted' && accepted.thread !== undefined).toBe(true);
    expect(await (accepted.status === 'accepted' ? accepted.thread?.done() : undefined)).toMatchObject({
      status: 'completed',
      output: 'applied after all',
    });
  });

  it('refuses a lease shorter than 100 ms as INVALID_OPTIONS', async () => {
    await expect(createInterlock({ leaseMs: 10 })).rejects.toMatchObject({ code: 'INVALID_OPTIONS' });
  });
});

describe('an answer that races a run as it suspends, in the same process (F21)', () => {
  const definition = linearWorkflow([askNode('ask', { timeout: '1h' })], { id: 'racing' });

  it('is applied once, and neither the run that suspended nor the answer fails, whenever it lands', async () => {
    for (let delay = 0; delay <= 40; delay += 2) {
      const interlock = await instance({ type: 'memory' });
      const requested = firstValueFrom(interlock.events$.pipe(ofType('USER_INTERACTION_REQUESTED')));
      const thread = await interlock.start(interlock.registerWorkflow(definition), { channel: 'inbox' });
      const { interactionId } = await requested;
      for (let tick = 0; tick < delay; tick += 1) await Promise.resolve();
      const answer = await interlock.respond(interactionId, `answer ${delay}`);
      const [first, second] = await Promise.allSettled([
        thread.done(),
        answer.status === 'accepted' ? answer.thread?.done() : undefined,
      ]);
      expect(first.status, `run that suspended, answer after ${delay} ticks`).toBe('fulfilled');
      expect(second.status, `answer after ${delay} ticks`).toBe('fulfilled');
      expect(await interlock.thread(thread.threadId)).toMatchObject({ status: 'completed', output: `answer ${delay}` });
    }
  });
});
