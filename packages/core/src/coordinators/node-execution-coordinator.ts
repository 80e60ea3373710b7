import { inject, injectable, multiInject } from 'inversify';
import type { NodeType, WorkflowDefinition, WorkflowNode } from '@interlock/sdk-types';
import { TYPES } from '../di/tokens.js';
import { InterlockError, toInterlockError } from '../errors/interlock-error.js';
import { renderTemplate } from '../expressions/expressions.js';
import type { Clock } from '../engine/clock.js';
import { edgeTarget, findNode } from '../engine/graph.js';
import type { EmittedEvent, INodeExecutor, NodeExecutionContext, NodeOutcome } from '../engine/node-executor.js';
import { failpointAfterCommit } from '../engine/durability.js';
import { isArmed } from '../engine/failpoints.js';
import { CLAIM_LOST, SHUTDOWN } from '../engine/shutdown.js';
import { staleClaim } from '../persistence/stale-claim.js';
import { fenceOf } from '../engine/thread-claims.js';
import { VariableScopes } from '../engine/variable-scopes.js';
import type { EventBus } from '../events/event-bus.js';
import type { Frame, ICheckpointStore, ThreadRecord } from '../persistence/checkpoint-store.js';
import type { WorkflowRegistry } from '../workflow/workflow-registry.js';

/**
 * Runs the node under a thread's cursor, moves the cursor, and checkpoints after every
 * node, until the thread ends or waits for a person. Each node type is run by its own
 * multi-injected executor (F2, F36).
 */
@injectable()
export class NodeExecutionCoordinator {
  private readonly executors: ReadonlyMap<NodeType, INodeExecutor>;

  constructor(
    @multiInject(TYPES.NodeExecutor) executors: INodeExecutor[],
    @inject(TYPES.WorkflowRegistry) private readonly workflows: WorkflowRegistry,
    @inject(TYPES.CheckpointStore) private readonly store: ICheckpointStore,
    @inject(TYPES.EventBus) private readonly bus: EventBus,
    @inject(TYPES.Clock) private readonly clock: Clock,
  ) {
    this.executors = new Map(executors.map((executor) => [executor.type, executor]));
  }

  /** What each thread's last checkpoint stored (see checkpointIfChanged). */
  private readonly saved = new WeakMap<ThreadRecord, string>();
  /** Threads with progress the next checkpoint saves (NodeExecutionContext.checkpointLater). */
  private readonly unsaved = new WeakSet<ThreadRecord>();
  /** Answers applied to each thread, marked processed once a checkpoint holds them (NodeExecutionContext.answerApplied). */
  private readonly applied = new WeakMap<ThreadRecord, string[]>();

  /** A workflow's global variables; a workflow that declares none reads nothing. */
  private async globalsOf(workflow: WorkflowDefinition): Promise<Record<string, unknown>> {
    return workflow.variables.some((variable) => variable.scope === 'global')
      ? this.store.getGlobalVariables(workflow.id)
      : {};
  }

  /** Publishes an event of this thread. */
  emit(thread: ThreadRecord, event: EmittedEvent): void {
    this.bus.publish({
      ...event,
      threadId: thread.threadId,
      workflowId: thread.workflowId,
      timestamp: new Date(this.clock.now()).toISOString(),
    });
  }

