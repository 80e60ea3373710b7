import { ReplaySubject, type Subscription } from 'rxjs';
import type { InterlockEvent } from '@interlock/sdk-types';
import type { NodeExecutionCoordinator } from '../coordinators/node-execution-coordinator.js';
import type { EventBus } from '../events/event-bus.js';
import type { ICheckpointStore, StoredThread, ThreadRecord } from '../persistence/checkpoint-store.js';
import type { EmittedEvent } from './node-executor.js';
import { Run, type RunContext } from './run.js';
import { CLAIM_LOST, SHUTDOWN } from './shutdown.js';
import type { ThreadClaims } from './thread-claims.js';
import type { ThreadHandle } from './thread-handle.js';
import { outcomeOf, type ThreadOutcome } from './thread-outcome.js';

interface ActiveRun {
  run: Run;
  handle: ThreadHandle;
  controller: AbortController;
  finished: Promise<ThreadOutcome>;
}

/**
 * The runs of this process: each takes a thread forward until it ends or waits, holding its
 * claim from its first commit to its last (renewed meanwhile; a claim lost stops the run,
 * which then writes nothing), and hands the outcome to `onStopped`, which may continue the
 * thread at once (an answer raced the suspension): the handle then follows the run that
 * goes on.
 */
export class ThreadRuns {
  private readonly active = new Map<string, ActiveRun>();
  private readonly runsOfHandles = new WeakMap<ThreadHandle, Run>();

  constructor(
    private readonly coordinator: NodeExecutionCoordinator,
    private readonly bus: EventBus,
    private readonly store: ICheckpointStore,
    private readonly claims: ThreadClaims,
    private readonly onStopped: (outcome: ThreadOutcome, run: Run) => Promise<ThreadHandle | undefined>,
    /** What a handle's `cancel()` does: cancels the thread, running here or waiting in the store. */
    private readonly cancelThread: (threadId: string, reason?: string) => Promise<void>,
    /** Told of each event a run publishes, just before it is published. */
    private readonly watch: (event: EmittedEvent) => void = () => undefined,
    /**
     * A run that lost its claim stopped, writing nothing more: takes the thread forward
     * again in this process if nobody else took it (a run whose handle then follows), so
     * that a call it was running is asked about without a `resume()` by hand.
     */
    private readonly onClaimLost: (run: Run) => Promise<ThreadHandle | undefined> = async () => undefined,
    /** The keys of the jobs a unit that ends a thread removes (its recovery: issue 38). */
    private readonly endJobs: (threadId: string) => readonly string[] = () => [],
  ) {}

  get(threadId: string): ActiveRun | undefined {
    return this.active.get(threadId);
  }

  get size(): number {
    return this.active.size;
  }

  /** A run of a new thread (stored by its first commit). */
  fresh(thread: ThreadRecord, controller: AbortController): Run {
    const run: Run = new Run(
      this.runContext(controller, () => run),
      thread,
      { kind: 'new' },
    );
    return stopsWritingOnLostClaim(run, controller);
  }

  /** A run of a thread read from the store (claimed by its first commit). */
  stored(stored: StoredThread, controller: AbortController): Run {
    const run: Run = Run.fromStored(
      this.runContext(controller, () => run),
      stored,
    );
    return stopsWritingOnLostClaim(run, controller);
  }

  private runContext(controller: AbortController, runOf: () => Run): RunContext {
    let keepAlive: Subscription | undefined;
    controller.signal.addEventListener('abort', () => keepAlive?.unsubscribe(), { once: true });
    return {
      store: this.store,
      owner: this.claims.owner,
      leaseUntil: () => this.claims.leaseUntil(),
      endJobs: this.endJobs,
      nowIso: () => this.claims.nowIso(),
      publish: (thread, event) => {
        this.watch(event);
        this.coordinator.emit(thread, event);
      },
      onClaimEnded: () => controller.abort(CLAIM_LOST),
      onClaimed: (_fence, until) => {
        keepAlive?.unsubscribe();
        if (controller.signal.aborted) return;
        const renew = (next: string, now: string) => runOf().renewClaim(next, now);
        keepAlive = this.claims.keepAlive(renew, until, () => controller.abort(CLAIM_LOST));
      },
    };
  }

  launch(run: Run, announce: () => void, controller: AbortController): ThreadHandle {
    const { threadId } = run.thread;
    const events = new ReplaySubject<InterlockEvent>();
    const subscription = this.bus.thread$(threadId).subscribe(events);
    const end = () => {
      if (!controller.signal.aborted) controller.abort(SHUTDOWN);
      subscription.unsubscribe();
      if (this.active.get(threadId)?.run === run) this.active.delete(threadId);
    };
    const finished: Promise<ThreadOutcome> = Promise.resolve()
      .then(() => {
        announce();
        return this.coordinator.run(run, controller.signal);
      })
      .then(
        async (final): Promise<ThreadOutcome> => {
          end();
          const outcome = outcomeOf(final);
          const next = await this.onStopped(outcome, run);
          if (!next) {
            events.complete();
            return outcome;
          }
          next.events$.subscribe(events);
          return next.done();
        },
        async (error: unknown) => {
          run.abandon(error);
          // A run that stops on an error frees its claim if it can (a store that failed may not
          // let it; a claim that was lost is not freed: the run writes nothing more).
          await run.freeClaim().catch(() => undefined);
          end();
          const next = controller.signal.reason === CLAIM_LOST ? await this.onClaimLost(run) : undefined;
          if (next !== undefined) {
            next.events$.subscribe(events);
            return next.done();
          }
          events.complete();
          throw error;
        },
      );
    const handle: ThreadHandle = {
      threadId,
      events$: events.asObservable(),
      done: () => finished,
      cancel: (reason) => this.cancelThread(threadId, reason),
    };
    // Whoever does not wait for it, a run that fails is not an unhandled rejection.
    finished.catch(() => undefined);
    this.active.set(threadId, { run, handle, controller, finished });
    this.runsOfHandles.set(handle, run);
    return handle;
  }

  /** The run behind a handle this class launched. */
  runOf(handle: ThreadHandle): Run | undefined {
    return this.runsOfHandles.get(handle);
  }

  /** Cancels a run of this process (false when there is none). */
  async cancel(threadId: string, reason: string | undefined): Promise<boolean> {
    const running = this.active.get(threadId);
    if (!running) return false;
    running.controller.abort(reason ?? 'cancelled by the user');
    await running.finished.catch(() => undefined);
    return true;
  }

  /** Stops every run without cancelling its thread: it stays resumable. */
  async stopAll(): Promise<void> {
    const runs = [...this.active.values()];
    for (const run of runs) run.controller.abort(SHUTDOWN);
    await Promise.allSettled(runs.map((run) => run.finished));
  }
}

/**
 * A run whose claim is lost writes nothing more (issue 35): the run is told before anything
 * else hears the abort (this listener comes first, before any tool's), so whatever a tool
 * or a step does once it sees the signal aborted is never committed.
 */
function stopsWritingOnLostClaim(run: Run, controller: AbortController): Run {
  const { signal } = controller;
  signal.addEventListener(
    'abort',
    () => {
      if (signal.reason === CLAIM_LOST) run.claimLost();
    },
    { once: true },
  );
  return run;
}
