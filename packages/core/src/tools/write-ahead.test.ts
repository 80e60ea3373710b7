import { afterEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import type { InterlockEvent } from '@interlock/sdk-types';
import { askNode, linearWorkflow } from '../__fixtures__/workflows.js';
import { createInterlock, defineTool, InterlockError, type Interlock, type Tool } from '../index.js';
import type { ThreadRecord } from '../persistence/checkpoint-store.js';
import { InMemoryCheckpointStore, scriptedHandler, scriptedModel } from '../testing/index.js';
import { safeShellClassifier } from '../testing/index.js';

const safeShell = safeShellClassifier();
const opened: Interlock[] = [];
afterEach(async () => {
  for (const interlock of opened.splice(0)) await interlock.close().catch(() => undefined);
});

/** The payments workflow: an agent that may call `charge`. */
const PAYMENTS = linearWorkflow(
  [{ id: 'agent', type: 'LLM', config: { tools: ['charge'], outputVariable: 'output' } }],
  { id: 'payments' },
);

/** A first process on `store`, its model proposing to charge 42 with `tool`: it starts a payment. */
async function startPayment(store: InMemoryCheckpointStore, tool: Tool) {
  const proposal = { text: '', toolCalls: [{ id: 'pay-1', name: 'charge', arguments: { amount: 42 } }] };
  const first = await createInterlock({
    store: { type: 'custom', store },
    models: { default: scriptedModel([proposal]) },
    tools: [tool],
    shellClassifier: safeShell,
  });
  return { first, thread: await first.start(first.registerWorkflow(PAYMENTS)) };
}

/** A tool whose first run hangs (the "process" running it is as good as dead), counting its effects. */
function hangingTool(idempotent: boolean) {
  const effects: string[] = [];
  let hang = true;
  const tool = defineTool({
    name: 'charge',
    description: 'charges a card',
    category: 'write',
    riskLevel: 'LOW',
    idempotent,
    parameters: z.object({ amount: z.number() }),
    execute: async ({ amount }) => {
      effects.push(`charged ${amount}`);
      if (hang) {
        hang = false;
        await new Promise(() => undefined);
      }
      return `charged ${amount}`;
    },
  });
  return { tool, effects };
}

async function crashMidCall(idempotent: boolean, answer?: unknown) {
  const store = new InMemoryCheckpointStore();
  const { tool, effects } = hangingTool(idempotent);
  // The first process is never closed: it is as good as dead, stuck inside the tool.
  const { thread: stuck } = await startPayment(store, tool);
  await vi.waitFor(() => expect(effects).toHaveLength(1));

  // A second process takes the thread over from the store, as after a crash of the first:
  // an hour later by its clock, so the first one's claim has long run out.
  const secondModel = scriptedModel(['Payment handled.']);
  const handler = scriptedHandler(answer === undefined ? [] : [{ input: answer }]);
  const second = await createInterlock({
    clock: { now: () => Date.now() + 3_600_000 },
    store: { type: 'custom', store },
    models: { default: secondModel },
    tools: [tool],
    shellClassifier: safeShell,
    handlers: { default: handler },
  });
  opened.push(second);
  const events: InterlockEvent[] = [];
  second.events$.subscribe((event) => events.push(event));
  const outcome = await (await second.resume(stuck.threadId)).done();
  return { effects, outcome, events, handler, secondModel, store, threadId: stuck.threadId };
}

describe('write-ahead tool executions (F40)', () => {
  it('never silently repeats a non-idempotent call that started before a crash: a person says what happened', async () => {
    const { effects, outcome, events, handler, secondModel } = await crashMidCall(false, 'done');
    expect(effects).toEqual(['charged 42']);
    expect(events.map((event) => event.type)).toContain('TOOL_CALL_OUTCOME_UNKNOWN');
    expect(handler.requests[0]?.toolApproval).toMatchObject({
      stage: 'recovery',
      toolName: 'charge',
      toolParameters: { amount: 42 },
    });
    expect(outcome).toMatchObject({ status: 'completed', output: 'Payment handled.' });
    expect(secondModel.requests[0]!.messages.at(-1)!.content).toMatch(/^\[SUCCESS\] A person confirmed the call ran/);
  });

  it('runs it again only when the person says retry', async () => {
    const { effects, outcome } = await crashMidCall(false, 'retry');
    expect(effects).toEqual(['charged 42', 'charged 42']);
    expect(outcome.status).toBe('completed');
  });

  it('reports it failed when the person says so', async () => {
    const { effects, secondModel } = await crashMidCall(false, {
      approved: false,
      resolution: 'fail',
      denyReason: 'bank says no charge',
    });
    expect(effects).toEqual(['charged 42']);
    expect(secondModel.requests[0]!.messages.at(-1)!.content).toMatch(
      /^\[ERROR\] .*marked it failed: bank says no charge/,
    );
  });

  it('waits for a person when nobody is there to say, and keeps the call unknown', async () => {
    const { effects, outcome, store, threadId } = await crashMidCall(false);
    expect(effects).toEqual(['charged 42']);
    expect(outcome.status).toBe('waiting');
    expect((await store.listToolExecutions({ threadId })).find((call) => call.toolCallId === 'pay-1')).toMatchObject({
      status: 'unknown',
      argumentsHash: expect.any(String),
    });
  });

  it('re-runs an idempotent call without asking', async () => {
    const { effects, outcome, handler } = await crashMidCall(true);
    expect(effects).toEqual(['charged 42', 'charged 42']);
    expect(outcome.status).toBe('completed');
    expect(handler.requests).toHaveLength(0);
  });

  it('a database failure stops the run without failing the thread: it resumes from its last checkpoint', async () => {
    const store = new InMemoryCheckpointStore();
    let down = false;
    const flaky = new Proxy(store, {
      get(target, property, receiver) {
        const value = Reflect.get(target, property, receiver) as unknown;
        if (property !== 'commit' || typeof value !== 'function')
          return typeof value === 'function' ? value.bind(target) : value;
        return async (...args: unknown[]) => {
          if (down) throw new InterlockError('STORE_UNAVAILABLE', 'the database went away');
          return (value as (...parameters: unknown[]) => unknown).apply(target, args);
        };
      },
    });
    // The question is stored (the first durability point), answered here, then the model
    // answers and the database goes away before the run's last commit.
    const definition = linearWorkflow(
      [askNode('ask'), { id: 'agent', type: 'LLM', config: { outputVariable: 'output' } }],
      { id: 'flaky' },
    );
    const model = scriptedModel(() => {
      down = true;
      return 'answered';
    });
    const first = await createInterlock({
      store: { type: 'custom', store: flaky },
      models: { default: model },
      shellClassifier: safeShell,
      handlers: { default: scriptedHandler([{ input: 'go' }]) },
    });
    opened.push(first);
    const thread = await first.start(first.registerWorkflow(definition));
    await expect(thread.done()).rejects.toMatchObject({ code: 'STORE_UNAVAILABLE' });
    expect((await store.getThread(thread.threadId))?.status).not.toBe('failed');

    // The first process could not free its claim (the database was away): it runs out.
    down = false;
    const second = await createInterlock({
      clock: { now: () => Date.now() + 3_600_000 },
      store: { type: 'custom', store },
      models: { default: scriptedModel(['answered again']) },
      shellClassifier: safeShell,
    });
    opened.push(second);
    expect(await (await second.resume(thread.threadId)).done()).toMatchObject({
      status: 'completed',
      output: 'answered again',
    });
  });

  it('start() fails when the thread cannot be stored, and leaves no thread (F54)', async () => {
    const store = new InMemoryCheckpointStore();
    const down = new Proxy(store, {
      get(target, property, receiver) {
        const value = Reflect.get(target, property, receiver) as unknown;
        if (property !== 'commit' || typeof value !== 'function')
          return typeof value === 'function' ? value.bind(target) : value;
        // The thread's own writes fail; the workflow's definition is kept.
        return (unit: { thread?: unknown }) =>
          unit.thread === undefined
            ? (value as (unit: unknown) => unknown).call(target, unit)
            : Promise.reject(new InterlockError('STORE_UNAVAILABLE', 'gone'));
      },
    });
    const first = await createInterlock({
      store: { type: 'custom', store: down },
      models: { default: scriptedModel(['answered']) },
      shellClassifier: safeShell,
    });
    opened.push(first);
    const definition = linearWorkflow([{ id: 'agent', type: 'LLM', config: { outputVariable: 'output' } }], {
      id: 'never-stored',
    });
    await expect(first.start(first.registerWorkflow(definition), { threadId: 'never' })).rejects.toMatchObject({
      code: 'STORE_UNAVAILABLE',
    });
    expect(await store.getThread('never')).toBeUndefined();
  });

  it('a stale process cannot commit over the one that took the thread over', async () => {
    const { store, threadId } = await crashMidCall(false, 'done');
    const thread = await store.getThread(threadId);
    expect(thread?.status).toBe('completed');
    // The first process's run is still stuck in the tool; whatever it tries to save now is refused.
    const stale = { ...thread!, status: 'failed' as const } as ThreadRecord;
    const refused = await store.commit({
      thread: {
        kind: 'save',
        thread: stale,
        expectedVersion: thread!.version - 1,
        claim: { kind: 'keep' },
        messagesFrom: 0,
        storedMessages: stale.conversation.length,
      },
    });
    expect(refused).toMatchObject({ status: 'conflict', conflict: { kind: 'thread-changed' } });
    expect((await store.getThread(threadId))?.status).toBe('completed');
  });

  it('does not take a tool that returns after its signal was aborted for a call that ran: the next run asks about it (issue 35, F40)', async () => {
    const store = new InMemoryCheckpointStore();
    const effects: string[] = [];
    // A careless tool: it finds its signal aborted before its effect, and returns as if it ran.
    const careless = defineTool({
      name: 'charge',
      description: 'charges a card',
      category: 'write',
      riskLevel: 'LOW',
      parameters: z.object({ amount: z.number() }),
      execute: async ({ amount }, context) => {
        effects.push('started');
        await new Promise((resolve) => context.signal.addEventListener('abort', resolve, { once: true }));
        return `charged ${amount}`;
      },
    });
    const { first, thread } = await startPayment(store, careless);
    await vi.waitFor(() => expect(effects).toEqual(['started']));
    // The process closes while the tool works: its signal is aborted, and it returns.
    await first.close();
    const record = (await store.listToolExecutions({ threadId: thread.threadId }))[0];
    expect(record).toMatchObject({ toolCallId: 'pay-1', status: 'started' });
    expect(record?.outcome).toBeUndefined();

    const handler = scriptedHandler([{ input: 'done' }]);
    const second = await createInterlock({
      store: { type: 'custom', store },
      models: { default: scriptedModel(['Payment handled.']) },
      tools: [careless],
      shellClassifier: safeShell,
      handlers: { default: handler },
    });
    opened.push(second);
    second.registerWorkflow(PAYMENTS);
    const events: InterlockEvent[] = [];
    second.events$.subscribe((event) => events.push(event));
    const outcome = await (await second.resume(thread.threadId)).done();
    expect(outcome).toMatchObject({ status: 'completed', output: 'Payment handled.' });
    expect(events.map((event) => event.type)).toContain('TOOL_CALL_OUTCOME_UNKNOWN');
    expect(handler.requests[0]?.toolApproval).toMatchObject({ stage: 'recovery', toolCallId: 'pay-1' });
  });

  it('commits nothing of a run whose claim ended before its write, and the same process, which nobody took the thread from, asks about the call (issue 35, F40, F53)', async () => {
    const store = new InMemoryCheckpointStore();
    const effects: string[] = [];
    // The gate exists before the tool runs: opened whenever the test says, before or after the tool waits on it.
    let finish: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (finish = resolve));
    const gated = defineTool({
      name: 'charge',
      description: 'charges a card',
      category: 'write',
      riskLevel: 'LOW',
      parameters: z.object({ amount: z.number() }),
      execute: async ({ amount }) => {
        await gate;
        effects.push(`charged ${amount}`);
        return `charged ${amount}`;
      },
    });
    const definition = linearWorkflow(
      [{ id: 'agent', type: 'LLM', config: { tools: ['charge'], outputVariable: 'output' } }],
      { id: 'payments' },
    );
    // The process's clock jumps past its claim's end while the tool works; no timer of it has run yet.
    let offset = 0;
    const handler = scriptedHandler([{ input: 'done' }]);
    const interlock = await createInterlock({
      clock: { now: () => Date.now() + offset },
      store: { type: 'custom', store },
      models: {
        // Asked again for the turn after the call when the run that asked first wrote nothing.
        default: scriptedModel((request) =>
          request.messages.some((message) => message.role === 'tool')
            ? 'Payment handled.'
            : { text: '', toolCalls: [{ id: 'pay-1', name: 'charge', arguments: { amount: 42 } }] },
        ),
      },
      tools: [gated],
      shellClassifier: safeShell,
      handlers: { default: handler },
    });
    opened.push(interlock);
    const events: InterlockEvent[] = [];
    interlock.events$.subscribe((event) => events.push(event));
    const thread = await interlock.start(interlock.registerWorkflow(definition));
    await vi.waitFor(() => expect(events.map((event) => event.type)).toContain('TOOL_CALL_STARTED'));
    offset = 3_600_000;
    finish();

    // The tool's outcome was refused (its claim had ended): the call stays unfinished, and the
    // process takes the thread again and asks what became of it.
    const outcome = await thread.done();
    expect(outcome).toMatchObject({ status: 'completed', output: 'Payment handled.' });
    expect(effects).toEqual(['charged 42']);
    expect(handler.requests.map((request) => request.toolApproval?.stage)).toEqual(['recovery']);
    expect(events.map((event) => event.type)).toContain('TOOL_CALL_OUTCOME_UNKNOWN');
    expect((await store.listToolExecutions({ threadId: thread.threadId }))[0]).toMatchObject({
      status: 'finished',
      outcome: { status: 'SUCCESS' },
    });
  });
});
