import { setImmediate } from 'node:timers';
import { inject, injectable } from 'inversify';
import type { UserInteractionRequest, WorkflowDefinition } from '@interlock/sdk-types';
import type { NodeExecutionCoordinator } from '../coordinators/node-execution-coordinator.js';
import { TYPES } from '../di/tokens.js';
import { InterlockError, isStoreFailure, toInterlockError } from '../errors/interlock-error.js';
import type { EventBus } from '../events/event-bus.js';
import type { InteractionResponses } from '../interaction/interaction-responses.js';
import type { ResponseInterpreter } from '../interaction/response-interpreter.js';
import type {
  ICheckpointStore,
  InteractionRecord,
  InteractionResponseRecord,
  StoredThread,
} from '../persistence/checkpoint-store.js';
import type { InteractionChange } from '../persistence/unit-of-work.js';
import { requestWithProgress } from '../policy/approval-quorum.js';
import type { JobPlanner } from '../workers/job-planner.js';
import type { WorkflowRegistry } from '../workflow/workflow-registry.js';
import { continuationOfApplied } from '../interaction/answer-checks.js';
import { AnswerIntake, type Intake } from './answer-intake.js';
import type { Clock } from './clock.js';
import { DeadlineTimers, type TimedInteraction } from './deadline-timers.js';
import { escalationOf, Escalations } from './escalations.js';
import { newThreadRecord, type StartOptions } from './new-thread.js';
import { finishThread } from './transitions.js';
import { isArmed } from './failpoints.js';
import { conflictOf, type Run } from './run.js';
import type { ThreadClaims } from './thread-claims.js';
import { ThreadDefinitions } from './thread-definitions.js';
import { scheduledHandle, type ThreadHandle } from './thread-handle.js';
import type { ThreadOutcome } from './thread-outcome.js';
import { ThreadRuns } from './thread-runs.js';

export type { StartOptions } from './new-thread.js';

import type { Continuation, RespondResult } from './respond-result.js';

export type { Continuation, RespondResult } from './respond-result.js';

type Accepted = Extract<RespondResult, { status: 'accepted' }>;

/** What a run of a stored thread starts from: the thread as read, and an answer its first commit stores. */
interface ResumeFrom {
  stored?: StoredThread;
  answer?: InteractionResponseRecord & { interactionId: string };
  /** The count of the last approval of a call that needs several (F51), stored before the answer. */
  before?: InteractionChange;
}

/** Why a process cannot run a thread's definitions (another version of them is loaded here). */
const DEFINITION_ERRORS = new Set(['WORKFLOW_VERSION_MISMATCH', 'WORKFLOW_CHANGED', 'WORKFLOW_NOT_FOUND']);
/**
 * Starts, resumes, answers and cancels threads (the facade of the run loop): a new thread
 * is built by `newThreadRecord` and run by `ThreadRuns` (stored by the run's first commit);
 * a stored one is read and run, claimed by its first commit; an answer is taken in by
 * `AnswerIntake` and stored with the first commit of the run that applies it — here — or on
 * its own when another process holds the thread, or with its job for a worker. Deadlines of
 * durable waits are `DeadlineTimers`.
 */
