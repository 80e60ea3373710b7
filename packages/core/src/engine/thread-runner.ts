import { randomUUID } from 'node:crypto';
import { inject, injectable } from 'inversify';
import { ReplaySubject, type Subscription } from 'rxjs';
import type { InterlockEvent, UserInteractionRequest, WorkflowDefinition } from '@interlock/sdk-types';
import type { NodeExecutionCoordinator } from '../coordinators/node-execution-coordinator.js';
import { TYPES } from '../di/tokens.js';
import { InterlockError } from '../errors/interlock-error.js';
import type { EventBus } from '../events/event-bus.js';
import type { ResponseInterpreter } from '../interaction/response-interpreter.js';
import type { InteractionResponses } from '../interaction/interaction-responses.js';
import type { ICheckpointStore, InteractionRecord, ThreadRecord } from '../persistence/checkpoint-store.js';
import type { WorkflowRegistry } from '../workflow/workflow-registry.js';
import { timerUntil, type Clock } from './clock.js';
import { startNodeId } from './graph.js';
import { durable, failpointAfterCommit } from './durability.js';
import { SHUTDOWN } from './shutdown.js';
import type { ThreadHandle } from './thread-handle.js';
import type { ThreadLeases } from './thread-leases.js';
import { outcomeOf, type ThreadOutcome } from './thread-outcome.js';
import { defaultsOf } from './variable-scopes.js';

export interface StartOptions {
  /** Initial values of declared thread or subgraph variables. */
  input?: Record<string, unknown>;
  /** Which handler answers this thread's interactions; `none` means nobody can. Default `default`. */
  channel?: string;
  threadId?: string;
  /** The session the thread belongs to (defaults: sessionId = threadId); approval requests carry it (F27). */
  session?: { sessionId?: string; chatId?: string; parentThreadId?: string };
}

/** What `respond` did with an answer. */
export type RespondResult =
  /** `thread` is absent when another process is taking the thread forward: it applies the answer. */
  | { status: 'accepted'; threadId: string; thread?: ThreadHandle }
  | { status: 'already_answered'; threadId: string }
  | { status: 'expired'; threadId: string };

interface ActiveRun {
  handle: ThreadHandle;
  controller: AbortController;
  finished: Promise<ThreadOutcome>;
}

/** Starts, resumes, answers and cancels threads; tracks the runs of this process. */
@injectable()
export class ThreadRunner {
  private readonly active = new Map<string, ActiveRun>();
  private readonly deadlines = new Map<string, Subscription>();
  /** Claims under way in this process, by thread (see resumeFrom). */
  private readonly claiming = new Map<string, Promise<ThreadHandle>>();
  /** Workflow definitions (id and version) this process has kept in the store. */
  private readonly kept = new Set<string>();
  private closed = false;

  constructor(
    @inject(TYPES.NodeExecutionCoordinator) private readonly coordinator: NodeExecutionCoordinator,
    @inject(TYPES.WorkflowRegistry) private readonly workflows: WorkflowRegistry,
    @inject(TYPES.CheckpointStore) private readonly store: ICheckpointStore,
    @inject(TYPES.EventBus) private readonly bus: EventBus,
    @inject(TYPES.InteractionResponses) private readonly responses: InteractionResponses,
    @inject(TYPES.ResponseInterpreter) private readonly interpreter: ResponseInterpreter,
    @inject(TYPES.Clock) private readonly clock: Clock,
    @inject(TYPES.ThreadLeases) private readonly leases: ThreadLeases,
  ) {}

