import { describe, expect, it } from 'vitest';
import { threadRecord } from '../testing/conformance/store-records.js';
import { keptStateOf, nodeStateOf, withStateOf } from './node-states.js';
import { startNode } from './transitions.js';

/* The active node's state, typed by the node's kind (issue 39): read and written by kind, refused when of another shape. */

describe('node states by kind', () => {
  const started = startNode(threadRecord(), 'workflow-a', 'agent');

  it('reads nothing before the node keeps a state, then the state it kept', () => {
    expect(nodeStateOf(started, 'LLM')).toBeUndefined();
    const llm = withStateOf(started, 'LLM', { round: 1, toolCallCount: 0, turn: null });
    expect(keptStateOf(llm, 'LLM')).toEqual({ round: 1, toolCallCount: 0, turn: null });
    const tool = withStateOf(started, 'TOOL', { calls: [] });
    expect(keptStateOf(tool, 'TOOL').calls).toEqual([]);
    const asked = withStateOf(started, 'USER_INTERACTION', { interactionId: 'i-1' });
    expect(nodeStateOf(asked, 'USER_INTERACTION')?.interactionId).toBe('i-1');
  });

  it('refuses a state that is not what a node of that kind keeps, instead of casting it', () => {
    const asked = withStateOf(started, 'USER_INTERACTION', { interactionId: 'i-1' });
    expect(() => nodeStateOf(asked, 'LLM')).toThrow(expect.objectContaining({ code: 'INTERNAL' }));
    expect(() => nodeStateOf(asked, 'TOOL')).toThrow(expect.objectContaining({ code: 'INTERNAL' }));
    expect(() => keptStateOf(started, 'TOOL')).toThrow(expect.objectContaining({ code: 'INTERNAL' }));
  });

  it('keeps a state only on a thread with an active node', () => {
    expect(() => withStateOf(threadRecord(), 'TOOL', { calls: [] })).toThrow(
      expect.objectContaining({ code: 'INTERNAL' }),
    );
  });
});
