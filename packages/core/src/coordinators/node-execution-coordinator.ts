import { inject, injectable, multiInject } from 'inversify';
import type { NodeType, WorkflowDefinition, WorkflowNode } from '@interlock/sdk-types';
import { TYPES } from '../di/tokens.js';
import { InterlockError, isStoreFailure, toInterlockError } from '../errors/interlock-error.js';
import { renderTemplate } from '../expressions/expressions.js';
import { isoTime, type Clock } from '../engine/clock.js';
import { edgeTarget, findNode } from '../engine/graph.js';
import type { EmittedEvent, INodeExecutor, NodeExecutionContext, NodeOutcome } from '../engine/node-executor.js';
import { failpoint, isArmed } from '../engine/failpoints.js';
import type { Run } from '../engine/run.js';
import { conflictOf } from '../engine/run-store.js';
import { CLAIM_LOST, SHUTDOWN } from '../engine/shutdown.js';
import { lostClaim } from '../persistence/stale-claim.js';
import { combineEffects, type Effects, type Step } from '../engine/step.js';
import { currentFrame, finishThread, moveCursor, popFrame, startNode, suspend } from '../engine/transitions.js';
import { VariableScopes } from '../engine/variable-scopes.js';
import type { EventBus } from '../events/event-bus.js';
import type { ICheckpointStore, ThreadRecord } from '../persistence/checkpoint-store.js';
import type { RunTelemetry } from '../telemetry/run-telemetry.js';
import type { WorkflowRegistry } from '../workflow/workflow-registry.js';

/** How often a completion is computed again after other threads changed the globals it writes. */
const MAX_GLOBAL_RETRIES = 100;

