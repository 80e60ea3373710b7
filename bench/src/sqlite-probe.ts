/**
 * Counts what the SQLite store does, without touching core: it wraps better-sqlite3's
 * `Database.prototype.prepare` and the statement prototype's `run`/`all`/`get` (the same
 * module instance @interlock/core loads, resolved from core's directory), and labels each
 * statement with the store method that issued it (each method of the store instance is
 * wrapped in an AsyncLocalStorage scope; the store's serial queue schedules the
 * transaction inside that scope, so the label survives).
 *
 * A "commit" is a COMMIT (or an autocommit statement outside BEGIN) of a transaction that
 * changed at least one row: only those append WAL frames and fsync under
 * synchronous=FULL. Read transactions (BEGIN … SELECT … COMMIT) and write transactions
 * that changed nothing (a conditional UPDATE that matched no row) are counted apart.
 * Used only by the profiling modes: the timed measurements run without it.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { performance } from 'node:perf_hooks';
import { requireFromCore } from './scenario.js';

interface NativeStatement {
  readonly source: string;
  readonly reader: boolean;
  run(...parameters: unknown[]): { changes: number };
  all(...parameters: unknown[]): unknown[];
  get(...parameters: unknown[]): unknown;
}
interface NativeDatabase {
  readonly open: boolean;
  prepare(sql: string): NativeStatement;
  pragma(sql: string, options?: { simple?: boolean }): unknown;
  close(): void;
}
export type DatabaseConstructor = (new (file: string) => NativeDatabase) & { prototype: NativeDatabase };

export const Database = requireFromCore('better-sqlite3') as DatabaseConstructor;

export interface TransactionRecord {
  label: string;
  statements: string[];
  changes: number;
  commitMs: number;
}

const scope = new AsyncLocalStorage<string>();

export class SqliteProbe {
  readonly transactions: TransactionRecord[] = [];
  readonly connections = new Set<NativeDatabase>();
  statements = 0;
  private open: TransactionRecord | undefined;
  enabled = true;

  reset(): void {
    this.transactions.length = 0;
    this.statements = 0;
  }

  /** Commits that wrote (changed ≥ 1 row), per label. */
  summary(roundTrips: number): Record<string, unknown> {
    const byLabel = new Map<string, { writeCommits: number; emptyWriteCommits: number; readTransactions: number; statements: number; commitMs: number }>();
    let writeCommits = 0;
    let commitMs = 0;
    for (const tx of this.transactions) {
      const entry = byLabel.get(tx.label) ?? { writeCommits: 0, emptyWriteCommits: 0, readTransactions: 0, statements: 0, commitMs: 0 };
      const wrote = tx.changes > 0;
      const triedToWrite = tx.statements.some((sql) => /^(INSERT|UPDATE|DELETE)/i.test(sql));
      if (wrote) {
        entry.writeCommits++;
        writeCommits++;
        entry.commitMs += tx.commitMs;
        commitMs += tx.commitMs;
      } else if (triedToWrite) entry.emptyWriteCommits++;
      else entry.readTransactions++;
      entry.statements += tx.statements.length;
      byLabel.set(tx.label, entry);
    }
    const per = (x: number) => Math.round((x / roundTrips) * 100) / 100;
    return {
      round_trips: roundTrips,
      write_commits_per_round_trip: per(writeCommits),
      transactions_per_round_trip: per(this.transactions.length),
      statements_per_round_trip: per(this.statements),
      commit_statement_ms_per_round_trip: Math.round((commitMs / roundTrips) * 1000) / 1000,
      by_store_method: Object.fromEntries(
        [...byLabel.entries()]
          .sort((a, b) => b[1].statements - a[1].statements)
          .map(([label, entry]) => [
            label,
            {
              write_commits: per(entry.writeCommits),
              empty_write_commits: per(entry.emptyWriteCommits),
              read_transactions: per(entry.readTransactions),
              statements: per(entry.statements),
              commit_ms: Math.round((entry.commitMs / roundTrips) * 1000) / 1000,
            },
          ]),
      ),
    };
  }

  /** One example transaction per label, statements with their SQL shortened. */
  examples(): Record<string, string[]> {
    const out: Record<string, string[]> = {};
    for (const tx of this.transactions) if (!(tx.label in out)) out[tx.label] = tx.statements.map((sql) => (sql.length > 160 ? sql.slice(0, 160) + '…' : sql));
    return out;
  }

  observe(sql: string, changes: number, ms: number): void {
    if (!this.enabled) return;
    this.statements++;
    const verb = /^\s*(\w+)/.exec(sql)?.[1]?.toUpperCase() ?? '';
    if (verb === 'BEGIN') {
      this.open = { label: scope.getStore() ?? '(outside a store method)', statements: [sql], changes: 0, commitMs: 0 };
      return;
    }
    if (!this.open) {
      // An autocommit statement: its own transaction.
      this.transactions.push({ label: scope.getStore() ?? '(outside a store method)', statements: [sql], changes, commitMs: ms });
      return;
    }
    this.open.statements.push(sql);
    this.open.changes += changes;
    if (verb === 'COMMIT' || verb === 'ROLLBACK') {
      this.open.commitMs = ms;
      this.transactions.push(this.open);
      this.open = undefined;
    }
  }
}

