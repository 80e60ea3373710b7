import { afterEach, describe, expect, it } from 'vitest';
import { askNode, linearWorkflow } from '../__fixtures__/workflows.js';
import { createInterlock, openStore, type ICheckpointStore, type Interlock } from '../index.js';
import type { UnitOfWork } from '../persistence/unit-of-work.js';
import { until } from '../testing/until.js';

/*
 * A worker's job for an answer stored by another process can reach the worker before the
 * result of the commit that asked the question does (issue 38: both were ready in one turn
 * of its event loop, the job's fetch first). The job then joins the run that is stopping,
 * and the run, whose last commit is on its way, must read what its thread waits on from the
 * store: it used to go by what it knew, end waiting with the answer stored, and leave the
 * thread to its recovery, two leases later (the 31 s round trip of the PostgreSQL bench).
 */

const workflow = linearWorkflow([askNode()]);

/** `store`, whose commit of a thread that waits is held after it committed, until `release()`. */
function holdingTheSuspension(store: ICheckpointStore) {
  let release: () => void = () => undefined;
  const released = new Promise<void>((resolve) => (release = resolve));
  let held = false;
  const wrapped = new Proxy(store, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver) as unknown;
      if (typeof value !== 'function') return value;
      if (property !== 'commit') return value.bind(target);
      return async (unit: UnitOfWork) => {
        const result = await store.commit(unit);
        const change = unit.thread;
        if ((change?.kind === 'save' || change?.kind === 'create') && change.thread.status === 'waiting') {
          held = true;
          await released;
        }
        return result;
      };
    },
  });
  return { store: wrapped, release, held: () => held };
}

const opened: Interlock[] = [];
afterEach(async () => {
  for (const interlock of opened.splice(0)) await interlock.close();
});

describe('a resume that joins a run whose last commit is on its way (issue 38)', () => {
  it('takes the thread forward with the answer stored meanwhile, instead of leaving it waiting', async () => {
    const raw = await openStore({ type: 'memory' });
    const gate = holdingTheSuspension(raw);
    // Threads continue in workers: this process runs the thread until it first waits.
    const interlock = await createInterlock({
      store: { type: 'custom', store: gate.store },
      continueIn: 'workers',
      recoverOnStart: false,
    });
    opened.push(interlock);
    // Its first commit is the one that asks and suspends: start() resolves once it is through.
    const starting = interlock.start(interlock.registerWorkflow(workflow), { threadId: 'thread-1' });
    await until('the suspension to be committed and held', gate.held, (held) => held);
    // The question is stored; another process answers it (its job is the resume below).
    const [question] = await raw.listInteractions({ threadId: 'thread-1', status: 'pending' });
    const answered = await raw.commit({
      interactions: [
        {
          kind: 'answer',
          interactionId: question!.interactionId,
          response: { input: 'hello', respondedAt: new Date().toISOString() },
        },
      ],
    });
    expect(answered.status).toBe('committed');
    // The worker's job for that answer, while the run that asked still stops.
    const resumed = interlock.resume('thread-1');
    gate.release();
    const outcome = await (await resumed).done();
    expect(outcome).toMatchObject({ status: 'completed' });
    expect(await (await starting).done()).toMatchObject({ status: 'completed' });
    expect(await raw.getThread('thread-1')).toMatchObject({ status: 'completed', output: 'hello' });
  });
});