/**
 * Runs the node under a thread's cursor and moves the cursor, step by step, until the
 * thread ends or waits for a person. Each node type is run by its own multi-injected
 * executor (F2, F36); each change of the thread is a step applied to the run (engine/run.ts),
 * which commits at the durability points: the run stops with its last commit.
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
    @inject(TYPES.RunTelemetry) private readonly telemetry: RunTelemetry,
  ) {
    this.executors = new Map(executors.map((executor) => [executor.type, executor]));
  }

  /** A workflow's global variables as stored; a workflow that declares none reads nothing. */
  private async globalsOf(workflow: WorkflowDefinition): Promise<Record<string, unknown>> {
    return workflow.variables.some((variable) => variable.scope === 'global')
      ? this.store.getGlobalVariables(workflow.id)
      : {};
  }

  /** Publishes an event of this thread. */
  emit(thread: ThreadRecord, event: EmittedEvent): void {
    const published = {
      ...event,
      threadId: thread.threadId,
      workflowId: thread.workflowId,
      timestamp: isoTime(this.clock.now()),
    };
    // Spans and metrics hang off the run's events (F59).
    this.telemetry.observe(thread, published);
    this.bus.publish(published);
  }

  /** Runs the thread until it ends or waits; the run's last commit releases its claim. Traced as one span (F59). */
  async run(run: Run, signal: AbortSignal): Promise<ThreadRecord> {
    const traced = this.telemetry.runStarted(run);
    try {
      const final = await this.runToStop(run, signal);
      traced.end(final);
      return final;
    } catch (error) {
      traced.end(undefined, error);
      throw error;
    }
  }

  private async runToStop(run: Run, signal: AbortSignal): Promise<ThreadRecord> {
    const root = this.workflows.get(run.thread.workflowId);
    for (;;) {
      if (signal.aborted && run.thread.pendingInteractionIds.length === 0) return this.stopped(run, signal);
      const thread = run.thread;
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
          await run.apply({
            next: startNode(thread, workflow.id, node.id),
            effects: { events: [{ type: 'NODE_STARTED', nodeId: node.id, nodeType: node.type }] },
          });
        }
        const scopes = new VariableScopes(
          run.thread,
          currentFrame(run.thread),
          workflow,
          await this.globalsOf(workflow),
        );
        const outcome = await this.executeNode(run, workflow, node, scopes, signal);
        if (await this.advance(run, workflow, node, outcome, scopes)) return run.thread;
      } catch (error) {
        // A model call or tool aborted by cancel/close is not a failure of the thread.
        if (signal.aborted) return this.stopped(run, signal);
        const failure = toInterlockError(error);
        // The store refused or failed: the thread stays as last committed, resumable; this run stops.
        if (failure.code === 'STORE_CONFLICT' || isStoreFailure(failure)) throw failure;
        const threadError = { code: failure.code, message: failure.message, nodeId: node.id };
        await this.finish(run, run.thread, 'failed', { error: threadError }, [
          { type: 'NODE_FAILED', nodeId: node.id, nodeType: node.type, error: threadError },
        ]);
        return run.thread;
      }
    }
  }

  private async executeNode(
    run: Run,
    workflow: WorkflowDefinition,
    node: WorkflowNode,
    scopes: VariableScopes,
    signal: AbortSignal,
  ): Promise<NodeOutcome> {
    const executor = this.executors.get(node.type);
    if (!executor) {
      throw new InterlockError(
        'NODE_NOT_SUPPORTED',
        `no executor is registered for ${node.type} nodes (node "${node.id}")`,
      );
    }
    const context: NodeExecutionContext = {
      get thread() {
        return run.thread;
      },
      get frame() {
        return currentFrame(run.thread);
      },
      get fence() {
        return run.fence;
      },
      workflow,
      scopes,
      signal,
      run,
      emit: (event) => this.emit(run.thread, event),
      apply: (step) => run.apply(step),
      // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-parameters -- NodeExecutionContext's signature
      nodeState: <State>() => (run.thread.activeNode?.state ?? undefined) as State | undefined,
    };
    return executor.execute(node, context);
  }

  /** Applies a node's outcome; returns true when the run stops here. */
  private async advance(
    run: Run,
    workflow: WorkflowDefinition,
    node: WorkflowNode,
    outcome: NodeOutcome,
    scopes: VariableScopes,
  ): Promise<boolean> {
    switch (outcome.kind) {
      case 'suspend':
        await this.stop(run, {
          next: suspend(run.thread),
          effects: { events: [{ type: 'THREAD_SUSPENDED', interactionIds: outcome.interactionIds }] },
        });
        return true;
      case 'cancelled':
        await this.finish(run, run.thread, 'cancelled', {}, [], outcome.reason);
        return true;
      case 'enter':
        return false;
      case 'next': {
        const next = outcome.next ?? edgeTarget(workflow, node.id);
        await this.complete(run, workflow, scopes, (scopes) => {
          const done = outcome.complete?.(scopes) ?? {};
          return {
            next: (done.update ?? identity)(run.thread),
            effects: combineEffects(done.effects, {
              events: [{ type: 'NODE_COMPLETED', nodeId: node.id, nodeType: node.type, next }],
            }),
            cursor: next,
          };
        });
        // Crash tests kill the process here: with the completion applied and not committed
        // (`outcome.failpoint`), or committed (node:checkpointed).
        if (outcome.failpoint !== undefined) failpoint(outcome.failpoint);
        if (isArmed('node:checkpointed')) {
          await run.commit();
          failpoint('node:checkpointed');
        }
        return false;
      }
      case 'end': {
        if (run.thread.frames.length > 1) {
          await this.returnFromSubgraph(run, workflow, node);
          return false;
        }
        await this.finish(run, moveCursor(run.thread, null), 'completed', { output: outcome.output }, [
          { type: 'NODE_COMPLETED', nodeId: node.id, nodeType: node.type, next: null },
        ]);
        return true;
      }
    }
  }

  /**
   * Applies a node's completion: its variable writes, the cursor moved on, its effects. A
   * completion that writes global variables is a durability point whose writes are
   * compare-and-set: when another thread changed one of them since it was read, the
   * globals are read again and the completion computed again (F3).
   */
  private async complete(
    run: Run,
    workflow: WorkflowDefinition,
    scopes: VariableScopes,
    compute: (scopes: VariableScopes) => Step & { cursor: string | null },
  ): Promise<void> {
    const before = run.thread;
    const pending = run.pendingEffects;
    const mark = scopes.mark();
    for (let attempt = 1; ; attempt += 1) {
      const { next, effects, cursor } = compute(scopes);
      const written = scopes.writeTo(next, workflow.id);
      const durable: Effects = written.globals.length > 0 ? { globals: written.globals, durable: 'now' } : {};
      try {
        await run.apply({ next: moveCursor(written.next, cursor), effects: combineEffects(effects, durable) });
        return;
      } catch (error) {
        if (conflictOf(error)?.kind !== 'global-changed' || attempt >= MAX_GLOBAL_RETRIES) throw error;
        run.reset(before, pending);
        scopes.refresh(await this.globalsOf(workflow), mark);
      }
    }
  }

  /** Pops a finished child frame, maps its outputs into the parent, and moves the parent on. */
  private async returnFromSubgraph(run: Run, childWorkflow: WorkflowDefinition, endNode: WorkflowNode): Promise<void> {
    const child = currentFrame(run.thread);
    const childVariables = new VariableScopes(
      run.thread,
      child,
      childWorkflow,
      await this.globalsOf(childWorkflow),
    ).all();
    await run.apply({
      next: popFrame(moveCursor(run.thread, null)),
      effects: { events: [{ type: 'NODE_COMPLETED', nodeId: endNode.id, nodeType: endNode.type, next: null }] },
    });
    const parent = currentFrame(run.thread);
    const parentWorkflow = this.workflows.get(parent.workflowId);
    const subgraphNode = findNode(parentWorkflow, child.parentNodeId ?? '');
    if (subgraphNode.type !== 'SUBGRAPH')
      throw new InterlockError('INTERNAL', `node "${subgraphNode.id}" is not a SUBGRAPH`);
    const scopes = new VariableScopes(run.thread, parent, parentWorkflow, await this.globalsOf(parentWorkflow));
    const next = edgeTarget(parentWorkflow, subgraphNode.id);
    await this.complete(run, parentWorkflow, scopes, (scopes) => {
      for (const [name, template] of Object.entries(subgraphNode.config.output))
        scopes.set(name, renderTemplate(template, childVariables));
      return {
        next: run.thread,
        effects: {
          events: [{ type: 'NODE_COMPLETED', nodeId: subgraphNode.id, nodeType: subgraphNode.type, next }],
        },
        cursor: next,
      };
    });
  }

  /** Ends the thread: its last step, committed with the claim released, then its events. */
  private async finish(
    run: Run,
    thread: ThreadRecord,
    status: 'completed' | 'failed' | 'cancelled',
    outcome: Parameters<typeof finishThread>[2],
    before: EmittedEvent[],
    reason?: string,
  ): Promise<void> {
    const next = finishThread(thread, status, outcome);
    const end: EmittedEvent =
      status === 'completed'
        ? { type: 'THREAD_COMPLETED', output: next.output ?? null, variables: next.variables }
        : status === 'failed'
          ? { type: 'THREAD_FAILED', error: next.error ?? { code: 'INTERNAL', message: 'unknown failure' } }
          : { type: 'THREAD_CANCELLED', ...(reason === undefined ? {} : { reason }) };
    await this.stop(run, { next, effects: { events: [...before, end] } });
  }

  /** The run's last step: committed with the claim released, then its events published. */
  private async stop(run: Run, step: Step): Promise<void> {
    await run.apply({ next: step.next, effects: { ...step.effects, events: [] } });
    await run.commit({ release: true });
    for (const event of step.effects?.events ?? []) this.emit(run.thread, event);
  }

  /** The run was stopped from outside: by closing the process, losing the claim, or cancelling the thread. */
  private async stopped(run: Run, signal: AbortSignal): Promise<ThreadRecord> {
    if (signal.reason === CLAIM_LOST) throw lostClaim(run.fence);
    if (signal.reason === SHUTDOWN) {
      await run.commit({ release: true });
      return run.thread;
    }
    await this.finish(
      run,
      run.thread,
      'cancelled',
      {},
      [],
      typeof signal.reason === 'string' ? signal.reason : undefined,
    );
    return run.thread;
  }
}

function identity<T>(value: T): T {
  return value;
}
