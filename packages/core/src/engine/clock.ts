import { Observable } from 'rxjs';

/** Time, injectable so tests can control it. */
export interface Clock {
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

// setTimeout cannot wait longer than about 24.8 days; longer waits are chained.
const MAX_TIMEOUT = 2_147_483_647;

/** Emits once at an absolute time (milliseconds since the epoch), however far away. */
export function timerUntil(deadline: number, clock: Clock): Observable<void> {
  return new Observable<void>((subscriber) => {
    let handle: ReturnType<typeof setTimeout> | undefined;
    const arm = () => {
      const remaining = deadline - clock.now();
      if (remaining <= 0) {
        subscriber.next();
        subscriber.complete();
        return;
      }
      handle = setTimeout(arm, Math.min(remaining, MAX_TIMEOUT));
    };
    arm();
    return () => clearTimeout(handle);
  });
}
