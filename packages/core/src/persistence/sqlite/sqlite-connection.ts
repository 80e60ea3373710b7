import { inspect } from 'node:util';
// The commit timer and the lock wait use Node's own timers and clock, not the globals: a
// test's fake clock must not hold a commit (and the database's write lock) back.
import { performance } from 'node:perf_hooks';
import { clearImmediate, setImmediate } from 'node:timers';
import { setTimeout as sleep } from 'node:timers/promises';
import type BetterSqlite3 from 'better-sqlite3';
import { InterlockError } from '../../errors/interlock-error.js';

/** How a {@link SqliteConnection} commits. */
export interface SqliteConnectionOptions {
  /** How long a write waits for another connection's write lock before it fails (ms). */
  busyTimeoutMs: number;
  /**
   * Units of work committed in one event-loop turn share one transaction (each in its own
   * savepoint, so one refused leaves the others), committed at the end of the turn: threads
   * running at the same time share an fsync. Without it, each unit is its own transaction.
   */
  groupCommit: boolean;
}

/** Longest pause between two tries for the write lock (ms). */
const MAX_LOCK_PAUSE_MS = 20;

/**
 * One better-sqlite3 connection. A write — one unit of work — is one transaction
 * (`BEGIN IMMEDIATE` … `COMMIT`), run synchronously once this connection holds the
 * database's write lock, so it holds across processes; with group commit, the writes of
 * one event-loop turn share one. Reads run at once, each statement on its own snapshot.
 */
export class SqliteConnection {
  private readonly statements: Record<
    'begin' | 'beginRead' | 'commit' | 'rollback' | 'savepoint' | 'release' | 'rollbackToSavepoint',
    BetterSqlite3.Statement
  >;
  /** Group commit: the transaction open in this turn, and those waiting for its commit. */
  private group:
    { timer: NodeJS.Immediate; waiters: { resolve: () => void; reject: (error: unknown) => void }[] } | undefined;
  /** Set while a write waits for another connection to release the write lock: later writes queue behind it. */
  private lockWait: Promise<void> | undefined;
  private closed = false;

  constructor(
    private readonly database: BetterSqlite3.Database,
    private readonly options: SqliteConnectionOptions,
  ) {
    this.statements = {
      begin: database.prepare('BEGIN IMMEDIATE'),
      beginRead: database.prepare('BEGIN'),
      commit: database.prepare('COMMIT'),
      rollback: database.prepare('ROLLBACK'),
      savepoint: database.prepare('SAVEPOINT unit'),
      release: database.prepare('RELEASE unit'),
      rollbackToSavepoint: database.prepare('ROLLBACK TO unit'),
    };
    // Off while the connection is idle and writing: waiting inside SQLite would block the event
    // loop (see tryBegin). A read that finds the database busy waits with it on (see read).
    database.exec('PRAGMA busy_timeout = 0');
  }

  /**
   * Runs `work` as one atomic write and resolves once it is committed. If `work` throws,
   * what it wrote is undone and the error is thrown.
   *
   * `atOnce` (group commit): the group is committed right after this write, not at the end
   * of the turn — for a claim's renewal, which the end of a busy turn must not delay past
   * the claim's end (its result then comes back before any timer of the next turn runs).
   *
   * @throws InterlockError STORE_UNAVAILABLE when the write lock stays taken, the database
   * fails or the commit fails (then nothing was written); INVALID_OPTIONS once closed.
   */
  async write<T>(work: () => T, options: { atOnce?: boolean } = {}): Promise<T> {
    this.assertOpen();
    while (this.lockWait !== undefined) await this.lockWait.catch(() => undefined);
    if (this.group === undefined && !this.tryBegin()) {
      // Another connection holds the lock: wait for it (this write then holds the transaction).
      this.lockWait = this.waitForLock();
      await this.lockWait;
    }
    if (!this.options.groupCommit || (options.atOnce === true && this.group === undefined)) {
      let result: T;
      try {
        result = work();
      } catch (error) {
        this.rollbackQuietly();
        throw this.unavailable(error);
      }
      this.commitNow();
      return result;
    }
    this.group ??= { timer: setImmediate(() => this.commitGroup()), waiters: [] };
    const group = this.group;
    this.run(this.statements.savepoint);
    let result: T;
    try {
      result = work();
      this.run(this.statements.release);
    } catch (error) {
      this.undoUnit();
      throw this.unavailable(error);
    }
    const committed = new Promise<void>((resolve, reject) => group.waiters.push({ resolve, reject }));
    if (options.atOnce === true) this.commitGroup();
    await committed;
    return result;
  }

  /** Runs `work`, one statement that only reads, at once (a statement is its own snapshot). */
  read<T>(work: () => T): T {
    return this.readRetried(work);
  }

  /**
   * Runs `work`, statements that only read, at once and on one snapshot: a thread and its
   * conversation read in two statements are never from two commits of another process.
   * Outside a transaction it opens a read transaction (`BEGIN` takes no lock until the first
   * read, and one snapshot for all costs less than one per statement); inside the open group
   * it reads the group's writes, as every read does.
   */
  readTogether<T>(work: () => T): T {
    return this.readRetried(() => {
      if (this.database.inTransaction) return work();
      this.statements.beginRead.run();
      try {
        return work();
      } finally {
        // Ended by the read only if SQLite rolled it back (a failed read): nothing to commit then.
        if (inTransaction(this.database)) this.statements.commit.run();
      }
    });
  }

