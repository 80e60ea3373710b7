import { Observable, Subject } from 'rxjs';
import type { InterlockEvent } from '@interlock/sdk-types';

/** Every event of every thread in this process, in the order they happen. */
export class EventBus {
  private readonly subject = new Subject<InterlockEvent>();
  private subscriberCount = 0;

  readonly events$: Observable<InterlockEvent> = new Observable<InterlockEvent>((subscriber) => {
    this.subscriberCount += 1;
    const subscription = this.subject.subscribe(subscriber);
    return () => {
      this.subscriberCount -= 1;
      subscription.unsubscribe();
    };
  });

  publish(event: InterlockEvent): void {
    this.subject.next(event);
  }

  /** How many subscriptions are open right now; lets tests prove that waits leak nothing (F20). */
  get openSubscriptions(): number {
    return this.subscriberCount;
  }

  complete(): void {
    this.subject.complete();
  }
}
