import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { InterlockError } from '../errors/interlock-error.js';
import { InMemoryCheckpointStore } from '../persistence/memory/in-memory-checkpoint-store.js';
import { hashArguments } from '../policy/canonical-arguments.js';
import { CREATED_AT } from '../testing/conformance/store-records.js';
import { defineTool, type ToolContext } from './define-tool.js';
import { approve, newTurnCall, type ReadyCall } from './turn-state.js';
import { turnParts } from './__fixtures__/turn-parts.js';

const LATER = new Date(Date.parse(CREATED_AT) + 60_000).toISOString();

/** A `charge` tool that records every run; `behave` says what a run does. */
function chargeTool(
  options: {
    idempotent?: boolean;
    requireResultApproval?: boolean;
    behave?: (amount: number) => Promise<unknown>;
  } = {},
) {
  const runs: { amount: number; context: ToolContext }[] = [];
  const tool = defineTool({
    name: 'charge',
    description: 'Charges a card',
    category: 'write',
    riskLevel: 'HIGH',
    parameters: z.object({ amount: z.number() }),
    ...(options.idempotent === undefined ? {} : { idempotent: options.idempotent }),
    ...(options.requireResultApproval === undefined ? {} : { requireResultApproval: options.requireResultApproval }),
    execute: async ({ amount }, context) => {
      runs.push({ amount, context });
      return options.behave ? options.behave(amount) : `charged ${amount}`;
    },
  });
  return { tool, runs };
}

/** A thread claimed by this process (epoch 1) in an in-memory store, and a node's context over it. */
async function setUp() {
  const { store, context, events, execution } = await turnParts();
  return { store, thread: context.thread, context, events, execution };
}

/** An approved call to `charge`, as the pipeline hands it over. */
function approvedCall(amount = 42, id = 'pay-1'): ReadyCall {
  return approve(
    { ...newTurnCall({ id, name: 'charge', arguments: { amount } }), rule: 'ask:risk:HIGH' },
    'person:ada',
  );
}

/** What a process that died while running the call left in the store. */
async function diedWhileRunning(store: InMemoryCheckpointStore, call: ReadyCall, idempotent: boolean) {
  const argumentsHash = hashArguments(call.finalArguments);
  await store.recordToolApproval({
    threadId: 'thread-1',
    toolCallId: call.id,
    toolName: call.name,
    argumentsHash,
    arguments: call.finalArguments,
    approvedBy: 'person:ada',
    idempotent,
    createdAt: CREATED_AT,
  });
  await store.markToolStarted('thread-1', call.id, argumentsHash, ['approved'], CREATED_AT);
}

