import { Observable, Subject } from 'rxjs';
import type { InterlockEvent } from '@interlock/sdk-types';

/** Every event of every thread in this process, in the order they happen. */
export class EventBus {
  private readonly subject = new Subject<InterlockEvent>();
  /** Subjects of the threads someone follows: an event reaches its thread's followers without passing every other thread's filter. */
  private readonly threads = new Map<string, Subject<InterlockEvent>>();
  private subscriberCount = 0;

  readonly events$: Observable<InterlockEvent> = new Observable<InterlockEvent>((subscriber) => {
    this.subscriberCount += 1;
    const subscription = this.subject.subscribe(subscriber);
    return () => {
      this.subscriberCount -= 1;
      subscription.unsubscribe();
    };
  });

  /** The events of one thread (as `events$.pipe(forThread(threadId))`, at a constant cost per event however many threads run). */
  thread$(threadId: string): Observable<InterlockEvent> {
    return new Observable<InterlockEvent>((subscriber) => {
      let subject = this.threads.get(threadId);
      if (subject === undefined) {
        subject = new Subject<InterlockEvent>();
        this.threads.set(threadId, subject);
      }
      const followed = subject;
      this.subscriberCount += 1;
      const subscription = followed.subscribe(subscriber);
      return () => {
        this.subscriberCount -= 1;
        subscription.unsubscribe();
        if (!followed.observed && this.threads.get(threadId) === followed) this.threads.delete(threadId);
      };
    });
  }

  publish(event: InterlockEvent): void {
    this.subject.next(event);
    this.threads.get(event.threadId)?.next(event);
  }

  /** How many subscriptions are open right now; lets tests prove that waits leak nothing (F20). */
  get openSubscriptions(): number {
    return this.subscriberCount;
  }

  complete(): void {
    this.subject.complete();
    for (const subject of this.threads.values()) subject.complete();
    this.threads.clear();
  }
}
