import { inject, injectable } from 'inversify';
import type { UserInteractionRequest, WorkflowDefinition } from '@interlock/sdk-types';
import type { AuditLog } from '../audit/audit-log.js';
import type { NodeExecutionCoordinator } from '../coordinators/node-execution-coordinator.js';
import { TYPES } from '../di/tokens.js';
import { InterlockError } from '../errors/interlock-error.js';
import type { EventBus } from '../events/event-bus.js';
import type { InteractionResponses } from '../interaction/interaction-responses.js';
import type { ResponseInterpreter } from '../interaction/response-interpreter.js';
import type { ICheckpointStore, InteractionRecord, StoredThread } from '../persistence/checkpoint-store.js';
import { requestWithProgress } from '../policy/approval-quorum.js';
import type { JobPlanner } from '../workers/job-planner.js';
import type { WorkflowRegistry } from '../workflow/workflow-registry.js';
import { AnswerDesk } from './answer-desk.js';
import { takeAnswerForward } from './answer-forward.js';
import type { Clock } from './clock.js';
import { newThreadRecord, type StartOptions } from './new-thread.js';
import { finishThread } from './transitions.js';
import { assertResumable, StoredRuns } from './stored-runs.js';
import type { ThreadClaims } from './thread-claims.js';
import { ThreadDefinitions } from './thread-definitions.js';
import { scheduledHandle, type ThreadHandle } from './thread-handle.js';
import { ThreadRuns } from './thread-runs.js';
import { WaitTimers } from './wait-timers.js';
import type { RespondResult } from './respond-result.js';

export type { StartOptions } from './new-thread.js';
export type { Continuation, RespondResult } from './respond-result.js';

/** Why a process cannot run a thread's definitions (another version of them is loaded here). */
const DEFINITION_ERRORS = new Set(['WORKFLOW_VERSION_MISMATCH', 'WORKFLOW_CHANGED', 'WORKFLOW_NOT_FOUND']);

/**
 * Starts, resumes, answers and cancels threads (the facade of the run loop): a new thread
 * is built by `newThreadRecord` and run by `ThreadRuns` (stored by the run's first commit);
 * a stored one is read and run by `StoredRuns`, claimed by its first commit. An answer goes to
 * the `AnswerDesk` once: it is told there what it came to, or handed back to be folded into
 * the first commit of a run here (`takeAnswerForward`). Deadlines and escalations of durable
 * waits are `WaitTimers`, which write through the desk too.
 */