  async start(workflow: WorkflowDefinition, options: StartOptions = {}): Promise<ThreadHandle> {
    this.assertOpen();
    const registered = this.workflows.get(workflow.id);
    const input = options.input ?? {};
    const declared = new Map(registered.variables.map((declaration) => [declaration.name, declaration]));
    const variables = defaultsOf(registered, 'thread');
    const frameVariables = defaultsOf(registered, 'subgraph');
    for (const [name, value] of Object.entries(input)) {
      const declaration = declared.get(name);
      if (declaration?.scope === 'thread') variables[name] = value;
      else if (declaration?.scope === 'subgraph') frameVariables[name] = value;
      else {
        throw new InterlockError(
          'VARIABLE_UNDECLARED',
          `input "${name}" is not a declared thread or subgraph variable of workflow "${registered.id}"`,
        );
      }
    }
    await this.store.setGlobalVariables(registered.id, defaultsOf(registered, 'global'), { onlyIfAbsent: true });
    await this.keepWorkflows(registered);
    const now = new Date(this.clock.now()).toISOString();
    const channel = options.channel ?? 'default';
    const threadId = options.threadId ?? randomUUID();
    const thread = await this.store.createThread({
      threadId,
      workflowId: registered.id,
      workflowVersion: registered.version,
      status: 'running',
      channel,
      input,
      frames: [
        {
          workflowId: registered.id,
          workflowVersion: registered.version,
          cursor: startNodeId(registered),
          variables: frameVariables,
          loops: [],
        },
      ],
      variables,
      conversation: [],
      session: {
        sessionId: options.session?.sessionId ?? threadId,
        ...(options.session?.chatId === undefined ? {} : { chatId: options.session.chatId }),
        ...(options.session?.parentThreadId === undefined ? {} : { parentThreadId: options.session.parentThreadId }),
      },
      toolApproval: structuredClone(registered.config.toolApproval),
      pendingInteractionIds: [],
      activeNode: null,
      steps: 0,
      version: 0,
      createdAt: now,
      updatedAt: now,
    });
    return this.launch(thread, () => this.coordinator.emit(thread, { type: 'THREAD_STARTED', input, channel }));
  }

  /** Continues a thread from the store: after a restart, or in another process. */
  async resume(threadId: string): Promise<ThreadHandle> {
    return this.resumeFrom(threadId, undefined);
  }

  /**
   * `resume` from a thread just read (`respond` read it a moment ago). If it changed since,
   * the claim fails and the thread is read again once, so a stale read never leaves an
   * answer unapplied.
   */
  private resumeFrom(threadId: string, read: ThreadRecord | undefined): Promise<ThreadHandle> {
    this.assertOpen();
    const running = this.active.get(threadId);
    if (running) return Promise.resolve(running.handle);
    // Two callers of this process (an answer and a run that just suspended) share one claim.
    const claiming = this.claiming.get(threadId);
    if (claiming) return claiming;
    const claim = this.claimAndLaunch(threadId, read).finally(() => this.claiming.delete(threadId));
    this.claiming.set(threadId, claim);
    return claim;
  }

  private async claimAndLaunch(threadId: string, read: ThreadRecord | undefined): Promise<ThreadHandle> {
    const thread = read ?? (await this.loadThread(threadId));
    if (thread.status !== 'waiting' && thread.status !== 'running') {
      throw new InterlockError('THREAD_NOT_WAITING', `thread ${threadId} is ${thread.status}; only waiting or interrupted threads resume`);
    }
    this.assertNotAskedElsewhere(thread);
    await this.loadWorkflowsOf(thread);
    // Claim the thread: a save at the version read. Another process that claimed it first makes this fail.
    try {
      thread.status = thread.pendingInteractionIds.length === 0 ? 'running' : thread.status;
      const claimed = await this.store.saveThread(thread);
      thread.version = claimed.version;
      thread.updatedAt = claimed.updatedAt;
    } catch (error) {
      if (InterlockError.is(error) && error.code === 'STORE_CONFLICT') {
        if (read !== undefined) return this.claimAndLaunch(threadId, undefined);
        throw new InterlockError('THREAD_BUSY', `thread ${threadId} is being taken forward by another process: try again when it waits`, { cause: error });
      }
      throw error;
    }
    // Only the process that holds the thread retires the questions it never got to ask.
    // (Read by thread, not by status: the thread's few rows, however many others wait.)
    for (const orphan of await this.store.listInteractions({ threadId })) {
      if (orphan.status === 'pending' && !thread.pendingInteractionIds.includes(orphan.interactionId)) await this.retire(orphan.interactionId);
    }
    for (const id of thread.pendingInteractionIds) this.disarm(id);
    const interactionId = thread.pendingInteractionIds[0];
    return this.launch(thread, () =>
      this.coordinator.emit(thread, { type: 'THREAD_RESUMED', ...(interactionId === undefined ? {} : { interactionId }) }),
    );
  }

