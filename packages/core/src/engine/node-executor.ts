import type { EmittedEvent } from './emitted-event.js';
import type { NodeOfType, NodeType, WorkflowDefinition } from '@interlock/sdk-types';
import type { ClaimFence, Frame, ThreadRecord } from '../persistence/checkpoint-store.js';
import type { Failpoint } from './failpoints.js';
import type { Run } from './run.js';
import type { Effects, Step } from './step.js';
import type { VariableScopes } from './variable-scopes.js';

export type { EmittedEvent } from './emitted-event.js';

/**
 * What a node executor works with. The thread is a value: every change is a step applied
 * through `apply` (a transition's next value and its effects), and `thread` is read again
 * after it. Executors never write to the store; the run commits at durability points.
 */
export interface NodeExecutionContext {
  /** The thread as it is now. */
  readonly thread: ThreadRecord;
  /** The thread's current frame, as it is now. */
  readonly frame: Frame;
  readonly workflow: WorkflowDefinition;
  /** The variables this node sees; its writes are applied with its completion. */
  readonly scopes: VariableScopes;
  /** Aborted when the thread is cancelled, the process closes, or the run's claim is lost. */
  readonly signal: AbortSignal;
  /** The run: the interactions and tool calls as it knows them, its fence. */
  readonly run: Run;
  /** The claim's fencing token (thread and epoch), for tools to hand to systems that refuse stale writers. */
  readonly fence: ClaimFence;
  /** Publishes an event of nothing stored (a model's text as it streams, a call starting): at once. */
  emit(event: EmittedEvent): void;
  /** Applies a step; resolves once it is committed when it is a durability point. */
  apply(step: Step): Promise<void>;
  // The type parameter only names the state an executor saved itself (it comes back from the
  // store unchecked); kept as public API rather than making every executor cast `unknown`.
  /** The node's resumable state from an earlier step of this node (after a wait), if any. */
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-parameters -- see above
  nodeState<State>(): State | undefined;
}

/**
 * How a node completes, computed from its variables: the writes it makes (through `scopes`),
 * a change to the thread, and effects that go with it. A node that writes a global variable
 * completes at a durability point; if another thread changed that global meanwhile, the
 * completion is computed again from the values read again (never the whole node).
 */
export type NodeCompletion = (scopes: VariableScopes) =>
  | {
      update?: (thread: ThreadRecord) => ThreadRecord;
      effects?: Effects;
    }
  // eslint-disable-next-line @typescript-eslint/no-invalid-void-type -- a completion that only sets variables returns nothing
  | void;

/** What running one node led to. */
export type NodeOutcome =
  /**
   * Go on; `next` overrides the node's outgoing edge. `failpoint`: where a crash test may
   * kill the process once the completion is applied (and not yet committed).
   */
  | { kind: 'next'; next?: string; complete?: NodeCompletion; failpoint?: Failpoint }
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
