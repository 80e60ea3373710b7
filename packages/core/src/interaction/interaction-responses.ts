import { defer, filter, map, of, Subject, take, type Observable } from 'rxjs';

/**
 * Tells a wait in this process that its interaction was answered through `respond()`.
 * An answer that arrives just before the wait subscribes is remembered until the wait
 * ends (`forget`), so it is never missed.
 */
export class InteractionResponses {
  private readonly answered = new Subject<string>();
  private readonly early = new Set<string>();

  notify(interactionId: string): void {
    this.early.add(interactionId);
    this.answered.next(interactionId);
  }

  /** Emits once when this interaction is answered elsewhere. */
  answered$(interactionId: string): Observable<void> {
    return defer(() =>
      this.early.has(interactionId)
        ? of(undefined)
        : this.answered.pipe(
            filter((id) => id === interactionId),
            take(1),
            map(() => undefined),
          ),
    );
  }

  /** Whether `respond()` in this process answered it and no wait took the answer yet. */
  wasAnswered(interactionId: string): boolean {
    return this.early.has(interactionId);
  }

  forget(interactionId: string): void {
    this.early.delete(interactionId);
  }

  /** True while any wait listens (used to prove nothing leaks). */
  get observed(): boolean {
    return this.answered.observed;
  }
}
