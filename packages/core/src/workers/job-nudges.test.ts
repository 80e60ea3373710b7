import { describe, expect, it } from 'vitest';
import { JobNudges } from './job-nudges.js';

const QUEUE = 'app_jobs';
const TASKS = new Set(['interlock:refund']);

/** `count` processes of one group that see each other, on a clock the test moves. */
async function group(count: number, pollMs = 500) {
  const clock = { now: 0 };
  let names: string[] = [];
  const processes = Array.from(
    { length: count },
    () =>
      new JobNudges(
        QUEUE,
        TASKS,
        pollMs,
        async () => names,
        () => clock.now,
      ),
  );
  names = processes.map((process) => process.applicationName);
  for (const process of processes) await process.readPeersNow();
  return { clock, processes };
}

const due = (
  ticket: number,
  jobs: Record<string, number> = { 'interlock:refund': 1 },
  queue = QUEUE,
  keys: string[] = [],
) => JSON.stringify({ count: 0, interlock: { queue, ticket, due: jobs, keys } });

describe('JobNudges', () => {
  it('routes each announced due job to exactly one process of the group that serves its task', async () => {
    const { processes } = await group(4);
    const chosen = new Map<number, number>();
    for (let ticket = 0; ticket < 200; ticket += 1) {
      const woken = processes.map((process) => process.notified(due(ticket / 200)));
      expect(woken.reduce((sum, count) => sum + count, 0)).toBe(1);
      const index = woken.indexOf(1);
      chosen.set(index, (chosen.get(index) ?? 0) + 1);
    }
    // Spread over the processes, not all to one.
    expect([...chosen.keys()].sort()).toEqual([0, 1, 2, 3]);
    expect(Math.min(...chosen.values())).toBeGreaterThan(20);
  });

  it('routes several due jobs of one unit one by one, and ignores other queues, other tasks and graphile-worker’s own', async () => {
    const { processes } = await group(3);
    const woken = processes.map((process) => process.notified(due(0.5, { 'interlock:refund': 6 })));
    expect(woken.reduce((sum, count) => sum + count, 0)).toBe(6);
    for (const process of processes) {
      expect(process.notified(due(0.5, { 'interlock:refund': 1 }, 'other_jobs'))).toBe(0);
      expect(process.notified(due(0.5, { 'interlock:other': 1 }))).toBe(0);
      expect(process.notified(JSON.stringify({ r: 0.3, count: 1 }))).toBe(0);
      expect(process.notified('not json')).toBe(0);
      expect(process.notified(undefined)).toBe(0);
    }
  });

  it('fetches for a routed job, and otherwise once per poll interval per process, not once per worker', async () => {
    const { clock, processes } = await group(1);
    const [process] = processes;
    if (process === undefined) throw new Error('no process');
    expect(process.admit()).toBe('poll');
    expect(process.admit()).toBeUndefined();
    expect(process.notified(due(0.1))).toBe(1);
    expect(process.admit()).toBe('announced');
    expect(process.fetched('announced', 'continue:thread-1')).toBe(0);
    expect(process.admit()).toBeUndefined();
    clock.now = 499;
    expect(process.admit()).toBeUndefined();
    clock.now = 500;
    expect(process.admit()).toBe('poll');
    expect(process.admit()).toBeUndefined();
  });

  it('drains jobs nobody announced: a fetch that finds one looks again and wakes one more worker, until one finds none', async () => {
    const { processes } = await group(1);
    const [process] = processes;
    if (process === undefined) throw new Error('no process');
    expect(process.admit()).toBe('poll');
    expect(process.fetched('poll', 'deadline:1')).toBe(1);
    expect([process.admit(), process.admit(), process.admit()]).toEqual(['discovered', 'discovered', undefined]);
    expect(process.fetched('discovered', null)).toBe(1);
    expect(process.fetched('discovered', undefined)).toBe(0);
    expect([process.admit(), process.admit(), process.admit()]).toEqual(['discovered', 'discovered', undefined]);
  });

  it('tells a job announced to another process, that a poll took first, from a backlog', async () => {
    const { clock, processes } = await group(2);
    const [first, second] = processes;
    if (first === undefined || second === undefined) throw new Error('no processes');
    const announcement = due(0.5, { 'interlock:refund': 1 }, QUEUE, ['continue:thread-1']);
    const woken = [first.notified(announcement), second.notified(announcement)];
    const other = woken[0] === 1 ? second : first;
    clock.now = 1_000;
    expect(other.admit()).toBe('poll');
    expect(other.fetched('poll', 'continue:thread-1')).toBe(0);
    expect(other.admit()).toBeUndefined();
  });

  it('takes a process that joins into the routing, and one that leaves out of it', async () => {
    const { processes } = await group(2);
    const [first, second] = processes;
    if (first === undefined || second === undefined) throw new Error('no processes');
    const late = new JobNudges(QUEUE, TASKS, 500, async () => [first.applicationName, second.applicationName]);
    await late.readPeersNow();
    first.notified(late.joining);
    second.notified(late.joining);
    const woken = () => [first, second, late].map((process) => process.notified(due(0.25)));
    expect(woken().reduce((sum, count) => sum + count, 0)).toBe(1);
    const routedTo = woken().indexOf(1);
    const leaving = [first, second, late][routedTo];
    if (leaving === undefined) throw new Error('no process was routed to');
    for (const process of [first, second, late]) process.notified(leaving.leaving);
    const after = [first, second, late].map((process, index) => (index === routedTo ? 0 : process.notified(due(0.25))));
    expect(after.reduce((sum, count) => sum + count, 0)).toBe(1);
  });
});