  /** Runs the thread (mutating the working copy given) until it ends or waits. */
  async run(thread: ThreadRecord, signal: AbortSignal): Promise<ThreadRecord> {
    const root = this.workflows.get(thread.workflowId);
    for (;;) {
      if (signal.aborted && thread.pendingInteractionIds.length === 0) {
        if (signal.reason === CLAIM_LOST) throw staleClaim(fenceOf(thread));
        if (signal.reason === SHUTDOWN) return this.saveUnsaved(thread);
        return this.finish(thread, 'cancelled', typeof signal.reason === 'string' ? signal.reason : undefined);
      }
      const frame = currentFrame(thread);
      const workflow = this.workflows.get(frame.workflowId);
      if (frame.cursor === null) throw new InterlockError('INTERNAL', `thread ${thread.threadId} has no node to run`);
      const node = findNode(workflow, frame.cursor);
      const active = thread.activeNode;
      const resuming = active !== null && active.workflowId === workflow.id && active.nodeId === node.id;
      try {
        if (!resuming) {
          if (thread.steps >= root.config.maxSteps) {
            throw new InterlockError(
              'MAX_STEPS_EXCEEDED',
              `thread ran ${thread.steps} nodes, the limit of workflow "${root.id}" (config.maxSteps): check for a cycle that never exits, or raise maxSteps`,
            );
          }
          thread.steps += 1;
          thread.activeNode = { workflowId: workflow.id, nodeId: node.id, state: null };
          this.emit(thread, { type: 'NODE_STARTED', nodeId: node.id, nodeType: node.type });
        }
        const outcome = await this.executeNode(thread, frame, workflow, node, signal);
        const done = await this.advance(thread, frame, workflow, node, outcome);
        if (done) return thread;
      } catch (error) {
        // A model call or tool aborted by cancel/close is not a failure of the thread.
        if (signal.aborted) {
          if (signal.reason === CLAIM_LOST) throw staleClaim(fenceOf(thread));
          if (signal.reason === SHUTDOWN) return this.saveUnsaved(thread);
          return this.finish(thread, 'cancelled', typeof signal.reason === 'string' ? signal.reason : undefined);
        }
        const failure = toInterlockError(error);
        // The store refused or failed: the thread stays as last saved, resumable; this run stops.
        if (failure.code === 'STORE_CONFLICT' || failure.code === 'STORE_UNAVAILABLE') throw failure;
        const threadError = { code: failure.code, message: failure.message, nodeId: node.id };
        this.emit(thread, { type: 'NODE_FAILED', nodeId: node.id, nodeType: node.type, error: threadError });
        thread.error = threadError;
        return this.finish(thread, 'failed');
      }
    }
  }

  private async executeNode(
    thread: ThreadRecord,
    frame: Frame,
    workflow: WorkflowDefinition,
    node: WorkflowNode,
    signal: AbortSignal,
  ): Promise<NodeOutcome> {
    const executor = this.executors.get(node.type);
    if (!executor) {
      throw new InterlockError(
        'NODE_NOT_SUPPORTED',
        `no executor is registered for ${node.type} nodes (node "${node.id}")`,
      );
    }
    const scopes = new VariableScopes(thread, frame, workflow, await this.globalsOf(workflow));
    const context: NodeExecutionContext = {
      thread,
      frame,
      workflow,
      scopes,
      signal,
      emit: (event) => this.emit(thread, event),
      checkpoint: () => this.checkpoint(thread),
      checkpointLater: () => this.unsaved.add(thread),
      answerApplied: (interactionId) => {
        this.applied.set(thread, [...(this.applied.get(thread) ?? []), interactionId]);
      },
      // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-parameters -- NodeExecutionContext's signature
      nodeState: <State>() => (thread.activeNode?.state ?? undefined) as State | undefined,
      setNodeState: (state) => {
        thread.activeNode = { workflowId: workflow.id, nodeId: node.id, state };
      },
    };
    const outcome = await executor.execute(node, context);
    if (Object.keys(scopes.globalWrites).length > 0)
      await this.store.setGlobalVariables(workflow.id, scopes.globalWrites);
    return outcome;
  }

  /** Applies a node's outcome; returns true when the run stops here. */
  private async advance(
    thread: ThreadRecord,
    frame: Frame,
    workflow: WorkflowDefinition,
    node: WorkflowNode,
    outcome: NodeOutcome,
  ): Promise<boolean> {
    if (outcome.kind !== 'suspend') thread.activeNode = null;
    switch (outcome.kind) {
      case 'suspend':
        thread.status = 'waiting';
        await this.checkpointIfChanged(thread);
        this.emit(thread, { type: 'THREAD_SUSPENDED', interactionIds: outcome.interactionIds });
        return true;
      case 'cancelled':
        await this.finish(thread, 'cancelled', outcome.reason);
        return true;
      case 'enter':
        await this.checkpoint(thread);
        return false;
      case 'next': {
        const next = outcome.next ?? edgeTarget(workflow, node.id);
        frame.cursor = next;
        this.emit(thread, { type: 'NODE_COMPLETED', nodeId: node.id, nodeType: node.type, next });
        // Saved with the next checkpoint. A crash before it runs this node again: a model is
        // asked again (nobody saw its answer), nothing a person said or a tool did is lost.
        this.unsaved.add(thread);
        if (isArmed('node:checkpointed')) await this.checkpoint(thread);
        await failpointAfterCommit('node:checkpointed', this.store);
        return false;
      }
      case 'end':
        this.emit(thread, { type: 'NODE_COMPLETED', nodeId: node.id, nodeType: node.type, next: null });
        frame.cursor = null;
        if (thread.frames.length > 1) {
          await this.returnFromSubgraph(thread, workflow);
          return false;
        }
        thread.output = outcome.output;
        await this.finish(thread, 'completed');
        return true;
    }
  }

