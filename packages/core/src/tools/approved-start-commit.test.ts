import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { linearWorkflow } from '../__fixtures__/workflows.js';
import { createInterlock, defineTool, type Interlock } from '../index.js';
import type { UnitOfWork } from '../persistence/unit-of-work.js';
import { InMemoryCheckpointStore, safeShellClassifier, scriptedModel } from '../testing/index.js';

const opened: Interlock[] = [];
afterEach(async () => {
  for (const interlock of opened.splice(0)) await interlock.close().catch(() => undefined);
});

/** The store, recording every unit of work committed through it. */
function recordingStore() {
  const store = new InMemoryCheckpointStore();
  const units: UnitOfWork[] = [];
  const commit = store.commit.bind(store);
  store.commit = (unit) => {
    units.push(unit);
    return commit(unit);
  };
  return { store, units };
}

describe('an approved call (F40, F63)', () => {
  it('is started in the same commit that stores its answer, its receipt signed in between, with the defaults', async () => {
    const { store, units } = recordingStore();
    const effects: number[] = [];
    const charge = defineTool({
      name: 'charge',
      description: 'charges a card',
      category: 'write',
      riskLevel: 'MEDIUM',
      parameters: z.object({ amount: z.number() }),
      execute: ({ amount }) => {
        effects.push(amount);
        return Promise.resolve(`charged ${amount}`);
      },
    });
    const proposal = { text: '', toolCalls: [{ id: 'pay-1', name: 'charge', arguments: { amount: 42 } }] };
    const interlock = await createInterlock({
      store: { type: 'custom', store },
      models: { default: scriptedModel([proposal, 'done']) },
      tools: [charge],
      shellClassifier: safeShellClassifier(),
    });
    opened.push(interlock);
    const workflow = linearWorkflow([{ id: 'agent', type: 'LLM', config: { tools: ['charge'] } }], { id: 'pay' });
    const waiting = await (await interlock.start(interlock.registerWorkflow(workflow))).done();
    expect(waiting.status).toBe('waiting');
    const interactionId = waiting.status === 'waiting' ? waiting.pendingInteractionIds[0] : undefined;

    units.length = 0;
    const result = await interlock.respond(interactionId ?? '', { approved: true });
    if (result.status !== 'accepted' || result.thread === undefined) throw new Error(`not continued: ${result.status}`);
    expect(await result.thread.done()).toMatchObject({ status: 'completed' });
    expect(effects).toEqual([42]);
    // Two durability points: the answer with the call's start and its receipt, before the
    // side effect; then the result with the claim's release. Nothing is committed alone between.
    const ofThread = units.filter((unit) => unit.thread !== undefined);
    expect(ofThread).toHaveLength(2);
    const [first, last] = ofThread;
    expect(first?.interactions?.map((change) => change.kind)).toContain('answer');
    expect(first?.toolCalls?.map((change) => change.kind)).toEqual(['start']);
    expect(first?.globals).toHaveLength(1);
    expect(last?.toolCalls?.map((change) => change.kind)).toEqual(['finish']);
  });
});
