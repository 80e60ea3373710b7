import { inject, injectable } from 'inversify';
import type { UserInteractionRequest, WorkflowDefinition } from '@interlock/sdk-types';
import type { NodeExecutionCoordinator } from '../coordinators/node-execution-coordinator.js';
import { TYPES } from '../di/tokens.js';
import { InterlockError, isStoreFailure, toInterlockError } from '../errors/interlock-error.js';
import type { EventBus } from '../events/event-bus.js';
import type { InteractionResponses } from '../interaction/interaction-responses.js';
import type { ResponseInterpreter } from '../interaction/response-interpreter.js';
import type { ICheckpointStore, InteractionRecord, ThreadRecord } from '../persistence/checkpoint-store.js';
import type { JobPlanner } from '../workers/job-planner.js';
import type { WorkflowRegistry } from '../workflow/workflow-registry.js';
import { continuationOfApplied } from '../interaction/answer-checks.js';
import { AnswerIntake } from './answer-intake.js';
import type { Clock } from './clock.js';
import { DeadlineTimers } from './deadline-timers.js';
import { durable } from './durability.js';
import { newThreadRecord, type StartOptions } from './new-thread.js';
import type { ThreadClaims } from './thread-claims.js';
import { ThreadDefinitions } from './thread-definitions.js';
import { scheduledHandle, type ThreadHandle } from './thread-handle.js';
import type { ThreadOutcome } from './thread-outcome.js';
import { ThreadRuns } from './thread-runs.js';
import { defaultsOf } from './variable-scopes.js';

export type { StartOptions } from './new-thread.js';

import type { Continuation, RespondResult } from './respond-result.js';

export type { Continuation, RespondResult } from './respond-result.js';

type Accepted = Extract<RespondResult, { status: 'accepted' }>;

/**
 * Starts, resumes, answers and cancels threads (the facade of the run loop): a new thread
 * is built by `newThreadRecord`, stored claimed by this process and run by `ThreadRuns`;
 * a stored one is claimed first (`claim`); an answer is taken in by `AnswerIntake` and then
 * continues its thread here, elsewhere or in a worker; deadlines of durable waits are
 * `DeadlineTimers`.
 */
@injectable()
export class ThreadRunner {
  /** Claims under way in this process, by thread (see resumeFrom). */
  private readonly claiming = new Map<string, Promise<ThreadHandle>>();
  private readonly definitions: ThreadDefinitions;
  private readonly timers: DeadlineTimers;
  private readonly intake: AnswerIntake;
  private readonly runs: ThreadRuns;
  private closed = false;

  constructor(
    @inject(TYPES.NodeExecutionCoordinator) private readonly coordinator: NodeExecutionCoordinator,
    @inject(TYPES.WorkflowRegistry) private readonly workflows: WorkflowRegistry,
    @inject(TYPES.CheckpointStore) private readonly store: ICheckpointStore,
    @inject(TYPES.EventBus) bus: EventBus,
    @inject(TYPES.InteractionResponses) private readonly responses: InteractionResponses,
    @inject(TYPES.ResponseInterpreter) interpreter: ResponseInterpreter,
    @inject(TYPES.Clock) private readonly clock: Clock,
    @inject(TYPES.ThreadClaims) private readonly claims: ThreadClaims,
    @inject(TYPES.JobPlanner) private readonly jobs: JobPlanner,
  ) {
    this.definitions = new ThreadDefinitions(workflows, store);
    this.timers = new DeadlineTimers(clock, (interaction, attempt) => this.expireOnTime(interaction, attempt));
    this.intake = new AnswerIntake(store, interpreter, this.definitions, jobs, clock, {
      isRunningHere: (threadId) => this.runs.get(threadId) !== undefined,
      isHeldByLiveRun: (thread) => this.runs.get(thread.threadId) !== undefined || this.claims.heldElsewhere(thread),
      expire: (interaction) => this.expire(interaction),
      retire: (interactionId) => this.retire(interactionId),
    });
    this.runs = new ThreadRuns(
      coordinator,
      bus,
      store,
      claims,
      (outcome) => this.afterRun(outcome),
      (threadId, reason) => this.cancel(threadId, reason),
    );
  }

