/**
 * Counts what this process sends to PostgreSQL (issue 18): every statement, and every
 * network round trip — a statement sent while another is still unanswered on the same
 * connection (pg's pipeline mode) travels with it and adds none. It wraps
 * `Client.prototype.query` of core's copy of pg, which graphile-worker shares.
 */
import { requireFromCore } from './scenario.js';

/** What the counter has seen since it was installed or last reset. */
export interface PgCounts {
  statements: number;
  roundTrips: number;
  /** graphile-worker's job fetches sent, and those that found no job. */
  jobFetches: number;
  emptyJobFetches: number;
  /** With BENCH_PG_TRACE=1: statements and network round trips per statement text (its start). */
  byStatement?: Record<string, { statements: number; roundTrips: number }>;
}

const counts: PgCounts = { statements: 0, roundTrips: 0, jobFetches: 0, emptyJobFetches: 0 };

/** What only graphile-worker's job fetch sends (its getJob: the lock it takes on a job). */
const JOB_FETCH = 'attempts = jobs.attempts + 1';

function textOf(config: unknown): string | undefined {
  if (typeof config === 'string') return config;
  const text = typeof config === 'object' && config !== null ? (config as { text?: unknown }).text : undefined;
  return typeof text === 'string' ? text : undefined;
}
const unanswered = new WeakMap<object, number>();
const tracing = process.env['BENCH_PG_TRACE'] === '1';
let byStatement: Record<string, { statements: number; roundTrips: number }> = {};

/** Installs the counter once per process. */
export function countPgStatements(): void {
  const pg = requireFromCore('pg') as { Client: { prototype: { query: (...args: unknown[]) => unknown } } };
  const original = pg.Client.prototype.query;
  if ((original as { counted?: boolean }).counted) return;
  const counted = function (this: object, ...args: unknown[]): unknown {
    const result = original.apply(this, args);
    if (!(result instanceof Promise)) return result;
    counts.statements += 1;
    if (textOf(args[0])?.includes(JOB_FETCH) === true) {
      counts.jobFetches += 1;
      result.then(
        (answer: unknown) => {
          if ((answer as { rowCount?: number | null }).rowCount === 0) counts.emptyJobFetches += 1;
        },
        () => undefined,
      );
    }
    const waiting = unanswered.get(this) ?? 0;
    if (waiting === 0) counts.roundTrips += 1;
    if (tracing) {
      const key = (textOf(args[0]) ?? '?').replace(/\s+/g, ' ').slice(0, 90);
      const entry = (byStatement[key] ??= { statements: 0, roundTrips: 0 });
      entry.statements += 1;
      if (waiting === 0) entry.roundTrips += 1;
    }
    unanswered.set(this, waiting + 1);
    const settle = () => unanswered.set(this, (unanswered.get(this) ?? 1) - 1);
    result.then(settle, settle);
    return result;
  };
  (counted as { counted?: boolean }).counted = true;
  pg.Client.prototype.query = counted;
}

/** The counts so far, and a reset. */
export function takePgCounts(): PgCounts {
  const taken: PgCounts = { ...counts, ...(tracing ? { byStatement } : {}) };
  byStatement = {};
  counts.statements = 0;
  counts.roundTrips = 0;
  counts.jobFetches = 0;
  counts.emptyJobFetches = 0;
  return taken;
}
