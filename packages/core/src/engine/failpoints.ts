/**
 * Named points where crash tests kill the process (SIGKILL), to prove that a restart at
 * any of them loses nothing and runs nothing twice. A no-op unless the environment
 * variable INTERLOCK_CRASH_AT names the point (optionally `name:N` for its N-th visit).
 */
export type Failpoint =
  | 'interaction:requested'
  | 'interaction:answer-stored'
  | 'tool:approved'
  | 'tool:started'
  | 'tool:effect-done'
  | 'node:checkpointed';

const visits = new Map<string, number>();

export function failpoint(name: Failpoint): void {
  const target = process.env['INTERLOCK_CRASH_AT'];
  if (!target) return;
  // Point names contain a colon themselves: `tool:started`, or `tool:started:2` for the 2nd visit.
  const [, point, nth = '1'] = /^(.*?)(?::(\d+))?$/.exec(target) ?? [];
  if (point !== name) return;
  const count = (visits.get(name) ?? 0) + 1;
  visits.set(name, count);
  if (count === Number(nth)) process.kill(process.pid, 'SIGKILL');
}