  async start(workflow: WorkflowDefinition, options: StartOptions = {}): Promise<ThreadHandle> {
    this.assertOpen();
    const registered = this.workflows.get(workflow.id);
    const runsHere = this.jobs.runsThreads;
    const record = newThreadRecord(
      registered,
      options,
      runsHere ? this.claims.initial() : { epoch: 0 },
      this.clock.now(),
    );
    await this.store.setGlobalVariables(registered.id, defaultsOf(registered, 'global'), { onlyIfAbsent: true });
    await this.definitions.keep(registered);
    if (!runsHere) {
      // Unclaimed, stored with the job that runs it: a worker serving the workflow takes it.
      await this.store.createThread(record, this.jobs.forHandOver(record));
      await durable(this.store);
      return scheduledHandle(record.threadId, (reason) => this.cancel(record.threadId, reason));
    }
    const thread = await this.store.createThread(record);
    // Should the process running it die, a worker recovers it.
    if (this.jobs.enabled) await this.store.scheduleJobs?.(this.jobs.forStart(thread));
    const { input, channel } = thread;
    return this.runs.launch(thread, () => this.coordinator.emit(thread, { type: 'THREAD_STARTED', input, channel }));
  }

  /**
   * Continues a thread from the store: after a restart, or in another process. A process
   * that runs no thread (`workers-only`) hands it to a worker instead.
   */
  async resume(threadId: string): Promise<ThreadHandle> {
    if (this.jobs.runsThreads) return this.resumeFrom(threadId, undefined);
    this.assertOpen();
    const thread = await this.loadThread(threadId);
    if (thread.status !== 'waiting' && thread.status !== 'running') {
      throw new InterlockError(
        'THREAD_NOT_WAITING',
        `thread ${threadId} is ${thread.status}; only waiting or interrupted threads resume`,
      );
    }
    await this.store.scheduleJobs?.(this.jobs.forHandOver(thread));
    await durable(this.store);
    return scheduledHandle(threadId, (reason) => this.cancel(threadId, reason));
  }

  /**
   * `resume` from a thread just read (`respond` read it a moment ago). If it changed since,
   * the claim fails and the thread is read again once, so a stale read never leaves an
   * answer unapplied.
   */
  private resumeFrom(threadId: string, read: ThreadRecord | undefined): Promise<ThreadHandle> {
    this.assertOpen();
    const running = this.runs.get(threadId);
    if (running) return Promise.resolve(running.handle);
    // Two callers of this process (an answer and a run that just suspended) share one claim.
    const claiming = this.claiming.get(threadId);
    if (claiming) return claiming;
    const claim = this.claimAndLaunch(threadId, read).finally(() => this.claiming.delete(threadId));
    this.claiming.set(threadId, claim);
    return claim;
  }

  private async claimAndLaunch(threadId: string, read: ThreadRecord | undefined): Promise<ThreadHandle> {
    // A thread read by the caller (respond read it a moment ago) may be read again once; one
    // read here and saved by another process right after is THREAD_BUSY, as a live claim is.
    const thread = await this.claim(read ?? (await this.loadThread(threadId)), read === undefined ? 1 : 2);
    // Only the process that holds the thread retires the questions it never got to ask.
    // (Read by thread, not by status: the thread's few rows, however many others wait.)
    for (const orphan of await this.store.listInteractions({ threadId })) {
      if (orphan.status === 'pending' && !thread.pendingInteractionIds.includes(orphan.interactionId))
        await this.retire(orphan.interactionId);
    }
    for (const id of thread.pendingInteractionIds) this.timers.disarm(id);
    const interactionId = thread.pendingInteractionIds[0];
    return this.runs.launch(thread, () =>
      this.coordinator.emit(thread, {
        type: 'THREAD_RESUMED',
        ...(interactionId === undefined ? {} : { interactionId }),
      }),
    );
  }