  /**
   * Answers a pending interaction. The first valid answer wins; a later one gets
   * `already_answered`, one after the deadline gets `expired`, and neither changes anything.
   * An answer the input kind cannot accept throws INTERACTION_INVALID_RESPONSE and the
   * interaction stays pending.
   */
  async respond(interactionId: string, input: unknown, options: { responder?: string } = {}): Promise<RespondResult> {
    this.assertOpen();
    const interaction = await this.store.getInteraction(interactionId);
    if (!interaction) {
      throw new InterlockError('INTERACTION_NOT_FOUND', `no interaction ${interactionId}: list what waits with interlock.pending()`);
    }
    const { threadId } = interaction;
    if (interaction.status === 'failed' && interaction.failureReason === 'timeout') return { status: 'expired', threadId };
    if (interaction.status !== 'pending') return { status: 'already_answered', threadId };
    // A question stored just before a crash, before its thread was checkpointed as waiting
    // on it, is an orphan nobody may answer: the thread asks again when it resumes.
    const thread = await this.store.getThread(threadId);
    if (!thread?.pendingInteractionIds.includes(interactionId)) {
      await this.retire(interaction.interactionId);
      return { status: 'expired', threadId };
    }
    if (interaction.deadline !== null && Date.parse(interaction.deadline) <= this.clock.now()) {
      await this.expire(interaction);
      return { status: 'expired', threadId };
    }
    const value = this.interpreter.interpret(interaction, input);
    const recorded = await this.store.recordResponse(interactionId, {
      input: value,
      ...(options.responder === undefined ? {} : { responder: options.responder }),
      respondedAt: new Date(this.clock.now()).toISOString(),
    });
    if (recorded.status !== 'recorded') return { status: 'already_answered', threadId };
    await failpointAfterCommit('interaction:answer-stored', this.store);
    this.disarm(interactionId);
    const running = this.active.get(threadId);
    if (running) {
      this.responses.notify(interactionId);
      await durable(this.store, 'soon');
      return { status: 'accepted', threadId, thread: running.handle };
    }
    // A process asking about this thread right now polls the store and takes it forward;
    // if it died instead, its lease runs out and this process does. (The thread as read
    // before the answer was stored will do: a lease freed since then only means a resume
    // here that may find the thread busy, and a lease seen is read again while waiting.)
    let leased = false;
    if (this.leases.heldElsewhere(thread)) {
      await durable(this.store);
      if (await this.leases.pickedUpElsewhere(threadId, interactionId)) return { status: 'accepted', threadId };
      leased = true;
    }
    // The answer is acknowledged once durable: with the resumed run's first commit when it
    // comes in this event-loop turn (before its tool runs), else at the end of the turn.
    let result: RespondResult;
    try {
      // The read shows a lease that has ended since: read the thread again.
      result = { status: 'accepted', threadId, thread: await this.resumeFrom(threadId, leased ? undefined : thread) };
    } catch (error) {
      if (!InterlockError.is(error) || error.code !== 'THREAD_BUSY') throw error;
      result = { status: 'accepted', threadId };
    }
    await durable(this.store, 'soon');
    return result;
  }

  /** Cancels a thread, running here or waiting in the store. */
  async cancel(threadId: string, reason = 'cancelled by the user'): Promise<void> {
    const running = this.active.get(threadId);
    if (running) {
      running.controller.abort(reason);
      await running.finished;
      return;
    }
    const thread = await this.loadThread(threadId);
    if (thread.status !== 'waiting' && thread.status !== 'running') return;
    this.assertNotAskedElsewhere(thread);
    for (const id of thread.pendingInteractionIds) {
      this.disarm(id);
      await this.store.failInteraction(id, 'cancelled', reason);
    }
    const controller = new AbortController();
    controller.abort(reason);
    await this.launch(thread, () => undefined, controller).done();
  }

