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
}

const counts: PgCounts = { statements: 0, roundTrips: 0 };
const unanswered = new WeakMap<object, number>();

/** Installs the counter once per process. */
export function countPgStatements(): void {
  const pg = requireFromCore('pg') as { Client: { prototype: { query: (...args: unknown[]) => unknown } } };
  const original = pg.Client.prototype.query;
  if ((original as { counted?: boolean }).counted) return;
  const counted = function (this: object, ...args: unknown[]): unknown {
    const result = original.apply(this, args);
    if (!(result instanceof Promise)) return result;
    counts.statements += 1;
    const waiting = unanswered.get(this) ?? 0;
    if (waiting === 0) counts.roundTrips += 1;
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
  const taken = { ...counts };
  counts.statements = 0;
  counts.roundTrips = 0;
  return taken;
}