  /**
   * Claims a stored thread for this process (a new epoch fences every write of the run).
   * A thread saved since it was read is read again, up to `attempts` reads in all; a live
   * claim elsewhere is THREAD_BUSY.
   */
  private async claim(read: ThreadRecord, attempts: number): Promise<ThreadRecord> {
    let thread = read;
    for (let attempt = 1; ; attempt += 1) {
      if (thread.status !== 'waiting' && thread.status !== 'running') {
        throw new InterlockError(
          'THREAD_NOT_WAITING',
          `thread ${thread.threadId} is ${thread.status}; only waiting or interrupted threads resume`,
        );
      }
      this.assertNotHeldElsewhere(thread);
      await this.definitions.load(thread);
      const claimed = await this.claims.claim(thread);
      if (claimed === 'claimed') return thread;
      if (claimed === 'busy') this.assertNotHeldElsewhere(thread);
      if (attempt >= attempts) {
        throw new InterlockError(
          'THREAD_BUSY',
          `thread ${thread.threadId} is being taken forward by another process: try again when it waits`,
        );
      }
      thread = await this.loadThread(thread.threadId);
    }
  }

  /**
   * Answers a pending interaction. The first valid answer wins; a later one gets
   * `already_answered`, one after the deadline gets `expired`, and neither changes anything.
   * What can refuse the answer (the input kind, the thread's definitions) is checked before
   * anything is written: INTERACTION_INVALID_RESPONSE, WORKFLOW_CHANGED or
   * WORKFLOW_VERSION_MISMATCH, and the interaction stays pending. Once the answer is
   * stored, the result is `accepted` whatever becomes of the thread (see {@link Continuation}).
   */
  async respond(interactionId: string, input: unknown, options: { responder?: string } = {}): Promise<RespondResult> {
    this.assertOpen();
    const intake = await this.intake.take(interactionId, input, options.responder);
    if (intake.kind === 'answered') {
      const { status, threadId } = intake;
      const repeated = intake.repeated === true ? { repeated: true as const } : {};
      if (status === 'scheduled')
        return { status: 'accepted', threadId, continuation: { status: 'scheduled' }, ...repeated };
      if (status === 'applied') {
        const continuation = continuationOfApplied(await this.store.getThread(threadId));
        return { status: 'accepted', threadId, continuation, ...repeated };
      }
      return { status, threadId };
    }
    this.timers.disarm(interactionId);
    const result = await this.continueAfter(intake.interaction, intake.thread);
    return intake.repeated ? { ...result, repeated: true } : result;
  }

  /**
   * Takes a thread forward after its answer was stored: in this process, or by leaving it
   * to the process that holds it. Never throws: the answer is stored whatever happens.
   */
  private async continueAfter(interaction: InteractionRecord, thread: ThreadRecord): Promise<Accepted> {
    const { threadId, interactionId } = interaction;
    const accepted = (continuation: Continuation, handle?: ThreadHandle): Accepted => ({
      status: 'accepted',
      threadId,
      continuation,
      ...(handle === undefined ? {} : { thread: handle }),
    });
    try {
      const running = this.runs.get(threadId);
      if (running) {
        this.responses.notify(interactionId);
        await durable(this.store, 'soon');
        return accepted({ status: 'continued' }, running.handle);
      }
      // A process taking this thread forward right now picks the answer up; if it died
      // instead, its claim runs out and this process goes on. (The thread as read before the
      // answer was stored will do: a claim freed since then only means a resume here that
      // may find the thread busy, and a claim seen is read again while waiting.)
      let held = false;
      if (this.claims.heldElsewhere(thread)) {
        await durable(this.store);
        if (await this.claims.pickedUpElsewhere(threadId, interactionId)) return accepted({ status: 'elsewhere' });
        held = true;
      }
      // The answer is acknowledged once durable: with the resumed run's first commit when it
      // comes in this event-loop turn (before its tool runs), else at the end of the turn.
      let result: Accepted;
      try {
        result = accepted({ status: 'continued' }, await this.resumeFrom(threadId, held ? undefined : thread));
      } catch (error) {
        if (!InterlockError.is(error) || error.code !== 'THREAD_BUSY') throw error;
        result = accepted({ status: 'elsewhere' });
      }
      await durable(this.store, 'soon');
      return result;
    } catch (error) {
      const failure = toInterlockError(error);
      return accepted({ status: 'stalled', code: failure.code, message: failure.message });
    }
  }