  /**
   * Deadlines are absolute times in the store: an interaction whose deadline passed while no
   * process ran is timed out (a tool call it asked about is denied). Its thread reports it
   * when it next resumes. Returns how many were timed out.
   */
  async expireOverdue(): Promise<number> {
    const now = this.clock.now();
    let expired = 0;
    for (const interaction of await this.store.listInteractions({ status: 'pending' })) {
      if (interaction.deadline === null || Date.parse(interaction.deadline) > now) continue;
      if (await this.store.failInteraction(interaction.interactionId, 'timeout', 'nobody answered before the deadline')) expired += 1;
    }
    if (expired > 0) await durable(this.store);
    return expired;
  }

  /** Every interaction waiting for an answer, oldest first. */
  async pending(): Promise<UserInteractionRequest[]> {
    const interactions = await this.store.listInteractions({ status: 'pending' });
    const asked: InteractionRecord[] = [];
    const threads = new Map<string, Promise<ThreadRecord | undefined>>();
    for (const interaction of interactions) {
      if (!threads.has(interaction.threadId)) threads.set(interaction.threadId, this.store.getThread(interaction.threadId));
      const thread = await threads.get(interaction.threadId);
      if (thread?.pendingInteractionIds.includes(interaction.interactionId)) asked.push(interaction);
    }
    return asked.sort((a, b) => a.createdAt.localeCompare(b.createdAt)).map((interaction) => interaction.request);
  }

  private async retire(interactionId: string): Promise<void> {
    await this.store.failInteraction(interactionId, 'cancelled', 'superseded: the process stopped before the thread asked this, and it asked again');
  }

  /** Stops every run of this process without cancelling threads: they stay resumable. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const subscription of this.deadlines.values()) subscription.unsubscribe();
    this.deadlines.clear();
    const runs = [...this.active.values()];
    for (const run of runs) run.controller.abort(SHUTDOWN);
    await Promise.allSettled(runs.map((run) => run.finished));
  }

  get activeRuns(): number {
    return this.active.size;
  }

  get armedDeadlines(): number {
    return this.deadlines.size;
  }

  private launch(thread: ThreadRecord, announce: () => void, controller = new AbortController()): ThreadHandle {
    const { threadId } = thread;
    const events = new ReplaySubject<InterlockEvent>();
    const subscription = this.bus.thread$(threadId).subscribe(events);
    const end = () => {
      subscription.unsubscribe();
      this.active.delete(threadId);
    };
    const finished = Promise.resolve()
      .then(() => {
        announce();
        thread.status = thread.pendingInteractionIds.length === 0 ? 'running' : thread.status;
        return this.coordinator.run(thread, controller.signal);
      })
      .then(async (final) => {
        // A run that stops leaves its state durable before anyone hears how it ended.
        await durable(this.store);
        return final;
      })
      .then(
        async (final): Promise<ThreadOutcome> => {
          end();
          const outcome = outcomeOf(final);
          const next = await this.afterRun(outcome);
          if (!next) {
            events.complete();
            return outcome;
          }
          // An answer arrived while this run was suspending: the handle follows the run that continues.
          next.events$.subscribe(events);
          return next.done();
        },
        (error: unknown) => {
          end();
          events.complete();
          throw error;
        },
      );
    const handle: ThreadHandle = {
      threadId,
      events$: events.asObservable(),
      done: () => finished,
      cancel: (reason) => this.cancel(threadId, reason),
    };
    this.active.set(threadId, { handle, controller, finished });
    return handle;
  }

  /**
   * A thread that now waits durably: if an answer raced the suspension, continue it at once
   * (returns the new run); otherwise arm its deadlines.
   */
  private async afterRun(outcome: ThreadOutcome): Promise<ThreadHandle | undefined> {
    if (outcome.status !== 'waiting' || this.closed) return undefined;
    const interactions = [];
    for (const interactionId of outcome.pendingInteractionIds) {
      const interaction = await this.store.getInteraction(interactionId);
      if (interaction?.status === 'pending') interactions.push(interaction);
      else if (interaction) return this.continueAnswered(outcome.threadId);
    }
    for (const interaction of interactions) this.arm(interaction);
    return undefined;
  }