@injectable()
export class ThreadRunner {
  /** Answers being taken in, by interaction (see respond). */
  private readonly responding = new Map<string, Promise<RespondResult>>();
  private readonly definitions: ThreadDefinitions;
  readonly desk: AnswerDesk;
  private readonly timers: WaitTimers;
  private readonly runs: ThreadRuns;
  private readonly stored: StoredRuns;
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
    this.desk = new AnswerDesk(store, interpreter, jobs, clock, {
      owner: claims.owner,
      runsHere: (threadId) => this.stored.runsHere(threadId),
      publish: (thread, event) => coordinator.emit(thread, event),
      checkDefinitions: (thread) => this.definitions.check(thread),
    });
    this.definitions = new ThreadDefinitions(workflows, store, (workflow) => this.desk.keepDefinition(workflow));
    this.timers = new WaitTimers(clock, this.desk, {
      runsHere: (threadId) => this.stored.runsHere(threadId),
      goOn: (threadId) => this.resume(threadId),
      isClosed: () => this.closed,
    });
    this.runs = new ThreadRuns(
      coordinator,
      bus,
      store,
      claims,
      (outcome, run) => this.stored.afterRun(outcome, run),
      (threadId, reason) => this.cancel(threadId, reason),
      // A question's deadline is armed as soon as the question is announced (it is stored by
      // then), before its thread's suspension is: whoever hears the thread wait finds it armed.
      (event) => this.timers.watch(event),
      (run) => this.stored.retake(run),
      (threadId) => this.jobs.forEnd(threadId),
    );
    this.stored = new StoredRuns(
      coordinator,
      store,
      this.runs,
      claims,
      this.definitions,
      responses,
      this.timers,
      () => this.closed,
    );
  }

  async start(workflow: WorkflowDefinition, options: StartOptions = {}): Promise<ThreadHandle> {
    this.assertOpen();
    const registered = this.workflows.get(workflow.id);
    const record = newThreadRecord(registered, options, { epoch: 1 }, this.clock.now());
    await this.definitions.keep(registered);
    if (!this.jobs.runsThreads) {
      // Stored unclaimed with the job that runs it: a worker serving the workflow takes it.
      await this.desk.handOver(record, { create: true });
      return scheduledHandle(record.threadId, (reason) => this.cancel(record.threadId, reason));
    }
    if (this.stored.runsHere(record.threadId))
      throw new InterlockError('STORE_CONFLICT', `thread ${record.threadId} already exists`);
    const controller = new AbortController();
    const run = this.runs.fresh(record, controller);
    // The thread is stored by the run's first commit: at its first durability point, or at the
    // end of this event-loop turn if none comes first. Should the process running it die, a
    // worker recovers it (its job goes with that commit).
    await run.apply({ next: record, effects: { jobs: this.jobs.forStart(record), durable: 'soon' } });
    const { input, channel } = record;
    const handle = this.runs.launch(
      run,
      () => this.coordinator.emit(record, { type: 'THREAD_STARTED', input, channel }),
      controller,
    );
    // start() resolves once the thread exists in the store (or says why it does not).
    await run.firstCommit;
    return handle;
  }

  /**
   * Continues a thread from the store: after a restart, or in another process. A process
   * that runs no thread (`workers-only`) hands it to a worker instead. `carried`: the thread
   * as a worker's job carried it (its version fences the run's first commit).
   */
  async resume(threadId: string, carried?: StoredThread): Promise<ThreadHandle> {
    this.assertOpen();
    if (this.jobs.runsThreads) return this.stored.resume(threadId, carried === undefined ? {} : { stored: carried });
    const thread = await this.store.getThread(threadId);
    if (!thread) throw new InterlockError('THREAD_NOT_FOUND', `no thread ${threadId} in the store`);
    assertResumable(thread);
    await this.desk.handOver(thread, { create: false });
    return scheduledHandle(threadId, (reason) => this.cancel(threadId, reason));
  }

  /**
   * Answers a pending interaction. The first valid answer wins; a later one gets
   * `already_answered`, one after the deadline gets `expired`, and neither changes anything.
   * What can refuse the answer (the input kind, the thread's definitions, a quorum's rules) is
   * checked before anything is written: INTERACTION_INVALID_RESPONSE, WORKFLOW_CHANGED,
   * WORKFLOW_VERSION_MISMATCH or APPROVAL_NOT_ALLOWED, and the interaction stays pending. Once
   * the answer is stored, the result is `accepted` whatever becomes of the thread (see
   * {@link Continuation}).
   */
  async respond(interactionId: string, input: unknown, options: { responder?: string } = {}): Promise<RespondResult> {
    this.assertOpen();
    // Answers to one interaction given in this process are taken one after the other: the first is stored first.
    const before = this.responding.get(interactionId);
    const answer = (async () => {
      await before?.catch(() => undefined);
      return takeAnswerForward(
        { desk: this.desk, stored: this.stored, runs: this.runs, responses: this.responses, timers: this.timers },
        interactionId,
        input,
        options.responder,
      );
    })();
    this.responding.set(interactionId, answer);
    try {
      return await answer;
    } finally {
      if (this.responding.get(interactionId) === answer) this.responding.delete(interactionId);
    }
  }

  /** Cancels a thread, running here or waiting in the store. */
  async cancel(threadId: string, reason = 'cancelled by the user'): Promise<void> {
    if (await this.runs.cancel(threadId, reason)) return;
    const stored = await this.store.loadThread(threadId);
    if (!stored) throw new InterlockError('THREAD_NOT_FOUND', `no thread ${threadId} in the store`);
    const { thread } = stored;
    if (thread.status !== 'waiting' && thread.status !== 'running') return;
    this.stored.assertNotHeldElsewhere(thread);
    // A thread of a version this process does not run (a deployment's inbox after a rollout)
    // is cancelled without its nodes: nothing of it runs, its questions are called off.
    const runsHere = await this.definitions.load(thread).then(
      () => true,
      (error: unknown) => {
        if (InterlockError.is(error) && DEFINITION_ERRORS.has(error.code)) return false;
        throw error;
      },
    );
    const controller = new AbortController();
    controller.abort(reason);
    const run = this.runs.stored(stored, controller);
    const at = this.claims.nowIso();
    for (const id of thread.pendingInteractionIds) this.timers.disarmDeadline(id);
    const callOff = {
      interactions: thread.pendingInteractionIds.map((interactionId) => ({
        kind: 'fail' as const,
        interactionId,
        reason: 'cancelled' as const,
        message: reason,
        at,
      })),
    };
    if (!runsHere) {
      await run.apply({
        next: finishThread(thread, 'cancelled'),
        effects: { ...callOff, events: [{ type: 'THREAD_CANCELLED', reason }], announceAfterCommit: true },
      });
      await run.commit({ release: true });
      return;
    }
    if (thread.pendingInteractionIds.length > 0) await run.apply({ next: thread, effects: callOff });
    await this.runs.launch(run, () => undefined, controller).done();
  }

  /**
   * Deadlines are absolute times in the store: an interaction whose deadline passed while no
   * process ran is timed out (a tool call it asked about is denied). Its thread reports it
   * when it next resumes. Returns how many were timed out.
   */
  expireOverdue(): Promise<number> {
    return this.desk.expireOverdue();
  }

  /** Every interaction waiting for an answer, oldest first. */
  async pending(): Promise<UserInteractionRequest[]> {
    const asked = await this.waitedOn();
    // Oldest first; the questions of one batch (one model turn) in the order of its calls.
    const place = (interaction: InteractionRecord) => interaction.request.toolApproval?.batch?.index ?? 0;
    return asked.sort((a, b) => a.createdAt.localeCompare(b.createdAt) || place(a) - place(b)).map(requestWithProgress);
  }

  /** The pending interactions their threads wait on (not one a thread left behind). */
  private async waitedOn(): Promise<InteractionRecord[]> {
    const interactions = await this.store.listInteractions({ status: 'pending' });
    const asked: InteractionRecord[] = [];
    const threads = new Map<string, Promise<{ pendingInteractionIds: readonly string[] } | undefined>>();
    for (const interaction of interactions) {
      if (!threads.has(interaction.threadId))
        threads.set(interaction.threadId, this.store.getThread(interaction.threadId));
      const thread = await threads.get(interaction.threadId);
      if (thread?.pendingInteractionIds.includes(interaction.interactionId)) asked.push(interaction);
    }
    return asked;
  }

  /**
   * At start (issue 35): arms the deadlines, and the escalations (F51), of the questions
   * threads wait on in the store, asked by whichever process. A question whose deadline
   * passes while this process is up is then timed out here and its thread goes on (the
   * model is told TIMEOUT), as in the process that asked it — with no `resume()` by hand;
   * another process that times it out first takes it forward instead. The timers do not
   * keep the process alive. Where threads continue in workers, deadlines are their jobs.
   * Returns how many deadlines were armed.
   */
  async armWaiting(): Promise<number> {
    if (this.jobs.enabled || !this.jobs.runsThreads || this.closed) return 0;
    const asked = await this.waitedOn();
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- close() may run during the await
    if (this.closed) return 0;
    for (const interaction of asked) this.timers.arm(interaction, { keepsProcessAlive: false });
    return asked.filter((interaction) => interaction.deadline !== null).length;
  }

  /**
   * Offers an approval that waited past its escalation time to its escalation approvers
   * (F51): recorded, audited, USER_INTERACTION_ESCALATED. Returns whether this call did it
   * (false when it is not due, was escalated already, or no longer waits).
   */
  escalate(interactionId: string): Promise<boolean> {
    return this.desk.escalate(interactionId);
  }

  /** Seals the audit entries stored since the last anchor, through the desk; whether it anchored. */
  async anchorAudit(audit: AuditLog): Promise<boolean> {
    const anchor = await audit.nextAnchor();
    return anchor !== undefined && this.desk.anchor(anchor);
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
    return this.timers.armedDeadlines;
  }

  private assertOpen(): void {
    if (this.closed) throw new InterlockError('INVALID_OPTIONS', 'this Interlock instance is closed: create a new one');
  }
}