  /** Pops a finished child frame, maps its outputs into the parent, and moves the parent on. */
  private async returnFromSubgraph(thread: ThreadRecord, childWorkflow: WorkflowDefinition): Promise<void> {
    const child = currentFrame(thread);
    thread.frames.pop();
    const parent = currentFrame(thread);
    const parentWorkflow = this.workflows.get(parent.workflowId);
    const subgraphNode = findNode(parentWorkflow, child.parentNodeId ?? '');
    if (subgraphNode.type !== 'SUBGRAPH')
      throw new InterlockError('INTERNAL', `node "${subgraphNode.id}" is not a SUBGRAPH`);
    const childVariables = new VariableScopes(thread, child, childWorkflow, await this.globalsOf(childWorkflow)).all();
    const parentScopes = new VariableScopes(thread, parent, parentWorkflow, await this.globalsOf(parentWorkflow));
    for (const [name, template] of Object.entries(subgraphNode.config.output)) {
      parentScopes.set(name, renderTemplate(template, childVariables));
    }
    if (Object.keys(parentScopes.globalWrites).length > 0) {
      await this.store.setGlobalVariables(parentWorkflow.id, parentScopes.globalWrites);
    }
    const next = edgeTarget(parentWorkflow, subgraphNode.id);
    parent.cursor = next;
    this.emit(thread, { type: 'NODE_COMPLETED', nodeId: subgraphNode.id, nodeType: subgraphNode.type, next });
    await this.checkpoint(thread);
  }

  private async finish(
    thread: ThreadRecord,
    status: 'completed' | 'failed' | 'cancelled',
    reason?: string,
  ): Promise<ThreadRecord> {
    thread.status = status;
    thread.pendingInteractionIds = [];
    thread.activeNode = null;
    await this.checkpoint(thread);
    if (status === 'completed') {
      this.emit(thread, { type: 'THREAD_COMPLETED', output: thread.output ?? null, variables: thread.variables });
    } else if (status === 'failed') {
      this.emit(thread, {
        type: 'THREAD_FAILED',
        error: thread.error ?? { code: 'INTERNAL', message: 'unknown failure' },
      });
    } else {
      this.emit(thread, { type: 'THREAD_CANCELLED', ...(reason === undefined ? {} : { reason }) });
    }
    return thread;
  }

  /** Saves the working copy; the store bumps its version (a stale writer gets STORE_CONFLICT). */
  async checkpoint(thread: ThreadRecord): Promise<void> {
    // An applied answer is consumed with the save that holds its effect, in one transaction:
    // apart, a crash between the two would leave it lost or unaccounted for.
    const applied = this.applied.get(thread) ?? [];
    const saved = await this.store.saveThread(thread, applied);
    this.applied.delete(thread);
    thread.version = saved.version;
    thread.updatedAt = saved.updatedAt;
    // Only a waiting thread's checkpoint can be followed by a suspension that changes nothing.
    if (thread.status === 'waiting') this.saved.set(thread, fingerprintOf(thread));
    else this.saved.delete(thread);
    this.unsaved.delete(thread);
  }

  /** Saves progress marked for the next checkpoint, if any (a run that stops for a shutdown). */
  private async saveUnsaved(thread: ThreadRecord): Promise<ThreadRecord> {
    if (this.unsaved.has(thread)) await this.checkpoint(thread);
    return thread;
  }

  /** Checkpoints the thread unless nothing changed since its last checkpoint (a wait opened just before). */
  private async checkpointIfChanged(thread: ThreadRecord): Promise<void> {
    if (this.unsaved.has(thread) || this.saved.get(thread) !== fingerprintOf(thread)) await this.checkpoint(thread);
  }
}

/** What a checkpoint stores, minus its version: equal fingerprints, nothing to save. */
function fingerprintOf(thread: ThreadRecord): string {
  const { conversation, version: _version, updatedAt: _updatedAt, ...rest } = thread;
  return JSON.stringify([rest, conversation.length, conversation.at(-1)]);
}

function currentFrame(thread: ThreadRecord): Frame {
  const frame = thread.frames.at(-1);
  if (!frame) throw new InterlockError('INTERNAL', `thread ${thread.threadId} has no workflow frame`);
  return frame;
}
