import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { firstValueFrom } from 'rxjs';
import { afterEach, describe, expect, it } from 'vitest';
import type { IUserInteractionHandler } from '@interlock/sdk-types';
import { askNode, linearWorkflow } from '../__fixtures__/workflows.js';
import { createInterlock, ofType, type Interlock, type StoreOptions } from '../index.js';
import { openSqliteStore } from '../persistence/sqlite/open-sqlite-store.js';

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
    const first = await instance(store);
    const waiting = await (await first.start(first.registerWorkflow(definition), { channel: 'inbox' })).done();
    const [question] = await first.pending();
    // A process that died while asking: its lease is in the store, and nobody renews it.
    const raw = await openSqliteStore({ path: store.path });
    const now = Date.now();
    const stored = await raw.getThread(waiting.threadId);
    const claim = await raw.claimThread(
      waiting.threadId,
      'a-dead-process',
      new Date(now + 600).toISOString(),
      new Date(now).toISOString(),
      stored!.version,
    );
    expect(claim.status).toBe('claimed');
    await raw.close();

    const started = performance.now();
    const answer = await first.respond(question!.interactionId, 'late but applied');
    expect(performance.now() - started).toBeGreaterThanOrEqual(400);
    expect(answer.status).toBe('accepted');
    expect(await (answer.status === 'accepted' ? answer.thread?.done() : undefined)).toMatchObject({
      status: 'completed',
      output: 'late but applied',
    });
  });

  it('takes the thread forward itself when the other process stops asking (frees its lease) without taking the answer', async () => {
    const store = await sqliteStore();
    const first = await instance(store);
    const waiting = await (await first.start(first.registerWorkflow(definition), { channel: 'inbox' })).done();
    const [question] = await first.pending();
    const other = await openSqliteStore({ path: store.path });
    const now = Date.now();
    const stored = await other.getThread(waiting.threadId);
    const claim = await other.claimThread(
      waiting.threadId,
      'an-asking-process',
      new Date(now + 10_000).toISOString(),
      new Date(now).toISOString(),
      stored!.version,
    );
    if (claim.status !== 'claimed') throw new Error(`not claimed: ${claim.status}`);
    await other.flush();

    const answering = first.respond(question!.interactionId, 'applied after all');
    await new Promise((resolve) => setTimeout(resolve, 300));
    await other.releaseClaim({ threadId: waiting.threadId, epoch: claim.epoch }, 'an-asking-process');
    await other.close();
    const answer = await answering;
    expect(answer.status === 'accepted' && answer.thread !== undefined).toBe(true);
    expect(await (answer.status === 'accepted' ? answer.thread?.done() : undefined)).toMatchObject({
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
