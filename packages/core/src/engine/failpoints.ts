/**
 * Named points where crash tests kill the process (SIGKILL), to prove that a restart at
 * any of them loses nothing and runs nothing twice. A no-op unless the environment
 * variable INTERLOCK_CRASH_AT names the point (optionally `name:N` for its N-th visit).
 */
export type Failpoint =
  | 'interaction:requested'
  | 'interaction:answer-stored'
  | 'interaction:applied'
  | 'tool:approved'
  | 'tool:started'
  | 'tool:effect-done'
  | 'node:checkpointed';

const visits = new Map<string, number>();

/** The point INTERLOCK_CRASH_AT names and at which visit, if any (read once: the crash tests set it per process). */
let armedTarget: { point: string; nth: number } | null | undefined;

function target(): { point: string; nth: number } | undefined {
  if (armedTarget === undefined) {
    const value = process.env['INTERLOCK_CRASH_AT'];
    // Point names contain a colon themselves: `tool:started`, or `tool:started:2` for the 2nd visit.
    const [, point = '', nth = '1'] = value ? (/^(.*?)(?::(\d+))?$/.exec(value) ?? []) : [];
    armedTarget = value ? { point, nth: Number(nth) } : null;
  }
  return armedTarget ?? undefined;
}

/** Whether a crash test targets this point. */
export function isArmed(name: Failpoint): boolean {
  return target()?.point === name;
}

export function failpoint(name: Failpoint): void {
  const armed = target();
  if (armed?.point !== name) return;
  const nth = armed.nth;
  const count = (visits.get(name) ?? 0) + 1;
  visits.set(name, count);
  if (count === nth) process.kill(process.pid, 'SIGKILL');
}
