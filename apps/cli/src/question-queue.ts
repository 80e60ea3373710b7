import type { UserInteractionHandlerResult, UserInteractionRequest } from '@interlock/sdk-types';

/** One question waiting in a {@link QuestionQueue}. */
export interface QueuedQuestion {
  readonly request: UserInteractionRequest;
  /** Fires when the engine no longer needs the answer (answered elsewhere, timed out, shut down). */
  readonly signal: AbortSignal;
  /** True once answered or withdrawn; later calls to `settle` are ignored. */
  readonly settled: boolean;
  /** Gives the handler's result for this question (once; later calls are ignored). */
  settle(result: UserInteractionHandlerResult): void;
}

const DEFERRED: UserInteractionHandlerResult = { outcome: 'deferred' };

class Entry implements QueuedQuestion {
  settled = false;

  constructor(
    readonly request: UserInteractionRequest,
    readonly signal: AbortSignal,
    private readonly resolve: (result: UserInteractionHandlerResult) => void,
    private readonly reject: (error: unknown) => void,
  ) {}

  settle(result: UserInteractionHandlerResult): void {
    if (this.settled) return;
    this.settled = true;
    this.resolve(result);
  }

  fail(error: unknown): void {
    if (this.settled) return;
    this.settled = true;
    this.reject(error);
  }
}

/**
 * Serialises questions: a terminal can show one prompt at a time, but the engine asks about
 * every call of a model turn at once. Questions that arrive together (within one turn of
 * the event loop, as the calls of one turn do) are handed over as one batch, so the person
 * sees them all before answering; batches are answered one after another. A question
 * withdrawn while it waits (its signal fires) is settled as `deferred` and never shown.
 *
 * @example
 * const queue = new QuestionQueue(async (batch) => { for (const question of batch) question.settle(await ask(question)); });
 * const result = await queue.enqueue(request, context.signal);
 */
export class QuestionQueue {
  private waiting: Entry[] = [];
  private draining = false;

  /**
   * @param answerBatch - answers a batch: settles each question (those it leaves unsettled
   *   are deferred; if it throws, they fail with its error).
   */
  constructor(private readonly answerBatch: (batch: QueuedQuestion[]) => Promise<void>) {}

  /** Queues a question; resolves with the handler's result once it is answered or withdrawn. */
  enqueue(request: UserInteractionRequest, signal: AbortSignal): Promise<UserInteractionHandlerResult> {
    return new Promise((resolve, reject) => {
      const entry = new Entry(request, signal, resolve, reject);
      signal.addEventListener(
        'abort',
        () => {
          if (!this.waiting.includes(entry)) return;
          this.waiting = this.waiting.filter((candidate) => candidate !== entry);
          entry.settle(DEFERRED);
        },
        { once: true },
      );
      this.waiting.push(entry);
      if (!this.draining) void this.drain();
    });
  }

  private async drain(): Promise<void> {
    this.draining = true;
    try {
      for (;;) {
        // The calls of one model turn are asked about within one turn of the event loop: let them all arrive.
        await new Promise((resolve) => setImmediate(resolve));
        const batch = this.waiting.filter((entry) => !entry.settled && !entry.signal.aborted);
        for (const entry of this.waiting) if (entry.signal.aborted) entry.settle(DEFERRED);
        this.waiting = [];
        if (batch.length === 0) return;
        try {
          await this.answerBatch(batch);
        } catch (error) {
          for (const entry of batch) entry.fail(error);
        }
        for (const entry of batch) entry.settle(DEFERRED);
      }
    } finally {
      this.draining = false;
    }
  }
}
