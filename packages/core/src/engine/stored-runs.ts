import type { NodeExecutionCoordinator } from '../coordinators/node-execution-coordinator.js';
import { InterlockError, toInterlockError } from '../errors/interlock-error.js';
import type { InteractionResponses } from '../interaction/interaction-responses.js';
import type { ICheckpointStore, StoredThread, ThreadRecord } from '../persistence/checkpoint-store.js';
import type { InteractionChange } from '../persistence/unit-of-work.js';
import { SUPERSEDED } from './answer-desk.js';
import type { Continuation, RespondResult } from './respond-result.js';
import type { Run } from './run.js';
import type { ThreadClaims } from './thread-claims.js';
import type { ThreadDefinitions } from './thread-definitions.js';
import type { ThreadHandle } from './thread-handle.js';
import type { ThreadOutcome } from './thread-outcome.js';
import type { ThreadRuns } from './thread-runs.js';
import type { WaitTimers } from './wait-timers.js';

type Accepted = Extract<RespondResult, { status: 'accepted' }>;

/** How many times in a row a process takes a thread forward again after losing its claim on it. */
const MAX_RETAKES = 3;

/**
 * Runs of stored threads in this process: resumed (claimed by the run's first commit, with an
 * answer that commit stores), continued after an answer was stored on its own, continued when
 * an answer raced a suspension, and taken forward again after a lost claim. Two callers of
 * this process (an answer and a deadline, say) share one run.
 */
export class StoredRuns {
  /** Runs being set up in this process, by thread. */
  private readonly claiming = new Map<string, Promise<ThreadHandle>>();
  /** How many times in a row this process took a thread forward again after losing its claim. */
  private readonly retakes = new Map<string, number>();

  constructor(
    private readonly coordinator: NodeExecutionCoordinator,
    private readonly store: ICheckpointStore,
    private readonly runs: ThreadRuns,
    private readonly claims: ThreadClaims,
    private readonly definitions: ThreadDefinitions,
    private readonly responses: InteractionResponses,
    private readonly timers: WaitTimers,
    private readonly isClosed: () => boolean,
  ) {}

  /** Whether a run of this process holds the thread, or is being set up for it. */
  runsHere(threadId: string): boolean {
    return this.runs.get(threadId) !== undefined || this.claiming.has(threadId);
  }

  /**
   * Runs a stored thread in this process; `answer` (the answer, after the last approval of a
   * call that needs several) is stored with the run's first commit.
   */
  resume(threadId: string, from: { stored?: StoredThread; answer?: InteractionChange[] } = {}): Promise<ThreadHandle> {
    const running = this.runs.get(threadId);
    // Joined, the run reads what its thread waits on when it stops (see Run.join).
    if (running && from.answer === undefined) return Promise.resolve(this.join(running.handle));
    const claiming = this.claiming.get(threadId);
    if (claiming && from.answer === undefined) return claiming.then((handle) => this.join(handle));
    if (running || claiming)
      throw new InterlockError('THREAD_BUSY', `thread ${threadId} is being taken forward in this process`);
    const launched = this.launch(threadId, from).finally(() => this.claiming.delete(threadId));
    this.claiming.set(threadId, launched);
    return launched;
  }

