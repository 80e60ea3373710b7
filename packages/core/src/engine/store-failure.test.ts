import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { linearWorkflow } from '../__fixtures__/workflows.js';
import {
  createInterlock,
  defineTool,
  InterlockError,
  openStore,
  type ICheckpointStore,
  type Interlock,
  type IUserInteractionHandler,
  type UserInteractionRequest,
} from '../index.js';
import { scriptedModel } from '../testing/index.js';
import type { UnitOfWork } from '../persistence/unit-of-work.js';

/*
 * A store failure never ends a thread (issue 27, F40, ADR 0002): whichever commit of a round
 * trip fails — refused before it ran, or with an outcome unknown either way — the thread
 * stays as last committed, another process takes it to its end, and the non-idempotent
 * tool's effect happens exactly once.
 */

type Failure = 'unavailable' | 'unknown, committed' | 'unknown, not committed';
const FAILURES: Failure[] = ['unavailable', 'unknown, committed', 'unknown, not committed'];

/** `store`, whose commit number `failAt` (counted from 1) fails as `failure` says. */
function failingAt(
  store: ICheckpointStore,
  failAt: number,
  failure: Failure,
): { store: ICheckpointStore; commits: () => number } {
  let commits = 0;
  const wrapped = new Proxy(store, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver) as unknown;
      if (typeof value !== 'function') return value;
      if (property !== 'commit') return value.bind(target);
      return async (unit: UnitOfWork) => {
        commits += 1;
        if (commits !== failAt) return store.commit(unit);
        if (failure === 'unknown, committed') await store.commit(unit);
        throw failure === 'unavailable'
          ? new InterlockError('STORE_UNAVAILABLE', 'the database is down (injected)')
          : new InterlockError('STORE_OUTCOME_UNKNOWN', 'the connection failed while committing (injected)');
      };
    },
  });
  return { store: wrapped, commits: () => commits };
}

const workflow = linearWorkflow(
  [{ id: 'agent', type: 'LLM', config: { systemPrompt: 'Deploy.', tools: ['deploy'], outputVariable: 'output' } }],
  { id: 'deploy' },
);

function deployment() {
  const effects: string[] = [];
  const deploy = defineTool({
    name: 'deploy',
    description: 'deploys to production (not idempotent)',
    category: 'command',
    riskLevel: 'HIGH',
    parameters: z.object({ target: z.string() }),
    execute: async ({ target }) => {
      effects.push(target);
      return `deployed ${target}`;
    },
  });
  const model = scriptedModel((request) =>
    request.messages.some((message) => message.role === 'tool')
      ? 'Deployed.'
      : { text: '', toolCalls: [{ id: 'deploy-1', name: 'deploy', arguments: { target: 'production' } }] },
  );
  /** A person who approves, and who, asked whether the call ran, looks at the effects. */
  const answer = (request: UserInteractionRequest) =>
    request.toolApproval?.stage === 'recovery' ? (effects.length > 0 ? 'done' : 'retry') : { approved: true };
  const person: IUserInteractionHandler = {
    handle: async (request) => ({ outcome: 'responded', input: answer(request) }),
  };
  return { effects, deploy, model, person, answer };
}

const opened: Interlock[] = [];
afterEach(async () => {
  for (const interlock of opened.splice(0)) await interlock.close().catch(() => undefined);
});

async function open(store: ICheckpointStore, world: ReturnType<typeof deployment>, channel: 'auto' | 'inbox') {
  const interlock = await createInterlock({
    store: { type: 'custom', store },
    models: { default: world.model },
    tools: [world.deploy],
    handlers: channel === 'auto' ? { auto: world.person } : {},
    recoverOnStart: false,
  });
  opened.push(interlock);
  return interlock;
}

/** One approval round trip, answered by a handler (`auto`) or through respond() (`inbox`). */
async function roundTrip(interlock: Interlock, channel: 'auto' | 'inbox'): Promise<string> {
  const handle = await interlock.start(interlock.registerWorkflow(workflow), { channel, threadId: 'thread-1' });
  await handle.done();
  if (channel === 'auto') return handle.threadId;
  const [question] = await interlock.pending();
  const answered = await interlock.respond(question!.interactionId, { approved: true });
  if (answered.status === 'accepted') await answered.thread?.done();
  return handle.threadId;
}

/** Takes the thread to its end from the store, as another process would; a person answers what is asked. */
async function finish(interlock: Interlock, threadId: string, world: ReturnType<typeof deployment>) {
  for (let attempt = 0; attempt < 4; attempt += 1) {
    const thread = await interlock.thread(threadId);
    if (thread === undefined) {
      // The thread's first commit failed: nothing of it was stored, so it is started again.
      await roundTrip(interlock, 'inbox');
      continue;
    }
    if (thread.status === 'completed' || thread.status === 'failed') return thread;
    const question = (await interlock.pending()).find((request) => request.threadId === threadId);
    if (question !== undefined) {
      const answered = await interlock.respond(question.interactionId, world.answer(question));
      if (answered.status === 'accepted') await answered.thread?.done();
    } else {
      await (await interlock.resume(threadId)).done();
    }
  }
  return interlock.thread(threadId);
}

describe.each(['auto', 'inbox'] as const)('a store failure in a round trip answered %s (issue 27)', (channel) => {
  it('never ends the thread: at every commit and for every kind of failure it is left resumable and ends once, its effect once', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'interlock-store-failure-'));
    // A clean round trip says how many commits there are to fail.
    const clean = failingAt(await openStore({ type: 'sqlite', path: join(dir, 'clean.db') }), 0, 'unavailable');
    const cleanWorld = deployment();
    const cleanThread = await roundTrip(await open(clean.store, cleanWorld, channel), channel);
    expect(await finish(opened[0]!, cleanThread, cleanWorld)).toMatchObject({ status: 'completed' });
    const commits = clean.commits();
    expect(commits).toBeGreaterThanOrEqual(2);

    for (const failure of FAILURES) {
      for (let failAt = 1; failAt <= commits; failAt += 1) {
        const path = join(dir, `${failure}-${failAt}.db`);
        const world = deployment();
        const first = await open(
          failingAt(await openStore({ type: 'sqlite', path }), failAt, failure).store,
          world,
          channel,
        );
        await roundTrip(first, channel).catch((error: unknown) => {
          expect(InterlockError.is(error) && error.code.startsWith('STORE_'), String(error)).toBe(true);
        });
        await first.close();
        const where = `${failure} at commit ${failAt} of ${commits}`;
        // Another process, on the same database file.
        const raw = await openStore({ type: 'sqlite', path });
        const left = await raw.getThread('thread-1');
        expect(left?.status, where).not.toBe('failed');

        const second = await open(raw, world, channel);
        const finished = await finish(second, 'thread-1', world).catch((error: unknown) => {
          throw new Error(`${where}: ${String(error)}`);
        });
        expect(finished, where).toMatchObject({ status: 'completed' });
        expect(world.effects, where).toEqual(['production']);
        await second.close();
      }
    }
  }, 60_000);
});