  /** Cancels a thread, running here or waiting in the store. */
  async cancel(threadId: string, reason = 'cancelled by the user'): Promise<void> {
    if (await this.runs.cancel(threadId, reason)) return;
    const stored = await this.loadThread(threadId);
    if (stored.status !== 'waiting' && stored.status !== 'running') return;
    const thread = await this.claim(stored, 2);
    for (const id of thread.pendingInteractionIds) {
      this.timers.disarm(id);
      await this.store.failInteraction(id, 'cancelled', reason);
    }
    const controller = new AbortController();
    controller.abort(reason);
    await this.runs.launch(thread, () => undefined, controller).done();
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
      if (await this.store.failInteraction(interaction.interactionId, 'timeout', 'nobody answered before the deadline'))
        expired += 1;
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
      if (!threads.has(interaction.threadId))
        threads.set(interaction.threadId, this.store.getThread(interaction.threadId));
      const thread = await threads.get(interaction.threadId);
      if (thread?.pendingInteractionIds.includes(interaction.interactionId)) asked.push(interaction);
    }
    return asked.sort((a, b) => a.createdAt.localeCompare(b.createdAt)).map((interaction) => interaction.request);
  }

  /** Stops every run of this process without cancelling threads: they stay resumable. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.timers.disarmAll();
    await this.runs.stopAll();
  }

  get activeRuns(): number {
    return this.runs.size;
  }

  get armedDeadlines(): number {
    return this.timers.size;
  }

  private async retire(interactionId: string): Promise<void> {
    await this.store.failInteraction(
      interactionId,
      'cancelled',
      'superseded: the process stopped before the thread asked this, and it asked again',
    );
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
    for (const interaction of interactions) this.timers.arm(interaction);
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
      if (InterlockError.is(error) && error.code === 'THREAD_BUSY') return this.runs.get(threadId)?.handle;
      throw error;
    }
  }

  /** Times out a durable wait: the thread resumes and fails the interaction with reason `timeout`. */
  /** A deadline came: times the interaction out, and again later when the store failed. */
  private expireOnTime(interaction: InteractionRecord, attempt: number): void {
    this.expire(interaction, attempt > 0).catch((error: unknown) => {
      if (!this.closed && isStoreFailure(error)) this.timers.armAgain(interaction, attempt + 1);
    });
  }

  /**
   * Times an interaction out and continues its thread. `again`: an earlier try failed, maybe
   * after the interaction was timed out and before its thread went on, so a thread still
   * waiting on it goes on now.
   */
  private async expire(interaction: InteractionRecord, again = false): Promise<void> {
    this.timers.disarm(interaction.interactionId);
    const { interactionId, threadId } = interaction;
    const failed = await this.store.failInteraction(interactionId, 'timeout', 'nobody answered before the deadline');
    const timedOut = failed || (again && (await this.store.getInteraction(interactionId))?.failureReason === 'timeout');
    if (timedOut && this.runs.get(threadId) === undefined && !this.closed) await this.resume(threadId);
  }

  private assertNotHeldElsewhere(thread: ThreadRecord): void {
    const { lease } = thread;
    if (lease === undefined || !this.claims.heldElsewhere(thread)) return;
    throw new InterlockError(
      'THREAD_BUSY',
      `thread ${thread.threadId} is being taken forward by another process right now: answer what it asks with respond(), or try again once that process stops (its claim runs until ${lease.until})`,
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
