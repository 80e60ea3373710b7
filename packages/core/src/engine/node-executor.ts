import type { DistributiveOmit } from './types.js';
import type { InterlockEvent, NodeOfType, NodeType, WorkflowDefinition } from '@interlock/sdk-types';
import type { Frame, ThreadRecord } from '../persistence/checkpoint-store.js';
import type { VariableScopes } from './variable-scopes.js';

/** An event as an executor emits it; the engine adds thread, workflow and time. */
export type EmittedEvent = DistributiveOmit<InterlockEvent, 'threadId' | 'workflowId' | 'timestamp'>;

/** What a node executor works with. The thread record is the run's working copy. */
export interface NodeExecutionContext {
  readonly thread: ThreadRecord;
  readonly frame: Frame;
  readonly workflow: WorkflowDefinition;
  readonly scopes: VariableScopes;
  /** Aborted when the thread is cancelled. */
  readonly signal: AbortSignal;
  emit(event: EmittedEvent): void;
  // The type parameters only name the state an executor saved itself (it comes back from the
  // store unchecked); kept as public API rather than making every executor cast `unknown`.
  /** The node's resumable state from an earlier run of this node (after a wait), if any. */
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-parameters -- see above
  nodeState<State>(): State | undefined;
  /** Keeps resumable state for this node; saved with the next checkpoint, cleared when the node completes. */
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-parameters -- see above
  setNodeState<State>(state: State): void;
  /** Saves the working copy to the store now. */
  checkpoint(): Promise<void>;
  /**
   * Marks progress that the next checkpoint saves (before anyone is asked, before a tool
   * runs, or when the run stops): progress a crash may lose because it is redone the same
   * way, or its outcome is kept elsewhere (a tool's outcome in its write-ahead record).
   */
  checkpointLater(): void;
  /**
   * Says the answer to this interaction is applied to the working copy. It is marked
   * processed by the checkpoint that saves its effect, in the same transaction: a crash
   * before that leaves it answered, and the thread, which still waits on it, applies it again.
   */
  answerApplied(interactionId: string): void;
}

/** What running one node led to. */
export type NodeOutcome =
  /** Go on; `next` overrides the node's outgoing edge. */
  | { kind: 'next'; next?: string }
  /** Wait durably for a person; the thread is saved as `waiting`. */
  | { kind: 'suspend'; interactionIds: string[] }
  /** This frame's workflow has ended. */
  | { kind: 'end'; output: unknown }
  /** A child frame was pushed (SUBGRAPH); run it. */
  | { kind: 'enter' }
  | { kind: 'cancelled'; reason: string };

/**
 * Runs one node type. Adding a node type is one class implementing this and one
 * multi-injected binding to `TYPES.NodeExecutor`. Failures are thrown as InterlockError.
 */
export interface INodeExecutor<T extends NodeType = NodeType> {
  readonly type: T;
  execute(node: NodeOfType<T>, context: NodeExecutionContext): Promise<NodeOutcome>;
}
