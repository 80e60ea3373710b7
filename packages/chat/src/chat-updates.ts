import type { Subscribable } from '@interlock/sdk-types';

type Observer<T> = { next?: (value: T) => void; error?: (error: unknown) => void; complete?: () => void };

/**
 * A hot stream of values for any number of subscribers: the shape of an RxJS `Observable`'s
 * `subscribe`, without depending on rxjs (apps/web does not list it). RxJS interop: it has
 * `Symbol.observable` (`"@@observable"`), so `from(updates$)` makes it an `Observable`.
 */
export class Updates<T> implements Subscribable<T> {
  private readonly observers = new Set<Observer<T>>();
  private closed = false;

  subscribe(observer: Observer<T> | ((value: T) => void)): { unsubscribe(): void } {
    const subscriber: Observer<T> = typeof observer === 'function' ? { next: observer } : observer;
    if (this.closed) {
      subscriber.complete?.();
      return { unsubscribe: () => undefined };
    }
    this.observers.add(subscriber);
    return { unsubscribe: () => void this.observers.delete(subscriber) };
  }

  ['@@observable'](): this {
    return this;
  }

  /** Sends a value to every subscriber; one subscriber's throw does not stop the others. */
  emit(value: T): void {
    for (const observer of [...this.observers]) {
      try {
        observer.next?.(value);
      } catch (error) {
        queueMicrotask(() => {
          throw error;
        });
      }
    }
  }

  complete(): void {
    if (this.closed) return;
    this.closed = true;
    for (const observer of [...this.observers]) observer.complete?.();
    this.observers.clear();
  }
}