describe('ToolExecution.run (F40)', () => {
  it('runs an approved call once and stores its outcome bound to the exact arguments', async () => {
    const { store, context, events, execution } = await setUp();
    const { tool, runs } = chargeTool();
    const done = await execution.run(approvedCall(), tool, context, 'agent');
    expect(done).toMatchObject({
      phase: 'done',
      status: 'SUCCESS',
      output: 'charged 42',
      content: '[SUCCESS] charged 42',
    });
    expect(runs.map((run) => run.amount)).toEqual([42]);
    expect(await store.getToolExecution('thread-1', 'pay-1')).toMatchObject({
      status: 'finished',
      toolName: 'charge',
      arguments: { amount: 42 },
      argumentsHash: hashArguments({ amount: 42 }),
      approvedBy: 'person:ada',
      idempotent: false,
      outcome: { status: 'SUCCESS', output: 'charged 42', content: '[SUCCESS] charged 42' },
    });
    expect(events).toEqual([
      {
        type: 'TOOL_CALL_STARTED',
        nodeId: 'agent',
        toolCallId: 'pay-1',
        toolName: 'charge',
        arguments: { amount: 42 },
      },
    ]);
  });

  it("hands the tool the thread, the node, the call, the workspace and the approver's instruction", async () => {
    const { context, execution } = await setUp();
    const { tool, runs } = chargeTool();
    await execution.run(
      { ...approvedCall(), userInstruction: 'use the company card', responder: 'ada' },
      tool,
      context,
      'agent',
    );
    expect(runs[0]?.context).toEqual({
      threadId: 'thread-1',
      nodeId: 'agent',
      toolCallId: 'pay-1',
      signal: context.signal,
      workspaceRoot: '/workspace',
      approval: { userInstruction: 'use the company card', responder: 'ada' },
    });
    await execution.run(approvedCall(7, 'pay-2'), tool, context, 'agent');
    expect(runs[1]?.context).not.toHaveProperty('approval');
  });

  it('runs the edited arguments an approver chose, not the proposed ones (F19)', async () => {
    const { store, context, execution } = await setUp();
    const { tool, runs } = chargeTool();
    await execution.run(approve(approvedCall(42), 'person:ada', { amount: 40 }), tool, context, 'agent');
    expect(runs.map((run) => run.amount)).toEqual([40]);
    expect(await store.getToolExecution('thread-1', 'pay-1')).toMatchObject({
      arguments: { amount: 40 },
      argumentsHash: hashArguments({ amount: 40 }),
    });
  });

  it('never runs the same approved call twice: running it again replays the stored outcome', async () => {
    const { context, events, execution } = await setUp();
    const { tool, runs } = chargeTool();
    const first = await execution.run(approvedCall(), tool, context, 'agent');
    const again = await execution.run(approvedCall(), tool, context, 'agent');
    expect(runs).toHaveLength(1);
    expect(again).toStrictEqual(first);
    expect(events.filter((event) => event.type === 'TOOL_CALL_STARTED')).toHaveLength(1);
  });

  it('replays a stored failure as the model was first told it', async () => {
    const { context, execution } = await setUp();
    const { tool, runs } = chargeTool({ behave: () => Promise.reject(new Error('card declined')) });
    const first = await execution.run(approvedCall(), tool, context, 'agent');
    const again = await execution.run(approvedCall(), tool, context, 'agent');
    expect(runs).toHaveLength(1);
    expect(again).toMatchObject({ phase: 'done', content: '[ERROR] card declined' });
    expect(again).toStrictEqual(first);
  });

  it('replays a tool that timed out as TIMEOUT with its own message: it may have taken effect (F14, F40)', async () => {
    const { context, execution } = await setUp();
    const { tool, runs } = chargeTool({
      behave: () => Promise.reject(new InterlockError('TOOL_TIMEOUT', 'charge did not answer within 30 s')),
    });
    const first = await execution.run(approvedCall(), tool, context, 'agent');
    const again = await execution.run(approvedCall(), tool, context, 'agent');
    expect(runs).toHaveLength(1);
    expect(again).toStrictEqual(first);
    expect(again).toMatchObject({
      status: 'TIMEOUT',
      content: expect.stringContaining('Check whether it took effect'),
    });
    expect(again).not.toMatchObject({ content: expect.stringContaining('was not run') });
  });

  it('a tool that throws ends as ERROR with its message, and that outcome is stored (F14)', async () => {
    const { store, context, execution } = await setUp();
    const { tool } = chargeTool({ behave: () => Promise.reject(new Error('card declined')) });
    expect(await execution.run(approvedCall(), tool, context, 'agent')).toMatchObject({
      phase: 'done',
      status: 'ERROR',
      content: '[ERROR] card declined',
    });
    expect(await store.getToolExecution('thread-1', 'pay-1')).toMatchObject({
      status: 'finished',
      outcome: { status: 'ERROR', content: '[ERROR] card declined' },
    });
  });

  it('a tool that does not answer in time (TOOL_TIMEOUT) ends as TIMEOUT, telling the model to check its effect (F14)', async () => {
    const { store, context, execution } = await setUp();
    const { tool } = chargeTool({
      behave: () => Promise.reject(new InterlockError('TOOL_TIMEOUT', 'charge did not answer within 30 s')),
    });
    const done = await execution.run(approvedCall(), tool, context, 'agent');
    expect(done).toMatchObject({
      phase: 'done',
      status: 'TIMEOUT',
      content: '[TIMEOUT] charge did not answer within 30 s. Check whether it took effect before you call it again.',
    });
    expect(await store.getToolExecution('thread-1', 'pay-1')).toMatchObject({
      status: 'finished',
      outcome: {
        status: 'TIMEOUT',
        content: '[TIMEOUT] charge did not answer within 30 s. Check whether it took effect before you call it again.',
      },
    });
  });

  it('a tool whose result needs approval waits for it; a replay asks again without running it (F13)', async () => {
    const { store, context, execution } = await setUp();
    const { tool, runs } = chargeTool({
      requireResultApproval: true,
      behave: async (amount) => ({ receipt: `r-${amount}` }),
    });
    const ran = await execution.run(approvedCall(), tool, context, 'agent');
    expect(ran).toMatchObject({ phase: 'awaiting-result', result: { receipt: 'r-42' } });
    expect(ran).not.toHaveProperty('interactionId');
    expect(await store.getToolExecution('thread-1', 'pay-1')).toMatchObject({
      status: 'finished',
      outcome: { status: 'SUCCESS', output: { receipt: 'r-42' } },
    });
    expect(await execution.run(approvedCall(), tool, context, 'agent')).toStrictEqual(ran);
    expect(runs).toHaveLength(1);
  });

  it('a call to a tool nobody registered is NOT_FOUND and leaves no record', async () => {
    const { store, context, execution } = await setUp();
    expect(await execution.run(approvedCall(), undefined, context, 'agent')).toMatchObject({
      phase: 'done',
      status: 'NOT_FOUND',
    });
    expect(await store.getToolExecution('thread-1', 'pay-1')).toBeUndefined();
  });

  it('a non-idempotent call found started is never run again: its outcome is unknown and a person is asked', async () => {
    const { store, context, events, execution } = await setUp();
    const { tool, runs } = chargeTool({ idempotent: false });
    await diedWhileRunning(store, approvedCall(), false);
    const next = await execution.run(approvedCall(), tool, context, 'agent');
    expect(runs).toHaveLength(0);
    expect(next).toMatchObject({ phase: 'awaiting-recovery', approvedBy: 'person:ada' });
    expect(next).not.toHaveProperty('interactionId');
    expect(events).toEqual([
      {
        type: 'TOOL_CALL_OUTCOME_UNKNOWN',
        nodeId: 'agent',
        toolCallId: 'pay-1',
        toolName: 'charge',
        arguments: { amount: 42 },
      },
    ]);
    expect(await store.getToolExecution('thread-1', 'pay-1')).toMatchObject({ status: 'unknown' });
  });

  it('a call already known to be unknown waits for a person again, announced only once', async () => {
    const { store, context, events, execution } = await setUp();
    const { tool, runs } = chargeTool();
    await diedWhileRunning(store, approvedCall(), false);
    await execution.run(approvedCall(), tool, context, 'agent');
    expect(await execution.run(approvedCall(), tool, context, 'agent')).toMatchObject({ phase: 'awaiting-recovery' });
    expect(runs).toHaveLength(0);
    expect(events.filter((event) => event.type === 'TOOL_CALL_OUTCOME_UNKNOWN')).toHaveLength(1);
  });

  it('an idempotent call found started runs again without asking', async () => {
    const { store, context, events, execution } = await setUp();
    const { tool, runs } = chargeTool({ idempotent: true });
    await diedWhileRunning(store, approvedCall(), true);
    expect(await execution.run(approvedCall(), tool, context, 'agent')).toMatchObject({
      phase: 'done',
      status: 'SUCCESS',
    });
    expect(runs).toHaveLength(1);
    expect(events.map((event) => event.type)).toEqual(['TOOL_CALL_STARTED']);
    expect(await store.getToolExecution('thread-1', 'pay-1')).toMatchObject({ status: 'finished', idempotent: true });
  });

  it('a process that lost its claim of the thread runs nothing (STORE_CONFLICT)', async () => {
    const { store, thread, context, execution } = await setUp();
    const { tool, runs } = chargeTool();
    await store.claimThread('thread-1', 'another-process', LATER, CREATED_AT, thread.version);
    await expect(execution.run(approvedCall(), tool, context, 'agent')).rejects.toMatchObject({
      code: 'STORE_CONFLICT',
    });
    expect(runs).toHaveLength(0);
    expect(await store.getToolExecution('thread-1', 'pay-1')).toBeUndefined();
  });

  it('a process that lost its claim while the tool ran writes no outcome: the call stays started for the new owner', async () => {
    const { store, thread, context, execution } = await setUp();
    const { tool } = chargeTool({
      behave: async (amount) => {
        await store.claimThread('thread-1', 'another-process', LATER, CREATED_AT, thread.version);
        return `charged ${amount}`;
      },
    });
    await expect(execution.run(approvedCall(), tool, context, 'agent')).rejects.toMatchObject({
      code: 'STORE_CONFLICT',
    });
    expect(await store.getToolExecution('thread-1', 'pay-1')).toMatchObject({ status: 'started' });
  });
});

