/**
 * Counts what the SQLite store does, without touching core: it wraps better-sqlite3's
 * `Database.prototype.prepare` and the statement prototype's `run`/`all`/`get` (the same
 * module instance @interlock/core loads, resolved from core's directory), and labels each
 * statement with the store method that issued it (each method of the store instance runs
 * in an AsyncLocalStorage scope).
 *
 * The store (packages/core/src/persistence/sqlite) keeps its writes in one open
 * transaction: the first write opens it (`BEGIN IMMEDIATE`), every later write runs in it
 * (each inside `SAVEPOINT … RELEASE`), and it is committed by `flush('now')` (a durability
 * point), at the end of the event-loop turn (a `setImmediate` scheduled by the BEGIN, which
 * runs in the opener's scope), or by `close()`. So one transaction spans many store
 * methods: each transaction is labelled with the method that opened it (`opener`), lists
 * every method whose statements ran inside it (`methods`), and says what committed it
 * (`committedBy`: `flush('now')`, `end of turn`, `close`). Reads outside a write
 * transaction run as `BEGIN … SELECT … COMMIT` (read transactions).
 *
 * A "write commit" is a COMMIT (or an autocommit statement outside BEGIN) of a transaction
 * that changed at least one row: only those append WAL frames (and fsync the WAL under
 * synchronous=FULL). Write transactions that changed nothing (a conditional UPDATE that
 * matched no row) are counted apart; they write nothing to the WAL. Used only by the
 * `commits` mode: the timed measurements run without the statement wrappers.
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
  /** The store method in whose scope the BEGIN ran. */
  opener: string;
  /** `write` (BEGIN IMMEDIATE or an autocommit write), `read` (BEGIN … SELECT … COMMIT). */
  begin: 'write' | 'read' | 'autocommit';
  /** Statement count per store method, in order of first statement. */
  methods: Map<string, number>;
  /** The statements with the method that ran each. */
  statements: { method: string; sql: string }[];
  changes: number;
  /** What ran the COMMIT: flush('now'), flush('soon') (never: it waits for the end of the turn), close, or the end-of-turn timer. */
  committedBy: string;
  commitMs: number;
}

const OUTSIDE = '(outside a store method)';
const CONTROL = /^\s*(BEGIN|COMMIT|END|ROLLBACK|SAVEPOINT|RELEASE)\b/i;
const scope = new AsyncLocalStorage<string>();

const round2 = (x: number) => Math.round(x * 100) / 100;

/** A write transaction changed at least one row: its COMMIT appends WAL frames (an fsync under FULL). */
export const wrote = (tx: TransactionRecord) => tx.changes > 0;
const triedToWrite = (tx: TransactionRecord) =>
  tx.statements.some(({ sql }) => /^\s*(INSERT|UPDATE|DELETE|REPLACE)/i.test(sql));

