import { Observable } from 'rxjs';

/** Time, injectable so tests can control it. */
export interface Clock {
  now(): number;
}

/**
 * A wall clock that never steps back. It reads `wall` (ms since the epoch); when a reading
 * is earlier than the last one (an NTP correction, an operator's `date -s`), the step is
 * made up by an offset and time goes on at the rate of `monotonic` time; when the wall
 * clock later runs ahead of monotonic time, the offset is paid back, never below zero.
 * Deadlines, claims and remembered approvals are measured with it, so a backward step
 * never extends them; a forward step is followed at once.
 */
export function steadyClock(wall: () => number = Date.now, monotonic: () => number = () => performance.now()): Clock {
  let lastWall = wall();
  let lastMonotonic = monotonic();
  let offset = 0;
  return {
    now() {
      const reading = wall();
      const elapsed = monotonic();
      const wallStep = reading - lastWall;
      const monotonicStep = elapsed - lastMonotonic;
      lastWall = reading;
      lastMonotonic = elapsed;
      if (wallStep < 0) offset += monotonicStep - wallStep;
      else if (offset > 0 && wallStep > monotonicStep) offset = Math.max(0, offset - (wallStep - monotonicStep));
      return Math.floor(reading + offset);
    },
  };
}

// setTimeout cannot wait longer than about 24.8 days; longer waits are chained.
const MAX_TIMEOUT = 2_147_483_647;

/**
 * Emits once at an absolute time (milliseconds since the epoch), however far away.
 * `keepsProcessAlive: false`: the wait alone does not keep the process running (an unref'd timer).
 */
export function timerUntil(
  deadline: number,
  clock: Clock,
  options: { keepsProcessAlive?: boolean } = {},
): Observable<void> {
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
      if (options.keepsProcessAlive === false) handle.unref();
    };
    arm();
    return () => clearTimeout(handle);
  });
}

let lastIsoMs = Number.NaN;
let lastIso = '';

/**
 * `new Date(ms).toISOString()`, remembered for the last millisecond asked: a round trip
 * stamps its events, records and claims with the same few milliseconds, and building the
 * text is a large part of what stamping costs.
 */
export function isoTime(ms: number): string {
  if (ms !== lastIsoMs) {
    lastIso = new Date(ms).toISOString();
    lastIsoMs = ms;
  }
  return lastIso;
}
