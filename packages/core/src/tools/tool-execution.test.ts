import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { InterlockError } from '../errors/interlock-error.js';
import { hashArguments } from '../policy/canonical-arguments.js';
import { CREATED_AT, committed, present } from '../testing/conformance/store-records.js';
import { defineTool, type ToolContext } from './define-tool.js';
import { approve, argumentsOf, newTurnCall, type ReadyCall } from './turn-state.js';
import {
  OWNER,
  threadWithTurn,
  turnParts,
  type RecordingStore,
  type TurnPartsOptions,
} from './__fixtures__/turn-parts.js';

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

/** A thread claimed by this process in an in-memory store, a run of it, and a node's context over that run. */
async function setUp(options: TurnPartsOptions = {}) {
  return turnParts(options);
}

/** An approved call to `charge`, as the pipeline hands it over. */
function approvedCall(amount = 42, id = 'pay-1'): ReadyCall {
  return approve(
    { ...newTurnCall({ id, name: 'charge', arguments: { amount } }), rule: 'ask:risk:HIGH' },
    'person:ada',
  );
}

/** What a process that died while running the call left in the store: its record, `started`. */
function diedWhileRunning(call: ReadyCall, idempotent: boolean) {
  return async (store: RecordingStore) => {
    await committed(store, {
      toolCalls: [
        {
          kind: 'start',
          call: {
            threadId: 'thread-1',
            toolCallId: call.id,
            toolName: call.name,
            argumentsHash: hashArguments(argumentsOf(call)),
            arguments: argumentsOf(call),
            approvedBy: 'person:ada',
            idempotent,
            createdAt: CREATED_AT,
          },
          from: ['approved'],
          at: CREATED_AT,
        },
      ],
    });
  };
}