let installed: SqliteProbe | undefined;

/**
 * Installs the probe once per process (before the store opens). With `countStatements`
 * false it only records the connections (so a measurement can set a PRAGMA on core's
 * connection) and adds no cost per statement.
 */
export function installSqliteProbe(countStatements = true): SqliteProbe {
  if (installed) return installed;
  const probe = new SqliteProbe();
  installed = probe;
  const prepare = Database.prototype.prepare;
  let statementPrototypePatched = false;
  Database.prototype.prepare = function patchedPrepare(this: NativeDatabase, sql: string): NativeStatement {
    probe.connections.add(this);
    const statement = prepare.call(this, sql);
    if (countStatements && !statementPrototypePatched) {
      statementPrototypePatched = true;
      const proto = Object.getPrototypeOf(statement) as NativeStatement;
      const run = proto.run;
      const all = proto.all;
      const get = proto.get;
      proto.run = function patchedRun(this: NativeStatement, ...parameters: unknown[]) {
        const started = performance.now();
        const result = run.apply(this, parameters);
        probe.observe(this.source, result.changes, performance.now() - started);
        return result;
      };
      proto.all = function patchedAll(this: NativeStatement, ...parameters: unknown[]) {
        const result = all.apply(this, parameters);
        probe.observe(this.source, 0, 0);
        return result;
      };
      proto.get = function patchedGet(this: NativeStatement, ...parameters: unknown[]) {
        const result = get.apply(this, parameters);
        probe.observe(this.source, 0, 0);
        return result;
      };
    }
    return statement;
  };
  return probe;
}

/** Wraps every method of a store instance so the probe knows which one issued a statement; counts the calls too. */
export function labelStoreMethods(store: object): Map<string, number> {
  const calls = new Map<string, number>();
  const target = store as Record<string, unknown>;
  for (let proto = Object.getPrototypeOf(store) as object | null; proto && proto !== Object.prototype; proto = Object.getPrototypeOf(proto) as object | null) {
    for (const name of Object.getOwnPropertyNames(proto)) {
      const method = target[name];
      if (name === 'constructor' || typeof method !== 'function' || Object.prototype.hasOwnProperty.call(target, name)) continue;
      if (['write', 'read', 'schedule', 'unavailable'].includes(name)) continue;
      target[name] = function labelled(this: unknown, ...parameters: unknown[]) {
        calls.set(name, (calls.get(name) ?? 0) + 1);
        const outer = scope.getStore();
        return outer === undefined ? scope.run(name, () => (method as (...a: unknown[]) => unknown).apply(store, parameters)) : (method as (...a: unknown[]) => unknown).apply(store, parameters);
      };
    }
  }
  return calls;
}

/** PRAGMA synchronous of every connection the probe saw (2 = FULL, 1 = NORMAL). */
export function synchronousOf(probe: SqliteProbe): unknown[] {
  return [...probe.connections].map((connection) => (connection.open ? connection.pragma('synchronous', { simple: true }) : 'closed'));
}
