import { filter, type MonoTypeOperatorFunction, type OperatorFunction } from 'rxjs';
import type { EventOfType, InterlockEvent, InterlockEventType } from '@interlock/sdk-types';

/** Keeps the events of the given types, typed accordingly. */
export function ofType<T extends InterlockEventType>(...types: T[]): OperatorFunction<InterlockEvent, EventOfType<T>> {
  const wanted = new Set<InterlockEventType>(types);
  return filter((event): event is EventOfType<T> => wanted.has(event.type));
}

/** Keeps the events of one thread. */
export function forThread(threadId: string): MonoTypeOperatorFunction<InterlockEvent> {
  return filter((event) => event.threadId === threadId);
}

/** Keeps the events of one interaction. */
export function forInteraction(interactionId: string): MonoTypeOperatorFunction<InterlockEvent> {
  return filter((event) => 'interactionId' in event && event.interactionId === interactionId);
}