  private async launch(
    threadId: string,
    from: { stored?: StoredThread; answer?: InteractionChange[] },
  ): Promise<ThreadHandle> {
    const stored = from.stored ?? (await this.store.loadThread(threadId));
    if (!stored) throw new InterlockError('THREAD_NOT_FOUND', `no thread ${threadId} in the store`);
    const { thread } = stored;
    assertResumable(thread);
    this.assertNotHeldElsewhere(thread);
    await this.definitions.load(thread);
    const controller = new AbortController();
    const run = this.runs.stored(stored, controller);
    // Questions stored before a crash that the thread never waited on (an older store) are let go.
    const at = this.claims.nowIso();
    const orphans = stored.interactions
      .filter(
        (interaction) =>
          interaction.status === 'pending' && !thread.pendingInteractionIds.includes(interaction.interactionId),
      )
      .map((orphan) => ({
        kind: 'fail' as const,
        interactionId: orphan.interactionId,
        reason: 'cancelled' as const,
        message: SUPERSEDED,
        at,
      }));
    const interactions = [...orphans, ...(from.answer ?? [])];
    if (interactions.length > 0) await run.apply({ next: thread, effects: { interactions } });
    for (const id of thread.pendingInteractionIds) this.timers.disarmDeadline(id);
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
   * Takes a thread forward after its answer was stored on its own: in this process, or by
   * leaving it to the process that holds it (`interactionId`: until it took that answer, or
   * its claim ended). Never throws: the answer is stored.
   */
  async continueStored(threadId: string, interactionId?: string): Promise<Accepted> {
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
        return accepted({ status: 'continued' }, await this.resume(threadId));
      } catch (error) {
        if (!InterlockError.is(error) || error.code !== 'THREAD_BUSY') throw error;
        return accepted({ status: 'elsewhere' });
      }
    } catch (error) {
      const failure = toInterlockError(error);
      return accepted({ status: 'stalled', code: failure.code, message: failure.message });
    }
  }

  /**
   * A thread that now waits durably: if an answer raced the suspension, continue it at once
   * (returns the new run); otherwise arm its deadlines. An answer can have been stored while
   * the run went on by `respond()` in this process, or — once the run's claim was visible in
   * the store, or a caller here joined the run (a worker's job for that answer) — by another
   * process that left the answer to it: then the store is read.
   */
  async afterRun(outcome: ThreadOutcome, run: Run): Promise<ThreadHandle | undefined> {
    if (outcome.status !== 'waiting' || this.isClosed()) return undefined;
    const interactions = [];
    for (const interactionId of outcome.pendingInteractionIds) {
      const known =
        run.claimWasVisible || run.wasJoined || this.responses.wasAnswered(interactionId)
          ? await this.store.getInteraction(interactionId)
          : run.interaction(interactionId);
      if (known?.status === 'pending') interactions.push(known);
      else if (known) return this.continueAnswered(outcome.threadId);
    }
    for (const interaction of interactions) this.timers.arm(interaction);
    return undefined;
  }

  /**
   * A run of this process lost its claim (it froze past its end, or could not renew it) and
   * stopped, writing nothing more (issue 35). If the thread is still at the run's epoch —
   * nobody took it meanwhile — this process is its next holder: it takes the thread forward
   * again, and a call the lost run had started is asked about (F40). A few times in a row at
   * most: a process that keeps losing its claims leaves the thread to another, or to `resume()`.
   */
  async retake(run: Run): Promise<ThreadHandle | undefined> {
    const { threadId, epoch } = run.fence;
    const retaken = this.retakes.get(threadId) ?? 0;
    if (this.isClosed() || retaken >= MAX_RETAKES) return undefined;
    try {
      const stored = await this.store.getThread(threadId);
      if (stored === undefined || stored.epoch !== epoch || this.claims.heldElsewhere(stored)) return undefined;
      this.retakes.set(threadId, retaken + 1);
      const handle = await this.resume(threadId);
      // Once that run (and any that follows it) stops, the count starts again.
      const settled = () => this.retakes.delete(threadId);
      void handle.done().then(settled, settled);
      return handle;
    } catch {
      return undefined;
    }
  }

  /**
   * Continues a thread whose answer arrived while its run suspended. If another process
   * claimed it first, that process applies the answer: this run ends as it was (waiting).
   */
  /** Joins the run behind a handle of this process (issue 38): it reads the store for answers when it stops. */
  private join(handle: ThreadHandle): ThreadHandle {
    this.runs.runOf(handle)?.join();
    return handle;
  }

  private async continueAnswered(threadId: string): Promise<ThreadHandle | undefined> {
    try {
      return await this.resume(threadId);
    } catch (error) {
      if (InterlockError.is(error) && error.code === 'THREAD_BUSY') return this.runs.get(threadId)?.handle;
      throw error;
    }
  }

  assertNotHeldElsewhere(thread: Pick<ThreadRecord, 'threadId' | 'lease'>): void {
    const { lease } = thread;
    if (lease === undefined || !this.claims.heldElsewhere(thread)) return;
    throw new InterlockError(
      'THREAD_BUSY',
      `thread ${thread.threadId} is being taken forward by another process right now: answer what it asks with respond(), or try again once that process stops (its claim runs until ${lease.until})`,
    );
  }
}

/** Only a thread that waits or was interrupted (running in the store, no live run) resumes. */
export function assertResumable(thread: Pick<ThreadRecord, 'threadId' | 'status'>): void {
  if (thread.status !== 'waiting' && thread.status !== 'running') {
    throw new InterlockError(
      'THREAD_NOT_WAITING',
      `thread ${thread.threadId} is ${thread.status}; only waiting or interrupted threads resume`,
    );
  }
}