describe('ToolExecution.resolve (what a person said about an unknown outcome, F40)', () => {
  async function unknownCall() {
    const parts = await setUp();
    const charge = chargeTool();
    await diedWhileRunning(parts.store, approvedCall(), false);
    const waiting = await parts.execution.run(approvedCall(), charge.tool, parts.context, 'agent');
    return { ...parts, ...charge, waiting };
  }

  it('retry puts the call back to ready, by the same approver, and it then runs once', async () => {
    const { store, context, execution, tool, runs, waiting } = await unknownCall();
    const ready = await execution.resolve(waiting, 'retry', undefined, context);
    expect(ready).toMatchObject({ phase: 'ready', approvedBy: 'person:ada', finalArguments: { amount: 42 } });
    expect(await store.getToolExecution('thread-1', 'pay-1')).toMatchObject({ status: 'approved' });
    if (ready.phase !== 'ready') return expect.unreachable('retry makes the call ready');
    expect(await execution.run(ready, tool, context, 'agent')).toMatchObject({ phase: 'done', status: 'SUCCESS' });
    expect(runs).toHaveLength(1);
  });

  it('fail finishes the call as ERROR with the reason, and stores it', async () => {
    const { store, context, execution, waiting } = await unknownCall();
    const failed = await execution.resolve(waiting, 'fail', 'the bank shows no charge', context);
    expect(failed).toMatchObject({
      phase: 'done',
      status: 'ERROR',
      content: "[ERROR] The call's outcome is unknown and a person marked it failed: the bank shows no charge.",
    });
    expect(await store.getToolExecution('thread-1', 'pay-1')).toMatchObject({
      status: 'finished',
      outcome: { status: 'ERROR' },
    });
  });

  it('fail without a reason says only that a person marked it failed', async () => {
    const { context, execution, waiting } = await unknownCall();
    expect(await execution.resolve(waiting, 'fail', undefined, context)).toMatchObject({
      content: "[ERROR] The call's outcome is unknown and a person marked it failed.",
    });
  });

  it('done finishes it as SUCCESS and a later run does not repeat it', async () => {
    const { context, execution, tool, runs, waiting } = await unknownCall();
    const done = await execution.resolve(waiting, 'done', undefined, context);
    expect(done).toMatchObject({
      phase: 'done',
      status: 'SUCCESS',
      content: expect.stringContaining('A person confirmed the call ran'),
    });
    await execution.run(approvedCall(), tool, context, 'agent');
    expect(runs).toHaveLength(0);
  });
});
