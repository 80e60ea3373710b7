import type { Message, ThreadError } from '@interlock/sdk-types';
import { InterlockError } from '../errors/interlock-error.js';
import type { FinishedThread, Frame, LiveThread, LoopState, ThreadRecord } from '../persistence/checkpoint-store.js';

/*
 * The thread's transitions: pure functions from one value of the thread to the next. The
 * engine's executors build their steps from these (and their effects); nothing changes a
 * thread in place, so a value once committed or published never changes under anyone.
 */

/** The frame being run (the innermost). */
export function currentFrame(thread: ThreadRecord): Frame {
  const frame = thread.frames.at(-1);
  if (!frame) throw new InterlockError('INTERNAL', `thread ${thread.threadId} has no workflow frame`);
  return frame;
}

/** Replaces the current frame. */
export function withCurrentFrame(thread: ThreadRecord, change: (frame: Frame) => Frame): ThreadRecord {
  const frames = [...thread.frames];
  frames[frames.length - 1] = change(currentFrame(thread));
  return { ...thread, frames };
}

/** The thread going on (running or waiting: no output, no error), with `change`. */
function goingOn(
  thread: ThreadRecord,
  change: Partial<Pick<LiveThread, 'status' | 'steps' | 'pendingInteractionIds' | 'activeNode'>>,
): LiveThread {
  const { output: _output, error: _error, status, ...fields } = thread;
  return { ...fields, status: status === 'waiting' ? 'waiting' : 'running', ...change };
}

/** A node starts: one more step, and it is the active node (with no state yet). */
export function startNode(thread: ThreadRecord, workflowId: string, nodeId: string): LiveThread {
  return goingOn(thread, {
    status: 'running',
    steps: thread.steps + 1,
    activeNode: { workflowId, nodeId, state: null },
  });
}

/** Keeps `state` as the active node's resumable state (typed by the node's kind: engine/node-states.ts). */
export function withNodeState(thread: ThreadRecord, state: unknown): LiveThread {
  const { activeNode } = thread;
  if (activeNode === null) throw new InterlockError('INTERNAL', `thread ${thread.threadId} has no active node`);
  return goingOn(thread, { activeNode: { ...activeNode, state } });
}

/** Messages added at the end of the conversation. */
export function appendMessages(thread: ThreadRecord, ...messages: Message[]): ThreadRecord {
  return messages.length === 0 ? thread : { ...thread, conversation: [...thread.conversation, ...messages] };
}

/** The node completed: the current frame goes on at `next` (null: the frame ends). */
export function moveCursor(thread: ThreadRecord, next: string | null): ThreadRecord {
  return { ...withCurrentFrame(thread, (frame) => ({ ...frame, cursor: next })), activeNode: null };
}

/** The thread waits on these interactions too. */
export function waitOn(thread: ThreadRecord, interactionIds: readonly string[]): LiveThread {
  return goingOn(thread, {
    status: 'waiting',
    pendingInteractionIds: [...thread.pendingInteractionIds, ...interactionIds],
  });
}

/** The thread no longer waits on this interaction (it was answered, failed or let go). */
export function stopWaitingOn(thread: ThreadRecord, interactionId: string): ThreadRecord {
  if (!thread.pendingInteractionIds.includes(interactionId)) return thread;
  const pendingInteractionIds = thread.pendingInteractionIds.filter((id) => id !== interactionId);
  return pendingInteractionIds.length === 0
    ? goingOn(thread, { pendingInteractionIds, status: 'running' })
    : goingOn(thread, { pendingInteractionIds });
}

/** The node stops here and the thread waits for a person. */
export function suspend(thread: ThreadRecord): LiveThread {
  return goingOn(thread, { status: 'waiting' });
}

/** The thread ends: it waits on nothing, runs no node, and keeps its output (completed) or its error (failed). */
export function finishThread(
  thread: ThreadRecord,
  status: 'completed' | 'failed' | 'cancelled',
  outcome: { output?: unknown; error?: ThreadError } = {},
): FinishedThread {
  const { output: _output, error: _error, status: _status, ...fields } = thread;
  const ended = { ...fields, pendingInteractionIds: [], activeNode: null };
  switch (status) {
    case 'completed':
      return { ...ended, status, ...('output' in outcome ? { output: outcome.output } : {}) };
    case 'failed':
      return { ...ended, status, ...(outcome.error === undefined ? {} : { error: outcome.error }) };
    case 'cancelled':
      return { ...ended, status };
  }
}

/** A SUBGRAPH's child frame starts. */
export function pushFrame(thread: ThreadRecord, frame: Frame): ThreadRecord {
  return { ...thread, frames: [...thread.frames, frame] };
}

/** The finished child frame goes (its parent is current again). */
export function popFrame(thread: ThreadRecord): ThreadRecord {
  return { ...thread, frames: thread.frames.slice(0, -1) };
}

/** The current frame's innermost loop, replaced (or pushed when `replace` is false, popped when `loop` is null). */
export function withLoop(thread: ThreadRecord, loop: LoopState | null, replace: boolean): ThreadRecord {
  return withCurrentFrame(thread, (frame) => {
    const loops = replace || loop === null ? frame.loops.slice(0, -1) : [...frame.loops];
    return { ...frame, loops: loop === null ? loops : [...loops, loop] };
  });
}