  private readRetried<T>(read: () => T): T {
    this.assertOpen();
    try {
      return read();
    } catch (error) {
      if (!isBusy(error)) throw this.unavailable(error);
    }
    // Rare in WAL mode (another process recovering the WAL or truncating it): this read waits,
    // up to the busy timeout, as every statement did before the timeout was kept off.
    this.database.exec(`PRAGMA busy_timeout = ${this.options.busyTimeoutMs}`);
    try {
      return read();
    } catch (error) {
      throw this.unavailable(error);
    } finally {
      this.database.exec('PRAGMA busy_timeout = 0');
    }
  }

  /** Commits a group that is open, then closes the connection. Closing twice is harmless. */
  async close(): Promise<void> {
    if (this.closed) return;
    if (this.lockWait !== undefined) await this.lockWait.catch(() => undefined);
    if (this.group !== undefined) this.commitGroup();
    this.closed = true;
    this.database.close();
  }

  /**
   * Takes the write lock if it is free. The busy timeout is off (see the constructor): waiting
   * inside SQLite would block the event loop, and with it a connection of this process that
   * holds the lock.
   */
  private tryBegin(): boolean {
    try {
      this.statements.begin.run();
      return true;
    } catch (error) {
      if (isBusy(error)) return false;
      throw this.unavailable(error);
    }
  }

  /** Tries for the write lock with short pauses, leaving the event loop free. Resolves with the transaction begun. */
  private async waitForLock(): Promise<void> {
    const deadline = performance.now() + this.options.busyTimeoutMs;
    try {
      for (let attempt = 1; ; attempt += 1) {
        await sleep(1 + Math.random() * Math.min(MAX_LOCK_PAUSE_MS, attempt));
        this.assertOpen();
        if (this.tryBegin()) return;
        if (performance.now() >= deadline) {
          throw new InterlockError(
            'STORE_UNAVAILABLE',
            `the SQLite database ${this.database.name} stayed locked by another connection for ${this.options.busyTimeoutMs} ms; nothing was written: try again`,
          );
        }
      }
    } finally {
      this.lockWait = undefined;
    }
  }

  private commitNow(): void {
    try {
      this.statements.commit.run();
    } catch (error) {
      // A COMMIT that fails has rolled the transaction back (I/O error, disk full), or left it open.
      if (this.database.inTransaction) this.rollbackQuietly();
      throw this.failure('the commit failed; nothing of this write was stored: try again', error);
    }
  }

  private commitGroup(): void {
    const group = this.group;
    if (group === undefined) return;
    clearImmediate(group.timer);
    this.group = undefined;
    try {
      this.commitNow();
    } catch (error) {
      for (const waiter of group.waiters) waiter.reject(error);
      return;
    }
    for (const waiter of group.waiters) waiter.resolve();
  }

  /** Undoes the unit that threw; if SQLite rolled the whole group back, the others are lost too. */
  private undoUnit(): void {
    if (!this.database.inTransaction) {
      const group = this.group;
      this.group = undefined;
      if (group !== undefined) {
        clearImmediate(group.timer);
        const lost = this.failure(
          'SQLite rolled the transaction back after a failed statement; nothing of it was stored',
          undefined,
        );
        for (const waiter of group.waiters) waiter.reject(lost);
      }
      return;
    }
    try {
      this.statements.rollbackToSavepoint.run();
      this.statements.release.run();
    } catch {
      this.rollbackQuietly();
    }
  }

  private rollbackQuietly(): void {
    try {
      if (this.database.inTransaction) this.statements.rollback.run();
    } catch {
      // Already rolled back by SQLite.
    }
  }

  private failure(what: string, cause: unknown): InterlockError {
    const reason = cause === undefined ? '' : ` (${cause instanceof Error ? cause.message : inspect(cause)})`;
    return new InterlockError('STORE_UNAVAILABLE', `${what}${reason}`, { ...(cause === undefined ? {} : { cause }) });
  }

  private run(statement: BetterSqlite3.Statement): void {
    try {
      statement.run();
    } catch (error) {
      throw this.unavailable(error);
    }
  }

  private assertOpen(): void {
    if (this.closed) throw new InterlockError('INVALID_OPTIONS', 'the store is closed: create a new one to go on');
  }

  /** A database failure (not a refusal of ours) becomes STORE_UNAVAILABLE. */
  private unavailable(error: unknown): unknown {
    if (InterlockError.is(error) || !(error instanceof Error) || !('code' in error)) return error;
    return this.failure(
      'the SQLite store failed; this write stored nothing: try again when the database is back',
      error,
    );
  }
}

/** Whether a driver error is SQLite's "database is locked" (another connection holds the write lock). */
export function isBusy(error: unknown): boolean {
  const code = typeof error === 'object' && error !== null && 'code' in error ? error.code : undefined;
  return code === 'SQLITE_BUSY' || code === 'SQLITE_BUSY_SNAPSHOT';
}

/** Whether a transaction is open now (a call, so that a check before it does not decide it). */
function inTransaction(database: BetterSqlite3.Database): boolean {
  return database.inTransaction;
}