describe('ToolExecution: a ready call run the way the pipeline runs it (F40)', () => {
  it('runs an approved call once and stores its outcome bound to the exact arguments', async () => {
    const parts = await setUp();
    const { store, events, runReady } = parts;
    const recordWhenRun: unknown[] = [];
    const { tool, runs } = chargeTool({
      behave: async (amount) => {
        recordWhenRun.push(await store.toolCall('pay-1'));
        return `charged ${amount}`;
      },
    });
    const done = await runReady(approvedCall(), tool);
    expect(done).toMatchObject({
      phase: 'done',
      status: 'SUCCESS',
      output: 'charged 42',
      content: '[SUCCESS] charged 42',
    });
    expect(runs.map((run) => run.amount)).toEqual([42]);
    // Write-ahead: the record was durable, started and bound to the arguments, before the side effect.
    expect(recordWhenRun).toEqual([
      expect.objectContaining({ status: 'started', argumentsHash: hashArguments({ amount: 42 }) }),
    ]);
    expect(await store.toolCall('pay-1')).toMatchObject({
      status: 'finished',
      toolName: 'charge',
      arguments: { amount: 42 },
      argumentsHash: hashArguments({ amount: 42 }),
      approvedBy: 'person:ada',
      idempotent: false,
      outcome: { status: 'SUCCESS', output: 'charged 42', content: '[SUCCESS] charged 42' },
    });
    expect(events.filter((event) => event.type.startsWith('TOOL_CALL'))).toEqual([
      {
        type: 'TOOL_CALL_STARTED',
        nodeId: 'agent',
        toolCallId: 'pay-1',
        toolName: 'charge',
        arguments: { amount: 42 },
      },
    ]);
  });

  it('plans a start from approved only, bound to the hash of the arguments that run, before anything runs', async () => {
    const { execution, context } = await setUp();
    const { tool, runs } = chargeTool();
    const plan = execution.plan(approvedCall(), tool, context, 'agent');
    expect(plan).toMatchObject({
      kind: 'start',
      change: {
        kind: 'start',
        call: { toolCallId: 'pay-1', argumentsHash: hashArguments({ amount: 42 }), approvedBy: 'person:ada' },
        from: ['approved'],
      },
    });
    expect(runs).toEqual([]);
  });

  it("hands the tool the thread, the node, the call, the claim's fence, the workspace and the approver's instruction", async () => {
    const { context, runReady, store } = await setUp();
    const { tool, runs } = chargeTool();
    await runReady({ ...approvedCall(), userInstruction: 'use the company card', responder: 'ada' }, tool);
    const stored = present(await store.getThread('thread-1'));
    expect(stored.lease?.owner).toBe(OWNER);
    expect(runs[0]?.context).toEqual({
      threadId: 'thread-1',
      nodeId: 'agent',
      toolCallId: 'pay-1',
      signal: context.signal,
      fence: { threadId: 'thread-1', epoch: stored.epoch },
      workspaceRoot: '/workspace',
      approval: { userInstruction: 'use the company card', responder: 'ada' },
    });
    await runReady(approvedCall(7, 'pay-2'), tool);
    expect(runs[1]?.context).not.toHaveProperty('approval');
  });

  it('runs the edited arguments an approver chose, not the proposed ones (F19)', async () => {
    const { store, runReady } = await setUp();
    const { tool, runs } = chargeTool();
    await runReady(approve(approvedCall(42), 'person:ada', { amount: 40 }), tool);
    expect(runs.map((run) => run.amount)).toEqual([40]);
    expect(await store.toolCall('pay-1')).toMatchObject({
      arguments: { amount: 40 },
      argumentsHash: hashArguments({ amount: 40 }),
    });
  });

  it('never runs the same approved call twice: running it again replays the stored outcome', async () => {
    const { events, runReady } = await setUp();
    const { tool, runs } = chargeTool();
    const first = await runReady(approvedCall(), tool);
    const again = await runReady(approvedCall(), tool);
    expect(runs).toHaveLength(1);
    expect(again).toStrictEqual(first);
    expect(events.filter((event) => event.type === 'TOOL_CALL_STARTED')).toHaveLength(1);
  });

  it('never runs a call again that a run before a crash finished: a new run replays the stored outcome', async () => {
    const parts = await setUp();
    const { tool, runs } = chargeTool();
    const first = await parts.runReady(approvedCall(), tool);
    const { runReady } = await parts.openRun();
    expect(await runReady(approvedCall(), tool)).toStrictEqual(first);
    expect(runs).toHaveLength(1);
  });

  it('replays a stored failure as the model was first told it', async () => {
    const { runReady } = await setUp();
    const { tool, runs } = chargeTool({ behave: () => Promise.reject(new Error('card declined')) });
    const first = await runReady(approvedCall(), tool);
    const again = await runReady(approvedCall(), tool);
    expect(runs).toHaveLength(1);
    expect(again).toMatchObject({ phase: 'done', content: '[ERROR] card declined' });
    expect(again).toStrictEqual(first);
  });

  it('replays a tool that timed out as TIMEOUT with its own message: it may have taken effect (F14, F40)', async () => {
    const { runReady } = await setUp();
    const { tool, runs } = chargeTool({
      behave: () => Promise.reject(new InterlockError('TOOL_TIMEOUT', 'charge did not answer within 30 s')),
    });
    const first = await runReady(approvedCall(), tool);
    const again = await runReady(approvedCall(), tool);
    expect(runs).toHaveLength(1);
    expect(again).toStrictEqual(first);
    expect(again).toMatchObject({
      status: 'TIMEOUT',
      content: expect.stringContaining('Check whether it took effect'),
    });
    expect(again).not.toMatchObject({ content: expect.stringContaining('was not run') });
  });

  it('a tool that throws ends as ERROR with its message, and that outcome is stored (F14)', async () => {
    const { store, runReady } = await setUp();
    const { tool } = chargeTool({ behave: () => Promise.reject(new Error('card declined')) });
    expect(await runReady(approvedCall(), tool)).toMatchObject({
      phase: 'done',
      status: 'ERROR',
      content: '[ERROR] card declined',
    });
    expect(await store.toolCall('pay-1')).toMatchObject({
      status: 'finished',
      outcome: { status: 'ERROR', content: '[ERROR] card declined' },
    });
  });

  it('a tool that does not answer in time (TOOL_TIMEOUT) ends as TIMEOUT, telling the model to check its effect (F14)', async () => {
    const { store, runReady } = await setUp();
    const { tool } = chargeTool({
      behave: () => Promise.reject(new InterlockError('TOOL_TIMEOUT', 'charge did not answer within 30 s')),
    });
    const done = await runReady(approvedCall(), tool);
    expect(done).toMatchObject({
      phase: 'done',
      status: 'TIMEOUT',
      content: '[TIMEOUT] charge did not answer within 30 s. Check whether it took effect before you call it again.',
    });
    expect(await store.toolCall('pay-1')).toMatchObject({
      status: 'finished',
      outcome: {
        status: 'TIMEOUT',
        content: '[TIMEOUT] charge did not answer within 30 s. Check whether it took effect before you call it again.',
      },
    });
  });

  it('a tool whose result needs approval waits for it; a replay asks again without running it (F13)', async () => {
    const { store, runReady } = await setUp();
    const { tool, runs } = chargeTool({
      requireResultApproval: true,
      behave: async (amount) => ({ receipt: `r-${amount}` }),
    });
    const ran = await runReady(approvedCall(), tool);
    expect(ran).toMatchObject({ phase: 'awaiting-result', result: { receipt: 'r-42' } });
    expect(ran).not.toHaveProperty('interactionId');
    expect(await store.toolCall('pay-1')).toMatchObject({
      status: 'finished',
      outcome: { status: 'SUCCESS', output: { receipt: 'r-42' } },
    });
    expect(await runReady(approvedCall(), tool)).toStrictEqual(ran);
    expect(runs).toHaveLength(1);
  });

  it('a call to a tool nobody registered is NOT_FOUND and leaves no record', async () => {
    const { store, runReady } = await setUp();
    expect(await runReady(approvedCall(), undefined)).toMatchObject({
      phase: 'done',
      status: 'NOT_FOUND',
    });
    expect(await store.toolCall('pay-1')).toBeUndefined();
  });

  it('a call whose stored record holds other arguments is never run: no approval matches them', async () => {
    const { runReady } = await setUp({ seed: diedWhileRunning(approvedCall(41), true) });
    const { tool, runs } = chargeTool({ idempotent: true });
    expect(await runReady(approvedCall(42), tool)).toMatchObject({
      phase: 'done',
      status: 'ERROR',
      content: expect.stringContaining('No stored approval matches these exact arguments'),
    });
    expect(runs).toHaveLength(0);
  });

  it('a non-idempotent call found started is never run again: its outcome is unknown and a person is asked', async () => {
    const { store, events, runReady } = await setUp({ seed: diedWhileRunning(approvedCall(), false) });
    const { tool, runs } = chargeTool({ idempotent: false });
    const next = await runReady(approvedCall(), tool);
    expect(runs).toHaveLength(0);
    expect(next).toMatchObject({ phase: 'awaiting-recovery', approvedBy: 'person:ada' });
    expect(next).not.toHaveProperty('interactionId');
    expect(events.filter((event) => event.type.startsWith('TOOL_CALL'))).toEqual([
      {
        type: 'TOOL_CALL_OUTCOME_UNKNOWN',
        nodeId: 'agent',
        toolCallId: 'pay-1',
        toolName: 'charge',
        arguments: { amount: 42 },
      },
    ]);
    expect(await store.toolCall('pay-1')).toMatchObject({ status: 'unknown' });
  });

  it('a call already known to be unknown waits for a person again, announced only once', async () => {
    const { events, runReady } = await setUp({ seed: diedWhileRunning(approvedCall(), false) });
    const { tool, runs } = chargeTool();
    await runReady(approvedCall(), tool);
    expect(await runReady(approvedCall(), tool)).toMatchObject({ phase: 'awaiting-recovery' });
    expect(runs).toHaveLength(0);
    expect(events.filter((event) => event.type === 'TOOL_CALL_OUTCOME_UNKNOWN')).toHaveLength(1);
  });

  it('an idempotent call found started runs again without asking', async () => {
    const { store, events, runReady } = await setUp({ seed: diedWhileRunning(approvedCall(), true) });
    const { tool, runs } = chargeTool({ idempotent: true });
    expect(await runReady(approvedCall(), tool)).toMatchObject({
      phase: 'done',
      status: 'SUCCESS',
    });
    expect(runs).toHaveLength(1);
    expect(events.filter((event) => event.type.startsWith('TOOL_CALL')).map((event) => event.type)).toEqual([
      'TOOL_CALL_STARTED',
    ]);
    expect(await store.toolCall('pay-1')).toMatchObject({ status: 'finished', idempotent: true });
  });

  it('runs only a call whose committed start the run proves (issue 39): another call is refused before its tool runs', async () => {
    const { store, run, context, execution, place } = await setUp();
    const { tool, runs } = chargeTool();
    const first = approvedCall(42, 'pay-1');
    const second = approvedCall(7, 'pay-2');
    await place(first);
    await place(second);
    const plan = execution.plan(first, tool, context, 'agent');
    if (plan.kind !== 'start') return expect.unreachable('the call is ready to start');
    const started = await run.startCalls({ next: context.thread, effects: { toolCalls: [plan.change] } });
    expect(await store.toolCall('pay-1')).toMatchObject({ status: 'started' });
    await expect(execution.execute(second, tool, context, 'agent', started)).rejects.toMatchObject({
      code: 'INTERNAL',
      message: expect.stringContaining('pay-2'),
    });
    // A proof made by hand proves nothing either.
    await expect(execution.execute(first, tool, context, 'agent', {} as never)).rejects.toMatchObject({
      code: 'INTERNAL',
    });
    expect(runs).toEqual([]);
    await execution.execute(first, tool, context, 'agent', started);
    expect(runs.map((ran) => ran.amount)).toEqual([42]);
  });

  it('a process that lost its claim of the thread runs nothing (STORE_CONFLICT)', async () => {
    // The call was approved and committed with the thread before the claim ran out: the start
    // is the run's next write, and the store must refuse it under the fence of the lost claim.
    const { store, runReady, takenByAnotherProcess } = await setUp({ thread: threadWithTurn([approvedCall()]) });
    const { tool, runs } = chargeTool();
    await takenByAnotherProcess();
    await expect(runReady(approvedCall(), tool)).rejects.toMatchObject({ code: 'STORE_CONFLICT' });
    expect(runs).toHaveLength(0);
    expect(await store.toolCall('pay-1')).toBeUndefined();
  });

  it('a process that lost its claim before the call was approved runs nothing either (STORE_CONFLICT)', async () => {
    const { store, runReady, takenByAnotherProcess } = await setUp();
    const { tool, runs } = chargeTool();
    await takenByAnotherProcess();
    await expect(runReady(approvedCall(), tool)).rejects.toMatchObject({ code: 'STORE_CONFLICT' });
    expect(runs).toHaveLength(0);
    expect(await store.toolCall('pay-1')).toBeUndefined();
  });

  it('a run whose first durability point is a call it found ready claims the thread before the call runs', async () => {
    // A process stopped with the call approved and not yet run: it stays ready in the thread.
    // The run that goes on writes the start first; that commit must claim the thread (F40, issue 5).
    const { store, runReady } = await setUp({ thread: threadWithTurn([approvedCall()]), claimed: false });
    const before = present(await store.getThread('thread-1'));
    const claimWhenRun: unknown[] = [];
    const { tool, runs } = chargeTool({
      behave: async (amount) => {
        const thread = await store.getThread('thread-1');
        claimWhenRun.push({ owner: thread?.lease?.owner, epoch: thread?.epoch });
        return `charged ${amount}`;
      },
    });
    await runReady(approvedCall(), tool);
    expect(claimWhenRun).toEqual([{ owner: OWNER, epoch: before.epoch + 1 }]);
    expect(runs[0]?.context.fence).toEqual({ threadId: 'thread-1', epoch: before.epoch + 1 });
  });

  it('a process that lost its claim while the tool ran writes no outcome: the call stays started for the new owner', async () => {
    const parts = await setUp();
    const { tool } = chargeTool({
      behave: async (amount) => {
        await parts.takenByAnotherProcess();
        return `charged ${amount}`;
      },
    });
    await expect(parts.runReady(approvedCall(), tool)).rejects.toMatchObject({ code: 'STORE_CONFLICT' });
    expect(await parts.store.toolCall('pay-1')).toMatchObject({ status: 'started' });
  });
});