  /**
   * Continues a thread whose answer arrived while its run suspended. If another process
   * claimed it first, that process applies the answer: this run ends as it was (waiting).
   */
  private async continueAnswered(threadId: string): Promise<ThreadHandle | undefined> {
    try {
      return await this.resume(threadId);
    } catch (error) {
      if (InterlockError.is(error) && error.code === 'THREAD_BUSY') return this.active.get(threadId)?.handle;
      throw error;
    }
  }

  private arm(interaction: InteractionRecord): void {
    if (interaction.deadline === null || this.deadlines.has(interaction.interactionId)) return;
    const subscription = timerUntil(Date.parse(interaction.deadline), this.clock).subscribe(() => {
      this.deadlines.delete(interaction.interactionId);
      void this.expire(interaction).catch(() => undefined);
    });
    this.deadlines.set(interaction.interactionId, subscription);
  }

  private disarm(interactionId: string | null): void {
    if (interactionId === null) return;
    this.deadlines.get(interactionId)?.unsubscribe();
    this.deadlines.delete(interactionId);
  }

  /** Times out a durable wait: the thread resumes and fails the interaction with reason `timeout`. */
  private async expire(interaction: InteractionRecord): Promise<void> {
    this.disarm(interaction.interactionId);
    const failed = await this.store.failInteraction(interaction.interactionId, 'timeout', 'nobody answered before the deadline');
    if (failed && !this.active.has(interaction.threadId) && !this.closed) await this.resume(interaction.threadId);
  }

  /**
   * Makes sure every workflow a thread runs is loaded at the version it was checkpointed
   * with: from this process's registry, else from the definitions kept in the store.
   */
  private async loadWorkflowsOf(thread: ThreadRecord): Promise<void> {
    for (const frame of thread.frames) {
      let workflow = this.workflows.find(frame.workflowId);
      if (!workflow) {
        const kept = await this.store.getWorkflowDefinition(frame.workflowId, frame.workflowVersion);
        if (!kept) {
          throw new InterlockError(
            'WORKFLOW_NOT_FOUND',
            `workflow "${frame.workflowId}" version ${frame.workflowVersion} of thread ${thread.threadId} is neither loaded nor kept in the store: load it with interlock.loadWorkflow(path)`,
          );
        }
        workflow = this.workflows.register(kept, `the stored definition of workflow "${frame.workflowId}"`);
      }
      if (workflow.version !== frame.workflowVersion) {
        throw new InterlockError(
          'WORKFLOW_VERSION_MISMATCH',
          `thread ${thread.threadId} was checkpointed with workflow "${workflow.id}" version ${frame.workflowVersion}, but version ${workflow.version} is loaded: load the matching version to resume it`,
        );
      }
    }
  }

  /** Keeps the definitions a thread may run (the workflow and the SUBGRAPHs it reaches) in the store. */
  private async keepWorkflows(workflow: WorkflowDefinition, seen = new Set<string>()): Promise<void> {
    if (seen.has(workflow.id)) return;
    seen.add(workflow.id);
    const key = `${workflow.id}\u0000${workflow.version}`;
    if (!this.kept.has(key)) {
      await this.store.saveWorkflowDefinition(workflow);
      this.kept.add(key);
    }
    for (const node of workflow.nodes) {
      if (node.type === 'SUBGRAPH') await this.keepWorkflows(this.workflows.get(node.config.workflow), seen);
    }
  }

  private assertNotAskedElsewhere(thread: ThreadRecord): void {
    if (!this.leases.heldElsewhere(thread)) return;
    throw new InterlockError(
      'THREAD_BUSY',
      `thread ${thread.threadId} is being asked about in another process right now: answer it with respond(), or try again once that process stops (its lease runs until ${thread.lease?.until})`,
    );
  }

  private async loadThread(threadId: string): Promise<ThreadRecord> {
    const thread = await this.store.getThread(threadId);
    if (!thread) throw new InterlockError('THREAD_NOT_FOUND', `no thread ${threadId} in the store`);
    return thread;
  }

  private assertOpen(): void {
    if (this.closed) throw new InterlockError('INVALID_OPTIONS', 'this Interlock instance is closed: create a new one');
  }
}
