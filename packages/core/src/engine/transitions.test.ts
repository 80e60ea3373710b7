import { describe, expect, it } from 'vitest';
import type { Frame, ThreadRecord } from '../persistence/checkpoint-store.js';
import { threadRecord, userMessage, type ThreadOverrides } from '../testing/conformance/store-records.js';
import { combineEffects } from './step.js';
import {
  appendMessages,
  currentFrame,
  finishThread,
  moveCursor,
  popFrame,
  pushFrame,
  startNode,
  stopWaitingOn,
  suspend,
  waitOn,
  withLoop,
  withNodeState,
} from './transitions.js';

/* The thread's transitions and how effects combine (issue 39): pure, so checked here without a run or a store. */

/** A frozen thread: a transition that changed it in place would throw. */
function frozen(overrides: ThreadOverrides = {}): ThreadRecord {
  return deepFreeze(threadRecord(overrides));
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
}

const child: Frame = { workflowId: 'child', workflowVersion: '1', cursor: 'start', variables: {}, loops: [] };

describe('transitions (the thread as a value)', () => {
  it('starts a node: one more step, running, the node active with no state yet', () => {
    const thread = frozen({ status: 'waiting', steps: 2 });
    expect(startNode(thread, 'workflow-a', 'ask')).toMatchObject({
      status: 'running',
      steps: 3,
      activeNode: { workflowId: 'workflow-a', nodeId: 'ask', state: null },
    });
    expect(thread.steps).toBe(2);
  });

  it('keeps a node state only on an active node', () => {
    const started = startNode(frozen(), 'workflow-a', 'agent');
    expect(withNodeState(started, { round: 1 }).activeNode).toEqual({
      workflowId: 'workflow-a',
      nodeId: 'agent',
      state: { round: 1 },
    });
    expect(() => withNodeState(frozen(), { round: 1 })).toThrow(expect.objectContaining({ code: 'INTERNAL' }));
  });

  it('appends messages, and gives the same value back when there are none', () => {
    const thread = frozen();
    expect(appendMessages(thread)).toBe(thread);
    expect(appendMessages(thread, userMessage('hello')).conversation).toEqual([userMessage('hello')]);
  });

  it('moves the current frame on and clears the active node', () => {
    const thread = startNode(frozen(), 'workflow-a', 'ask');
    const moved = moveCursor(thread, 'end');
    expect(currentFrame(moved).cursor).toBe('end');
    expect(moved.activeNode).toBeNull();
    expect(currentFrame(moveCursor(thread, null)).cursor).toBeNull();
  });

  it('waits on interactions, and runs again once the last is let go', () => {
    const waiting = waitOn(frozen(), ['a', 'b']);
    expect(waiting).toMatchObject({ status: 'waiting', pendingInteractionIds: ['a', 'b'] });
    const one = stopWaitingOn(waiting, 'a');
    expect(one).toMatchObject({ status: 'waiting', pendingInteractionIds: ['b'] });
    expect(stopWaitingOn(one, 'a')).toBe(one);
    expect(stopWaitingOn(one, 'b')).toMatchObject({ status: 'running', pendingInteractionIds: [] });
  });

  it('suspends, and finishes with an output or an error, waiting on nothing and with no active node', () => {
    const thread = waitOn(startNode(frozen(), 'workflow-a', 'ask'), ['a']);
    expect(suspend(frozen()).status).toBe('waiting');
    expect(finishThread(thread, 'completed', { output: 'done' })).toMatchObject({
      status: 'completed',
      output: 'done',
      pendingInteractionIds: [],
      activeNode: null,
    });
    const error = { code: 'MODEL_FAILED' as const, message: 'no model', nodeId: 'agent' };
    expect(finishThread(thread, 'failed', { error })).toMatchObject({ status: 'failed', error });
    expect(finishThread(thread, 'cancelled')).not.toHaveProperty('output');
  });

  it('pushes and pops a SUBGRAPH frame, the parent current again', () => {
    const pushed = pushFrame(frozen(), child);
    expect(currentFrame(pushed)).toBe(child);
    expect(currentFrame(popFrame(pushed)).workflowId).toBe('workflow-a');
  });

  it('pushes, replaces and pops the innermost loop of the current frame', () => {
    const first = { nodeId: 'each', items: [1, 2], index: 0, variables: {} };
    const pushed = withLoop(frozen(), first, false);
    expect(currentFrame(pushed).loops).toEqual([first]);
    const next = { ...first, index: 1 };
    expect(currentFrame(withLoop(pushed, next, true)).loops).toEqual([next]);
    expect(currentFrame(withLoop(pushed, null, true)).loops).toEqual([]);
  });

  it('says a thread without a frame is broken', () => {
    expect(() => currentFrame(frozen({ frames: [] }))).toThrow(expect.objectContaining({ code: 'INTERNAL' }));
  });
});

describe('combineEffects', () => {
  const open = (id: string) => ({
    kind: 'fail' as const,
    interactionId: id,
    reason: 'timeout' as const,
    message: 'late',
    at: 'now',
  });

  it('keeps every effect in order, events included', () => {
    const combined = combineEffects(
      { interactions: [open('a')], events: [{ type: 'THREAD_RESUMED' }], remember: [{ key: 'k', expiresAt: 1 }] },
      undefined,
      { interactions: [open('b')], events: [{ type: 'THREAD_SUSPENDED', interactionIds: ['b'] }] },
    );
    expect(combined.interactions).toEqual([open('a'), open('b')]);
    expect(combined.events?.map((event) => event.type)).toEqual(['THREAD_RESUMED', 'THREAD_SUSPENDED']);
    expect(combined.remember).toEqual([{ key: 'k', expiresAt: 1 }]);
  });

  it.each([
    [undefined, undefined, undefined],
    ['soon', undefined, 'soon'],
    [undefined, 'soon', 'soon'],
    ['soon', 'now', 'now'],
    ['now', 'soon', 'now'],
  ] as const)('the stricter durability wins: %s then %s is %s', (first, second, combined) => {
    expect(
      combineEffects({ ...(first ? { durable: first } : {}) }, { ...(second ? { durable: second } : {}) }).durable,
    ).toBe(combined);
  });

  it('combines nothing into no writes', () => {
    expect(combineEffects()).toEqual({
      interactions: [],
      toolCalls: [],
      audit: [],
      globals: [],
      remember: [],
      jobs: [],
      events: [],
    });
  });
});