describe('ToolExecution.resolve (what a person said about an unknown outcome, F40)', () => {
  async function unknownCall() {
    const parts = await setUp({ seed: diedWhileRunning(approvedCall(), false) });
    const charge = chargeTool();
    const waiting = await parts.runReady(approvedCall(), charge.tool);
    return { ...parts, ...charge, waiting };
  }

  it('retry puts the call back to ready, by the same approver, and it then runs once', async () => {
    const { store, context, execution, settle, run, runReady, tool, runs, waiting } = await unknownCall();
    const ready = execution.resolve(waiting, 'retry', undefined, context);
    expect(ready.call).toMatchObject({ phase: 'ready', approvedBy: 'person:ada' });
    expect(argumentsOf(ready.call)).toEqual({ amount: 42 });
    await settle(ready);
    await run.commit();
    expect(await store.toolCall('pay-1')).toMatchObject({ status: 'approved' });
    if (ready.call.phase !== 'ready') return expect.unreachable('retry makes the call ready');
    expect(await runReady(ready.call, tool)).toMatchObject({ phase: 'done', status: 'SUCCESS' });
    expect(runs).toHaveLength(1);
  });

  it('fail finishes the call as ERROR with the reason, and stores it', async () => {
    const { store, context, execution, settle, run, waiting } = await unknownCall();
    const failed = execution.resolve(waiting, 'fail', 'the bank shows no charge', context);
    expect(failed.call).toMatchObject({
      phase: 'done',
      status: 'ERROR',
      content: "[ERROR] The call's outcome is unknown and a person marked it failed: the bank shows no charge.",
    });
    await settle(failed);
    await run.commit();
    expect(await store.toolCall('pay-1')).toMatchObject({
      status: 'finished',
      outcome: { status: 'ERROR' },
    });
  });

  it('fail without a reason says only that a person marked it failed', async () => {
    const { context, execution, waiting } = await unknownCall();
    expect(execution.resolve(waiting, 'fail', undefined, context).call).toMatchObject({
      content: "[ERROR] The call's outcome is unknown and a person marked it failed.",
    });
  });

  it('done finishes it as SUCCESS and a later run does not repeat it', async () => {
    const { context, execution, settle, run, runReady, tool, runs, waiting } = await unknownCall();
    const done = execution.resolve(waiting, 'done', undefined, context);
    expect(done.call).toMatchObject({
      phase: 'done',
      status: 'SUCCESS',
      content: expect.stringContaining('A person confirmed the call ran'),
    });
    await settle(done);
    await run.commit();
    await runReady(approvedCall(), tool);
    expect(runs).toHaveLength(0);
  });
});
