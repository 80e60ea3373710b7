import { InterlockError } from '../errors/interlock-error.js';
import type { LiveThread, ThreadRecord } from '../persistence/checkpoint-store.js';
import type { TurnState } from '../tools/turn-state.js';
import { withNodeState } from './transitions.js';

/*
 * The resumable state of the active node, typed by the kind of the node (issue 39). The
 * thread keeps it as JSON (`ActiveNode.state`, opaque to a store); the engine reads and
 * writes it only here, by kind, and a state that is not of its kind's shape (a thread stored
 * by another engine) is refused rather than cast.
 */

/** What a USER_INTERACTION node keeps while it waits: the interaction it asked. */
export interface WaitState {
  readonly interactionId: string;
}

/** A model turn being decided or run: its calls, and the text that came with them. */
export type LlmTurn = TurnState & { readonly text: string };

/** What an LLM node keeps between rounds, so a wait for an approval resumes in its round. */
export interface LlmNodeState {
  readonly round: number;
  readonly toolCallCount: number;
  /** The model turn whose tool calls are being decided or run. */
  readonly turn: LlmTurn | null;
}

/** The state each kind of node keeps in the thread's active node (the other kinds keep none). */
export interface NodeStates {
  USER_INTERACTION: WaitState;
  LLM: LlmNodeState;
  TOOL: TurnState;
}

/** The kinds of node that keep a state. */
export type StatefulNode = keyof NodeStates;

const SHAPES: { readonly [K in StatefulNode]: (state: Record<string, unknown>) => boolean } = {
  USER_INTERACTION: (state) => typeof state['interactionId'] === 'string',
  LLM: (state) =>
    typeof state['round'] === 'number' &&
    typeof state['toolCallCount'] === 'number' &&
    (state['turn'] === null || isTurn(state['turn'])),
  TOOL: (state) => isTurn(state),
};

function isTurn(turn: unknown): boolean {
  return typeof turn === 'object' && turn !== null && Array.isArray((turn as { calls?: unknown }).calls);
}

/**
 * The active node's state as a node of `kind` kept it; undefined while it keeps none.
 *
 * @throws InterlockError INTERNAL when the state is not of that kind's shape.
 */
export function nodeStateOf<K extends StatefulNode>(thread: ThreadRecord, kind: K): NodeStates[K] | undefined {
  const state = thread.activeNode?.state;
  if (state === null || state === undefined) return undefined;
  if (typeof state !== 'object' || !SHAPES[kind](state as Record<string, unknown>))
    throw new InterlockError(
      'INTERNAL',
      `thread ${thread.threadId}: the state of node "${thread.activeNode?.nodeId ?? '?'}" is not what a ${kind} node keeps`,
    );
  return state as NodeStates[K];
}

/** The active node's state as a node of `kind` kept it, which it must have by now. */
export function keptStateOf<K extends StatefulNode>(thread: ThreadRecord, kind: K): NodeStates[K] {
  const state = nodeStateOf(thread, kind);
  if (state === undefined)
    throw new InterlockError('INTERNAL', `thread ${thread.threadId}: the ${kind} node keeps no state yet`);
  return state;
}

/** The thread with `state` kept by its active node, a node of `kind`. */
export function withStateOf<K extends StatefulNode>(thread: ThreadRecord, _kind: K, state: NodeStates[K]): LiveThread {
  return withNodeState(thread, state);
}
