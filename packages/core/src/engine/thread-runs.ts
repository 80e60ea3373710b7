import { ReplaySubject } from 'rxjs';
import type { InterlockEvent } from '@interlock/sdk-types';
import type { NodeExecutionCoordinator } from '../coordinators/node-execution-coordinator.js';
import type { EventBus } from '../events/event-bus.js';
import type { ICheckpointStore, ThreadRecord } from '../persistence/checkpoint-store.js';
import { durable } from './durability.js';
import { CLAIM_LOST, SHUTDOWN } from './shutdown.js';
import type { ThreadClaims } from './thread-claims.js';
import type { ThreadHandle } from './thread-handle.js';
import { outcomeOf, type ThreadOutcome } from './thread-outcome.js';

interface ActiveRun {
  handle: ThreadHandle;
  controller: AbortController;
  finished: Promise<ThreadOutcome>;
}

/**
 * The runs of this process: each takes a claimed thread forward until it ends or waits,
 * renewing the claim meanwhile (a claim lost to another process stops the run, which then
 * writes nothing), frees the claim and makes its state durable when it stops, and hands the
 * outcome to `onStopped`, which may continue the thread at once (an answer raced the
 * suspension): the handle then follows the run that goes on.
 */
export class ThreadRuns {
  private readonly active = new Map<string, ActiveRun>();

  constructor(
    private readonly coordinator: NodeExecutionCoordinator,
    private readonly bus: EventBus,
    private readonly store: ICheckpointStore,
    private readonly claims: ThreadClaims,
    private readonly onStopped: (outcome: ThreadOutcome) => Promise<ThreadHandle | undefined>,
    /** What a handle's `cancel()` does: cancels the thread, running here or waiting in the store. */
    private readonly cancelThread: (threadId: string, reason?: string) => Promise<void>,
  ) {}

  get(threadId: string): ActiveRun | undefined {
    return this.active.get(threadId);
  }

  get size(): number {
    return this.active.size;
  }

  launch(thread: ThreadRecord, announce: () => void, controller = new AbortController()): ThreadHandle {
    const { threadId } = thread;
    const events = new ReplaySubject<InterlockEvent>();
    const subscription = this.bus.thread$(threadId).subscribe(events);
    const keepAlive = this.claims.keepAlive(thread, () => controller.abort(CLAIM_LOST));
    const end = async () => {
      keepAlive.unsubscribe();
      subscription.unsubscribe();
      this.active.delete(threadId);
      await this.claims.release(thread).catch(() => undefined);
    };
    const finished: Promise<ThreadOutcome> = Promise.resolve()
      .then(() => {
        announce();
        thread.status = thread.pendingInteractionIds.length === 0 ? 'running' : thread.status;
        return this.coordinator.run(thread, controller.signal);
      })
      .then(async (final) => {
        // A run that stops frees its claim and leaves its state durable before anyone hears how it ended.
        await end();
        await durable(this.store);
        return final;
      })
      .then(
        async (final): Promise<ThreadOutcome> => {
          const outcome = outcomeOf(final);
          const next = await this.onStopped(outcome);
          if (!next) {
            events.complete();
            return outcome;
          }
          next.events$.subscribe(events);
          return next.done();
        },
        async (error: unknown) => {
          if (this.active.get(threadId)?.finished === finished) await end();
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
    this.active.set(threadId, { handle, controller, finished });
    return handle;
  }

  /** Cancels a run of this process (false when there is none). */
  async cancel(threadId: string, reason: string | undefined): Promise<boolean> {
    const running = this.active.get(threadId);
    if (!running) return false;
    running.controller.abort(reason ?? 'cancelled by the user');
    await running.finished;
    return true;
  }

  /** Stops every run without cancelling its thread: it stays resumable. */
  async stopAll(): Promise<void> {
    const runs = [...this.active.values()];
    for (const run of runs) run.controller.abort(SHUTDOWN);
    await Promise.allSettled(runs.map((run) => run.finished));
  }
}