@injectable()
export class ThreadRunner {
  /** Runs being set up in this process, by thread (see resumeFrom). */
  private readonly claiming = new Map<string, Promise<ThreadHandle>>();
  /** Answers being taken in, by interaction (see respond). */
  private readonly responding = new Map<string, Promise<RespondResult>>();
  private readonly definitions: ThreadDefinitions;
  private readonly timers: DeadlineTimers;
  /** The escalation times of approvals this process asked (F51), on the same kind of timer as deadlines. */
  private readonly escalationTimers: DeadlineTimers;
  private readonly escalations: Escalations;
  private readonly intake: AnswerIntake;
  private readonly runs: ThreadRuns;
  /** How many times in a row this process took a thread forward again after losing its claim (see retake). */
  private readonly retakes = new Map<string, number>();
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
    this.escalations = new Escalations(store, clock, (thread, event) => coordinator.emit(thread, event));
    this.escalationTimers = new DeadlineTimers(clock, (interaction) => {
      this.escalations.escalate(interaction.interactionId).catch(() => undefined);
    });
    this.intake = new AnswerIntake(store, interpreter, this.definitions, jobs, clock, {
      isRunningHere: (threadId) => this.runs.get(threadId) !== undefined,
      isHeldByLiveRun: (thread) => this.runs.get(thread.threadId) !== undefined || this.claims.heldElsewhere(thread),
      // A late answer is told "expired" first; the thread goes on right after. `again`: a
      // thread that still waits on a question timed out before (by expireOverdue(), or by a
      // process that stopped before it went on) goes on too (issue 35).
      expire: (interaction) => this.expire(interaction, true, 'after'),
      retire: (interactionId) => this.retire([interactionId]),
    });
    this.runs = new ThreadRuns(
      coordinator,
      bus,
      store,
      claims,
      (outcome, run) => this.afterRun(outcome, run),
      (threadId, reason) => this.cancel(threadId, reason),
      // A question's deadline is armed as soon as the question is announced (it is stored by
      // then), before its thread's suspension is: whoever hears the thread wait finds it armed.
      (event) => {
        if (event.type === 'USER_INTERACTION_REQUESTED' && !this.closed) {
          const { interactionId, request } = event;
          if (request.deadline !== null)
            this.timers.arm({ interactionId, threadId: request.threadId, deadline: request.deadline });
          this.armEscalation({ interactionId, request });
        } else if (event.type === 'USER_INTERACTION_PROCESSED' || event.type === 'USER_INTERACTION_FAILED') {
          this.timers.disarm(event.interactionId);
          this.escalationTimers.disarm(event.interactionId);
        }
      },
      (run) => this.retake(run),
      (threadId) => this.jobs.forEnd(threadId),
    );
  }

  async start(workflow: WorkflowDefinition, options: StartOptions = {}): Promise<ThreadHandle> {
    this.assertOpen();
    const registered = this.workflows.get(workflow.id);
    const record = newThreadRecord(registered, options, { epoch: 1 }, this.clock.now());
    await this.definitions.keep(registered);
    if (!this.jobs.runsThreads) {
      // Stored unclaimed with the job that runs it (and carries it): a worker serving the workflow takes it.
      const created = { ...record, version: 1 };
      const result = await this.store.commit({
        thread: { kind: 'create', thread: created },
        jobs: this.jobs.forHandOver(record, { thread: created, interactions: [], toolCalls: [] }),
      });
      if (result.status === 'conflict')
        throw new InterlockError('STORE_CONFLICT', `thread ${record.threadId} already exists`);
      return scheduledHandle(record.threadId, (reason) => this.cancel(record.threadId, reason));
    }
    if (this.runs.get(record.threadId) !== undefined || this.claiming.has(record.threadId))
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
   * that runs no thread (`workers-only`) hands it to a worker instead.
   */
  async resume(threadId: string, carried?: StoredThread): Promise<ThreadHandle> {
    // `carried`: the thread as a worker's job carried it (its version fences the run's first commit).
    if (this.jobs.runsThreads) return this.resumeFrom(threadId, carried === undefined ? {} : { stored: carried });
    this.assertOpen();
    const thread = await this.store.getThread(threadId);
    if (!thread) throw new InterlockError('THREAD_NOT_FOUND', `no thread ${threadId} in the store`);
    assertResumable(thread);
    await this.store.commit({ jobs: this.jobs.forHandOver(thread) });
    return scheduledHandle(threadId, (reason) => this.cancel(threadId, reason));
  }

  /**
   * Runs a stored thread in this process; `answer` (and `before` it, the count of the last
   * approval of a call that needs several) is stored with the run's first commit.
   * Two callers of this process (an answer and a deadline, say) share one run.
   */
  private resumeFrom(threadId: string, from: ResumeFrom = {}): Promise<ThreadHandle> {
    this.assertOpen();
    const running = this.runs.get(threadId);
    // Joined, the run reads what its thread waits on when it stops (see Run.join).
    if (running && from.answer === undefined) return Promise.resolve(this.join(running.handle));
    const claiming = this.claiming.get(threadId);
    if (claiming && from.answer === undefined) return claiming.then((handle) => this.join(handle));
    if (running || claiming)
      throw new InterlockError('THREAD_BUSY', `thread ${threadId} is being taken forward in this process`);
    const launched = this.launchStored(threadId, from).finally(() => this.claiming.delete(threadId));
    this.claiming.set(threadId, launched);
    return launched;
  }

  private async launchStored(threadId: string, from: ResumeFrom): Promise<ThreadHandle> {
    const stored = from.stored ?? (await this.store.loadThread(threadId));
    if (!stored) throw new InterlockError('THREAD_NOT_FOUND', `no thread ${threadId} in the store`);
    const { thread } = stored;
    assertResumable(thread);
    this.assertNotHeldElsewhere(thread);
    await this.definitions.load(thread);
    const controller = new AbortController();
    const run = this.runs.stored(stored, controller);
    const { answer, before } = from;
    // Questions stored before a crash that the thread never waited on (an older store) are let go.
    const orphans = stored.interactions.filter(
      (interaction) =>
        interaction.status === 'pending' && !thread.pendingInteractionIds.includes(interaction.interactionId),
    );
    if (answer !== undefined || orphans.length > 0) {
      const at = this.claims.nowIso();
      await run.apply({
        next: thread,
        effects: {
          interactions: [
            ...orphans.map((orphan) => ({
              kind: 'fail' as const,
              interactionId: orphan.interactionId,
              reason: 'cancelled' as const,
              message: SUPERSEDED,
              at,
            })),
            ...(before === undefined ? [] : [before]),
            ...(answer === undefined
              ? []
              : [
                  {
                    kind: 'answer' as const,
                    interactionId: answer.interactionId,
                    response: {
                      input: answer.input,
                      ...(answer.responder === undefined ? {} : { responder: answer.responder }),
                      respondedAt: answer.respondedAt,
                    },
                  },
                ]),
          ],
        },
      });
    }
    for (const id of thread.pendingInteractionIds) this.timers.disarm(id);
    const interactionId = thread.pendingInteractionIds[0];
    return this.runs.launch(
      run,
      () =>
        this.coordinator.emit(thread, {
          type: 'THREAD_RESUMED',
          ...(interactionId === undefined ? {} : { interactionId }),
        }),
      controller,
    );
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
    // Answers to one interaction given in this process are taken one after the other: the first is stored first.
    const before = this.responding.get(interactionId);
    const answer = (async () => {
      await before?.catch(() => undefined);
      const intake = await this.intake.take(interactionId, input, options.responder);
      return this.settleIntake(intake, input);
    })();
    this.responding.set(interactionId, answer);
    try {
      return await answer;
    } finally {
      if (this.responding.get(interactionId) === answer) this.responding.delete(interactionId);
    }
  }

  private async settleIntake(intake: Intake, input: unknown): Promise<RespondResult> {
    switch (intake.kind) {
      case 'answered': {
        const repeated = intake.repeated === true ? { repeated: true as const } : {};
        if (intake.status === 'awaiting-approvals') {
          const { given, required, threadId } = intake;
          return {
            status: 'accepted',
            threadId,
            continuation: { status: 'awaiting-approvals', given, required },
            ...repeated,
          };
        }
        const { status, threadId } = intake;
        if (status === 'scheduled')
          return { status: 'accepted', threadId, continuation: { status: 'scheduled' }, ...repeated };
        if (status === 'applied') {
          const continuation = continuationOfApplied(await this.store.getThread(threadId));
          return { status: 'accepted', threadId, continuation, ...repeated };
        }
        return { status, threadId };
      }
      case 'stored-before': {
        this.timers.disarm(intake.interaction.interactionId);
        return { ...(await this.continueStored(intake.interaction.threadId)), repeated: true };
      }
      case 'valid':
        this.timers.disarm(intake.interaction.interactionId);
        return this.storeAndContinue(intake, input);
    }
  }

  /**
   * Stores a valid answer and takes its thread forward: with the first commit of a run here,
   * or alone when the thread runs here already or another process holds it (that process
   * picks the answer up). Never throws once the answer is stored.
   */
  private async storeAndContinue(intake: Extract<Intake, { kind: 'valid' }>, input: unknown): Promise<RespondResult> {
    const { interaction, stored, response, before } = intake;
    const { threadId, interactionId } = interaction;
    const running = this.runs.get(threadId);
    if (running !== undefined || this.claiming.has(threadId) || this.claims.heldElsewhere(stored.thread)) {
      const alone = await this.intake.storeAlone(intake, input);
      if (alone !== 'stored') return this.settleIntake(alone, input);
      // A run of this process may be about to stop: it looks for answers given here before it does.
      this.responses.notify(interactionId);
      return this.continueStored(threadId, interactionId);
    }
    // A crash test kills the process with the answer stored and not applied (as when another
    // process holds the thread): store it on its own first.
    if (isArmed('interaction:answer-stored')) {
      const alone = await this.intake.storeAlone(intake, input);
      if (alone !== 'stored') return this.settleIntake(alone, input);
      return this.continueStored(threadId, interactionId);
    }
    let handle: ThreadHandle;
    try {
      // The last approval of a call that needs several (F51) goes with it, counted in the same unit.
      handle = await this.resumeFrom(threadId, {
        stored,
        answer: { interactionId, ...response },
        ...(before === undefined ? {} : { before }),
      });
    } catch (error) {
      // Nothing ran, so nothing was stored. A run of this process came first: it takes the answer.
      // Otherwise the thread cannot go on here (a tool this process does not hold): the answer
      // is stored all the same and the thread stalls, saying why (F43).
      const alone = await this.intake.storeAlone(intake, input);
      if (alone !== 'stored') return this.settleIntake(alone, input);
      if (InterlockError.is(error) && error.code === 'THREAD_BUSY') {
        this.responses.notify(interactionId);
        return this.continueStored(threadId, interactionId);
      }
      const failure = toInterlockError(error);
      return {
        status: 'accepted',
        threadId,
        continuation: { status: 'stalled', code: failure.code, message: failure.message },
      };
    }
    // The answer is acknowledged once stored: with the run's first commit.
    try {
      await this.runs.runOf(handle)?.firstCommit;
    } catch (error) {
      const conflict = conflictOf(error);
      if (conflict?.kind === 'interaction-not-pending')
        return this.settleIntake(
          await this.intake.answeredBefore(conflict.interaction, input, response.responder),
          input,
        );
      // Another approval of the call was counted between the read and the commit (F51): once
      // the run that stored nothing has stopped, this one is counted again.
      if (conflict?.kind === 'quorum-changed') {
        await handle.done().catch(() => undefined);
        return this.settleIntake(await this.intake.refused(conflict, input, response.responder, threadId), input);
      }
      if (conflict?.kind === 'thread-changed' || conflict?.kind === 'thread-busy') {
        // Another process took the thread between the read and the commit: the answer goes alone.
        const alone = await this.intake.storeAlone(intake, input);
        if (alone !== 'stored') return this.settleIntake(alone, input);
        return { status: 'accepted', threadId, continuation: { status: 'elsewhere' } };
      }
      throw error;
    }
    return { status: 'accepted', threadId, continuation: { status: 'continued' }, thread: handle };
  }

  /**
   * Takes a thread forward after its answer was stored on its own: in this process, or by
   * leaving it to the process that holds it. Never throws: the answer is stored.
   */
  private async continueStored(threadId: string, interactionId?: string): Promise<Accepted> {
    const accepted = (continuation: Continuation, handle?: ThreadHandle): Accepted => ({
      status: 'accepted',
      threadId,
      continuation,
      ...(handle === undefined ? {} : { thread: handle }),
    });
    try {
      const running = this.runs.get(threadId);
      if (running) return accepted({ status: 'continued' }, this.join(running.handle));
      const claiming = this.claiming.get(threadId);
      if (claiming) return accepted({ status: 'continued' }, this.join(await claiming));
      // A process taking this thread forward right now picks the answer up; if it died
      // instead, its claim runs out and this process goes on.
      const thread = await this.store.getThread(threadId);
      if (thread === undefined) throw new InterlockError('THREAD_NOT_FOUND', `no thread ${threadId} in the store`);
      if (this.claims.heldElsewhere(thread)) {
        if (interactionId === undefined || (await this.claims.pickedUpElsewhere(threadId, interactionId)))
          return accepted({ status: 'elsewhere' });
      }
      try {
        return accepted({ status: 'continued' }, await this.resumeFrom(threadId));
      } catch (error) {
        if (!InterlockError.is(error) || error.code !== 'THREAD_BUSY') throw error;
        return accepted({ status: 'elsewhere' });
      }
    } catch (error) {
      const failure = toInterlockError(error);
      return accepted({ status: 'stalled', code: failure.code, message: failure.message });
    }
  }

  /** Cancels a thread, running here or waiting in the store. */
  async cancel(threadId: string, reason = 'cancelled by the user'): Promise<void> {
    if (await this.runs.cancel(threadId, reason)) return;
    const stored = await this.store.loadThread(threadId);
    if (!stored) throw new InterlockError('THREAD_NOT_FOUND', `no thread ${threadId} in the store`);
    const { thread } = stored;
    if (thread.status !== 'waiting' && thread.status !== 'running') return;
    this.assertNotHeldElsewhere(thread);
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
    for (const id of thread.pendingInteractionIds) this.timers.disarm(id);
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
  async expireOverdue(): Promise<number> {
    const now = this.clock.now();
    const overdue = (await this.store.listInteractions({ status: 'pending' })).filter(
      (interaction) => interaction.deadline !== null && Date.parse(interaction.deadline) <= now,
    );
    if (overdue.length === 0) return 0;
    const at = new Date(now).toISOString();
    const result = await this.store.commit({
      interactions: overdue.map((interaction) => ({
        kind: 'fail' as const,
        interactionId: interaction.interactionId,
        reason: 'timeout' as const,
        message: 'nobody answered before the deadline',
        at,
      })),
    });
    return result.status === 'committed' ? result.failed.length : 0;
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
    const threads = new Map<string, Promise<{ pendingInteractionIds: string[] } | undefined>>();
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
    let armed = 0;
    const asked = await this.waitedOn();
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- close() may run during the await
    if (this.closed) return 0;
    for (const interaction of asked) {
      if (interaction.deadline !== null) {
        this.timers.arm(interaction, { keepsProcessAlive: false });
        armed += 1;
      }
      if (interaction.quorum?.escalatedAt === undefined) this.armEscalation(interaction, { keepsProcessAlive: false });
    }
    return armed;
  }

  /** Stops every run of this process without cancelling threads: they stay resumable. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.timers.disarmAll();
    this.escalationTimers.disarmAll();
    await this.runs.stopAll();
  }

  get activeRuns(): number {
    return this.runs.size;
  }

  get armedDeadlines(): number {
    return this.timers.size;
  }

  private async retire(interactionIds: string[]): Promise<void> {
    const at = this.claims.nowIso();
    await this.store.commit({
      interactions: interactionIds.map((interactionId) => ({
        kind: 'fail' as const,
        interactionId,
        reason: 'cancelled' as const,
        message: SUPERSEDED,
        at,
      })),
    });
  }

  /**
   * A thread that now waits durably: if an answer raced the suspension, continue it at once
   * (returns the new run); otherwise arm its deadlines. An answer can have been stored while
   * the run went on by `respond()` in this process, or — once the run's claim was visible in
   * the store, or a caller here joined the run (a worker's job for that answer) — by another
   * process that left the answer to it: then the store is read.
   */
  private async afterRun(outcome: ThreadOutcome, run: Run): Promise<ThreadHandle | undefined> {
    if (outcome.status !== 'waiting' || this.closed) return undefined;
    const interactions = [];
    for (const interactionId of outcome.pendingInteractionIds) {
      const known =
        run.claimWasVisible || run.wasJoined || this.responses.wasAnswered(interactionId)
          ? await this.store.getInteraction(interactionId)
          : run.interaction(interactionId);
      if (known?.status === 'pending') interactions.push(known);
      else if (known) return this.continueAnswered(outcome.threadId);
    }
    for (const interaction of interactions) {
      this.timers.arm(interaction);
      if (interaction.quorum?.escalatedAt === undefined) this.armEscalation(interaction);
    }
    return undefined;
  }

  /**
   * A run of this process lost its claim (it froze past its end, or could not renew it) and
   * stopped, writing nothing more (issue 35). If the thread is still at the run's epoch —
   * nobody took it meanwhile — this process is its next holder: it takes the thread forward
   * again, and a call the lost run had started is asked about (F40). A few times in a row at
   * most: a process that keeps losing its claims leaves the thread to another, or to `resume()`.
   */
  private async retake(run: Run): Promise<ThreadHandle | undefined> {
    const { threadId, epoch } = run.fence;
    const retaken = this.retakes.get(threadId) ?? 0;
    if (this.closed || retaken >= MAX_RETAKES) return undefined;
    try {
      const stored = await this.store.getThread(threadId);
      if (stored === undefined || stored.epoch !== epoch || this.claims.heldElsewhere(stored)) return undefined;
      this.retakes.set(threadId, retaken + 1);
      const handle = await this.resumeFrom(threadId);
      // Once that run (and any that follows it) stops, the count starts again.
      const settled = () => this.retakes.delete(threadId);
      void handle.done().then(settled, settled);
      return handle;
    } catch {
      return undefined;
    }
  }

  /** Joins the run behind a handle of this process (issue 38): it reads the store for answers when it stops. */
  private join(handle: ThreadHandle): ThreadHandle {
    this.runs.runOf(handle)?.join();
    return handle;
  }

  /** Arms the escalation of an approval that has one (F51). */
  private armEscalation(
    interaction: Pick<InteractionRecord, 'interactionId' | 'request'>,
    options: { keepsProcessAlive?: boolean } = {},
  ): void {
    const escalation = escalationOf(interaction.request);
    if (escalation === undefined) return;
    const { interactionId, request } = interaction;
    this.escalationTimers.arm({ interactionId, threadId: request.threadId, deadline: escalation.at }, options);
  }

  /**
   * Offers an approval that waited past its escalation time to its escalation approvers
   * (F51): recorded, audited, USER_INTERACTION_ESCALATED. Returns whether this call did it
   * (false when it is not due, was escalated already, or no longer waits).
   */
  escalate(interactionId: string): Promise<boolean> {
    return this.escalations.escalate(interactionId);
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

  /** A deadline came: times the interaction out, and again later when the store failed. */
  private expireOnTime(interaction: TimedInteraction, attempt: number): void {
    this.expire(interaction, attempt > 0).catch((error: unknown) => {
      if (!this.closed && isStoreFailure(error)) this.timers.armAgain(interaction, attempt + 1);
    });
  }

  /**
   * Times an interaction out and continues its thread. `again`: an earlier try failed, maybe
   * after the interaction was timed out and before its thread went on, so a thread still
   * waiting on it goes on now.
   */
  private async expire(interaction: TimedInteraction, again = false, goOn: 'now' | 'after' = 'now'): Promise<void> {
    this.timers.disarm(interaction.interactionId);
    const { interactionId, threadId } = interaction;
    const result = await this.store.commit({
      interactions: [
        {
          kind: 'fail',
          interactionId,
          reason: 'timeout',
          message: 'nobody answered before the deadline',
          at: this.claims.nowIso(),
        },
      ],
    });
    const failed = result.status === 'committed' && result.failed.includes(interactionId);
    const timedOut = failed || (again && (await this.store.getInteraction(interactionId))?.failureReason === 'timeout');
    if (!timedOut || this.runs.get(threadId) !== undefined || this.closed) return;
    if (goOn === 'now') await this.resume(threadId);
    else
      setImmediate(() => {
        if (!this.closed) this.resume(threadId).catch(() => this.timers.armAgain(interaction, 1));
      });
  }

  private assertNotHeldElsewhere(thread: { threadId: string; lease?: { until: string; owner: string } }): void {
    const { lease } = thread;
    if (lease === undefined || !this.claims.heldElsewhere(thread as never)) return;
    throw new InterlockError(
      'THREAD_BUSY',
      `thread ${thread.threadId} is being taken forward by another process right now: answer what it asks with respond(), or try again once that process stops (its claim runs until ${lease.until})`,
    );
  }

  private assertOpen(): void {
    if (this.closed) throw new InterlockError('INVALID_OPTIONS', 'this Interlock instance is closed: create a new one');
  }
}

const SUPERSEDED = 'superseded: the process stopped before the thread asked this, and it asked again';
/** How many times in a row a process takes a thread forward again after losing its claim on it. */
const MAX_RETAKES = 3;

function assertResumable(thread: { threadId: string; status: string }): void {
  if (thread.status !== 'waiting' && thread.status !== 'running') {
    throw new InterlockError(
      'THREAD_NOT_WAITING',
      `thread ${thread.threadId} is ${thread.status}; only waiting or interrupted threads resume`,
    );
  }
}