/** "opener → methods (committed by)": the shape of one commit. */
export function shapeOf(tx: TransactionRecord): string {
  const methods = [...tx.methods.keys()].filter((m) => m !== tx.opener || tx.methods.size === 1);
  const rest =
    methods.length === 0 || (methods.length === 1 && methods[0] === tx.opener) ? '' : ` + ${methods.join(' + ')}`;
  return `${tx.opener}${rest} [committed by ${tx.committedBy}]`;
}

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

  writeCommits(from = 0, to = this.transactions.length): number {
    let count = 0;
    for (let i = from; i < to; i++) if (wrote(this.transactions[i] as TransactionRecord)) count++;
    return count;
  }

  /** Per round trip: write commits, by opener, by what committed them, and every commit's shape (all methods inside it). */
  summary(roundTrips: number): Record<string, unknown> {
    const per = (x: number) => round2(x / roundTrips);
    const byOpener = new Map<
      string,
      {
        writeCommits: number;
        emptyWriteCommits: number;
        readTransactions: number;
        statements: number;
        commitMs: number;
      }
    >();
    const byCommitter = new Map<string, number>();
    const shapes = new Map<string, { commits: number; changes: number; statements: number }>();
    const methodsInWriteCommits = new Map<string, number>();
    let writeCommits = 0;
    let emptyWrites = 0;
    let reads = 0;
    let commitMs = 0;
    for (const tx of this.transactions) {
      const entry = byOpener.get(tx.opener) ?? {
        writeCommits: 0,
        emptyWriteCommits: 0,
        readTransactions: 0,
        statements: 0,
        commitMs: 0,
      };
      entry.statements += tx.statements.length;
      if (wrote(tx)) {
        entry.writeCommits++;
        entry.commitMs += tx.commitMs;
        writeCommits++;
        commitMs += tx.commitMs;
        byCommitter.set(tx.committedBy, (byCommitter.get(tx.committedBy) ?? 0) + 1);
        const shape = shapeOf(tx);
        const s = shapes.get(shape) ?? { commits: 0, changes: 0, statements: 0 };
        s.commits++;
        s.changes += tx.changes;
        s.statements += tx.statements.length;
        shapes.set(shape, s);
        for (const [method, count] of tx.methods)
          methodsInWriteCommits.set(method, (methodsInWriteCommits.get(method) ?? 0) + count);
      } else if (tx.begin !== 'read' && triedToWrite(tx)) {
        entry.emptyWriteCommits++;
        emptyWrites++;
      } else {
        entry.readTransactions++;
        reads++;
      }
      byOpener.set(tx.opener, entry);
    }
    return {
      round_trips: roundTrips,
      write_commits_per_round_trip: per(writeCommits),
      empty_write_commits_per_round_trip: per(emptyWrites),
      read_transactions_per_round_trip: per(reads),
      transactions_per_round_trip: per(this.transactions.length),
      statements_per_round_trip: per(this.statements),
      commit_statement_ms_per_round_trip: Math.round((commitMs / roundTrips) * 1000) / 1000,
      write_commits_by_committer: Object.fromEntries(
        [...byCommitter.entries()].sort((a, b) => b[1] - a[1]).map(([k, v]) => [k, per(v)]),
      ),
      write_commit_shapes: Object.fromEntries(
        [...shapes.entries()]
          .sort((a, b) => b[1].commits - a[1].commits)
          .map(([shape, s]) => [
            shape,
            {
              commits: per(s.commits),
              rows_changed_per_commit: round2(s.changes / s.commits),
              statements_per_commit: round2(s.statements / s.commits),
            },
          ]),
      ),
      statements_in_write_commits_by_method: Object.fromEntries(
        [...methodsInWriteCommits.entries()].sort((a, b) => b[1] - a[1]).map(([k, v]) => [k, per(v)]),
      ),
      by_opener: Object.fromEntries(
        [...byOpener.entries()]
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

  /** One example per write-commit shape (then per read/empty opener): `[method] SQL`, shortened. */
  examples(): Record<string, string[]> {
    const out: Record<string, string[]> = {};
    for (const tx of this.transactions) {
      const key = wrote(tx)
        ? `write commit: ${shapeOf(tx)}`
        : `${tx.begin === 'read' ? 'read' : 'no-change write'}: ${tx.opener}`;
      if (key in out) continue;
      out[key] = tx.statements.map(
        ({ method, sql }) => `[${method}] ${sql.length > 160 ? sql.slice(0, 160) + '…' : sql}`,
      );
    }
    return out;
  }

  observe(sql: string, changes: number, ms: number): void {
    // The store's `pragma('busy_timeout = …')` around each BEGIN IMMEDIATE: connection settings, not statements of a transaction.
    if (!this.enabled || /^\s*PRAGMA\b/i.test(sql)) return;
    this.statements++;
    const method = scope.getStore() ?? OUTSIDE;
    const control = CONTROL.exec(sql)?.[1]?.toUpperCase();
    if (control === 'BEGIN') {
      this.open = {
        opener: method,
        begin: /IMMEDIATE|EXCLUSIVE/i.test(sql) ? 'write' : 'read',
        methods: new Map(),
        statements: [{ method, sql }],
        changes: 0,
        committedBy: '',
        commitMs: 0,
      };
      return;
    }
    if (!this.open) {
      // An autocommit statement: its own transaction.
      this.transactions.push({
        opener: method,
        begin: 'autocommit',
        methods: new Map([[method, 1]]),
        statements: [{ method, sql }],
        changes,
        committedBy: 'autocommit',
        commitMs: ms,
      });
      return;
    }
    this.open.statements.push({ method, sql });
    this.open.changes += changes;
    if (control === undefined) this.open.methods.set(method, (this.open.methods.get(method) ?? 0) + 1);
    const ends =
      control === 'COMMIT' ||
      control === 'END' ||
      (control === 'ROLLBACK' && !/^\s*ROLLBACK\s+(TRANSACTION\s+)?TO\b/i.test(sql));
    if (ends) {
      this.open.commitMs = ms;
      // The end-of-turn timer runs in the scope of the method whose write opened the transaction.
      this.open.committedBy =
        control === 'ROLLBACK'
          ? 'rollback'
          : method.startsWith('flush') || method === 'close'
            ? method
            : this.open.begin === 'read'
              ? 'read'
              : 'end of turn';
      if (this.open.methods.size === 0) this.open.methods.set(this.open.opener, 0);
      this.transactions.push(this.open);
      this.open = undefined;
    }
  }
}

let installed: SqliteProbe | undefined;

/**
 * Installs the probe once per process (before the store opens). With `countStatements`
 * false it only records the connections (so a measurement can read a PRAGMA of core's
 * connection) and adds no cost per statement.
 */
export function installSqliteProbe(countStatements = true): SqliteProbe {
  if (installed) return installed;
  const probe = new SqliteProbe();
  installed = probe;
  // The original methods are kept to be called with the patched `this` (prepare.call(this, …)).
  // eslint-disable-next-line @typescript-eslint/unbound-method -- see above
  const prepare = Database.prototype.prepare;
  let statementPrototypePatched = false;
  Database.prototype.prepare = function patchedPrepare(this: NativeDatabase, sql: string): NativeStatement {
    probe.connections.add(this);
    const statement = prepare.call(this, sql);
    if (countStatements && !statementPrototypePatched) {
      statementPrototypePatched = true;
      const proto = Object.getPrototypeOf(statement) as NativeStatement;
      // eslint-disable-next-line @typescript-eslint/unbound-method -- called with .apply(this, …) below
      const { run, all, get } = proto;
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

/** Private helpers of the store class: not store methods of the port. */
const NOT_METHODS = new Set(['constructor', 'statement']);

/**
 * Wraps every method of a store instance so the probe knows which one issued a statement;
 * counts the calls too. `flush` is labelled with its argument (`flush('now')`, `flush('soon')`).
 */
export function labelStoreMethods(store: object): Map<string, number> {
  const calls = new Map<string, number>();
  const target = store as Record<string, unknown>;
  for (
    let proto = Object.getPrototypeOf(store) as object | null;
    proto && proto !== Object.prototype;
    proto = Object.getPrototypeOf(proto) as object | null
  ) {
    for (const name of Object.getOwnPropertyNames(proto)) {
      const method = target[name];
      if (NOT_METHODS.has(name) || typeof method !== 'function' || Object.prototype.hasOwnProperty.call(target, name))
        continue;
      target[name] = function labelled(this: unknown, ...parameters: unknown[]) {
        const label = name === 'flush' ? `flush('${typeof parameters[0] === 'string' ? parameters[0] : 'now'}')` : name;
        calls.set(label, (calls.get(label) ?? 0) + 1);
        const outer = scope.getStore();
        const call = () => (method as (...a: unknown[]) => unknown).apply(store, parameters);
        return outer === undefined ? scope.run(label, call) : call();
      };
    }
  }
  return calls;
}

/** PRAGMA synchronous of every open connection the probe saw (2 = FULL, 1 = NORMAL). */
export function synchronousOf(probe: SqliteProbe): unknown[] {
  return [...probe.connections]
    .filter((connection) => connection.open)
    .map((connection) => connection.pragma('synchronous', { simple: true }));
}
