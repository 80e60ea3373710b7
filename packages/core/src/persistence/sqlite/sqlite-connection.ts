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
   * Threads share commits: `flush('now')` waits for the commit at the end of the turn, like
   * `flush('soon')`, and writes of several threads go into one transaction. Without it, a
   * transaction holds the writes of one thread only (a write of another thread commits the
   * open transaction first), as if each thread had its own connection.
   */
  groupCommit: boolean;
}

/** Longest pause between two tries for the write lock (ms). */
const MAX_LOCK_PAUSE_MS = 20;

/**
 * One better-sqlite3 connection that batches writes into few commits. The first write
 * opens a transaction (`BEGIN IMMEDIATE`, so this connection holds the database's write
 * lock); every write after it runs in the same transaction, each in its own savepoint so
 * a write that fails leaves the others in place. The transaction is committed by
 * `flush()` or at the end of the event-loop turn it was opened in, whichever is first.
 * Reads run at once and see this connection's uncommitted writes; they never commit.
 *
 * A failed COMMIT loses the writes since the last commit: the connection then refuses
 * every call with STORE_UNAVAILABLE.
 */
export class SqliteConnection {
  private readonly statements: Record<
    'begin' | 'beginRead' | 'commit' | 'rollback' | 'savepoint' | 'release' | 'rollbackToSavepoint',
    BetterSqlite3.Statement
  >;
  private transactionOpen = false;
  /** The thread whose writes the open transaction holds (without group commit); undefined until one writes. */
  private transactionThread: string | undefined;
  private commitTimer: NodeJS.Immediate | undefined;
  /** `flush('soon')` callers waiting for the open transaction's commit. */
  private commitWaiters: { resolve: () => void; reject: (error: unknown) => void }[] = [];
  /** Set while a write waits for another connection to release the write lock: later calls queue behind it. */
  private lockWait: Promise<void> | undefined;
  private failure: InterlockError | undefined;
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
      savepoint: database.prepare('SAVEPOINT interlock_write'),
      release: database.prepare('RELEASE interlock_write'),
      rollbackToSavepoint: database.prepare('ROLLBACK TO interlock_write'),
    };
  }

  /**
   * Runs `work` at once in this connection's open transaction (opened if none is), as one
   * atomic step: if it throws, what it wrote is undone and the transaction goes on.
   * Only when another connection holds the write lock does it wait (up to the busy
   * timeout), and calls made meanwhile queue behind it.
   *
   * `threadId` names the thread the write belongs to (see `groupCommit`); a write of no
   * thread in particular (a workflow definition, a global variable) joins any transaction.
   *
   * @throws InterlockError STORE_UNAVAILABLE when the lock stays taken, the database fails,
   * or an earlier commit failed; INVALID_OPTIONS once closed; what `work` throws.
   */
  async write<T>(work: () => T, threadId?: string): Promise<T> {
    this.assertUsable();
    if (this.lockWait !== undefined) {
      await this.lockWait;
      return this.write(work, threadId);
    }
    if (
      this.transactionOpen &&
      !this.options.groupCommit &&
      threadId !== undefined &&
      this.transactionThread !== undefined &&
      this.transactionThread !== threadId
    ) {
      this.commit();
      this.assertUsable();
    }
    if (!this.transactionOpen && !this.tryBegin()) {
      this.lockWait ??= this.waitForLock();
      await this.lockWait;
      return this.write(work, threadId);
    }
    if (threadId !== undefined) this.transactionThread ??= threadId;
    this.run(this.statements.savepoint);
    try {
      const result = work();
      this.run(this.statements.release);
      return result;
    } catch (error) {
      this.undoWrite();
      throw this.failure ?? this.unavailable(error);
    }
  }

  /**
   * Runs `work`, which only reads, at once. Inside the open write transaction it sees its
   * writes; otherwise it runs in a read transaction, so several statements read one
   * moment of the database.
   */
  async read<T>(work: () => T): Promise<T> {
    this.assertUsable();
    // A write queued before this read goes first, so the read sees it (a read does not fail with it).
    if (this.lockWait !== undefined) await this.lockWait.catch(() => undefined);
    if (this.transactionOpen) {
      try {
        return work();
      } catch (error) {
        throw this.unavailable(error);
      }
    }
    this.run(this.statements.beginRead);
    try {
      return work();
    } catch (error) {
      throw this.unavailable(error);
    } finally {
      if (this.database.inTransaction) this.statements.commit.run();
    }
  }

  /** See `ICheckpointStore.flush`. */
  async flush(when: 'now' | 'soon' = 'now'): Promise<void> {
    this.assertUsable();
    if (this.lockWait !== undefined) await this.lockWait.catch(() => undefined);
    if (!this.transactionOpen) return;
    if (when === 'now' && !this.options.groupCommit) {
      this.commit();
      if (this.failure !== undefined) throw this.failure;
      return;
    }
    await new Promise<void>((resolve, reject) => this.commitWaiters.push({ resolve, reject }));
  }

  /** Commits what is pending, then closes the connection. Closing twice is harmless. */
  async close(): Promise<void> {
    if (this.closed) return;
    if (this.lockWait !== undefined) await this.lockWait.catch(() => undefined);
    this.closed = true;
    if (this.failure === undefined) this.commit();
    this.database.close();
    if (this.failure !== undefined) throw this.failure;
  }

  /**
   * Takes the write lock if it is free. The busy timeout is off meanwhile: waiting inside
   * SQLite would block the event loop, and with it a store of this process that holds the
   * lock until its commit at the end of the turn. (SQLite applies `PRAGMA busy_timeout`
   * when it prepares the statement, so it cannot be a prepared statement run again.)
   */
  private tryBegin(): boolean {
    this.database.pragma('busy_timeout = 0');
    try {
      this.statements.begin.run();
    } catch (error) {
      if (isBusy(error)) return false;
      throw this.unavailable(error);
    } finally {
      this.database.pragma(`busy_timeout = ${this.options.busyTimeoutMs}`);
    }
    this.transactionOpen = true;
    this.transactionThread = undefined;
    this.commitTimer = setImmediate(() => this.commit());
    return true;
  }

  /** Tries for the write lock with short pauses, leaving the event loop free (another store of this process may hold it). */
  private async waitForLock(): Promise<void> {
    const deadline = performance.now() + this.options.busyTimeoutMs;
    try {
      for (let attempt = 1; ; attempt += 1) {
        await sleep(1 + Math.random() * Math.min(MAX_LOCK_PAUSE_MS, attempt));
        this.assertUsable();
        if (this.transactionOpen || this.tryBegin()) return;
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

  private commit(): void {
    if (this.commitTimer !== undefined) clearImmediate(this.commitTimer);
    this.commitTimer = undefined;
    if (!this.transactionOpen) return;
    try {
      this.statements.commit.run();
    } catch (error) {
      // A COMMIT that fails may leave the transaction open (a deferred constraint) or
      // have rolled it back (I/O error, disk full): either way its writes are gone.
      if (this.database.inTransaction) this.rollbackQuietly();
      this.fail('a commit failed', error);
      return;
    }
    this.transactionOpen = false;
    const waiters = this.commitWaiters;
    this.commitWaiters = [];
    for (const waiter of waiters) waiter.resolve();
  }

  /** Undoes a write that threw; if SQLite rolled the whole transaction back, the earlier writes are lost too. */
  private undoWrite(): void {
    if (!this.database.inTransaction) {
      this.fail('SQLite rolled the open transaction back after a failed statement', undefined);
      return;
    }
    try {
      this.statements.rollbackToSavepoint.run();
      this.statements.release.run();
    } catch (error) {
      this.rollbackQuietly();
      this.fail('undoing a failed write failed', error);
    }
  }

  private rollbackQuietly(): void {
    try {
      this.statements.rollback.run();
    } catch {
      // Already rolled back by SQLite.
    }
  }

  /** The open transaction is gone with its writes: refuse every later call and every waiting flush. */
  private fail(what: string, cause: unknown): void {
    const message = cause instanceof Error ? cause.message : String(cause);
    const reason = cause === undefined ? '' : ` (${message})`;
    const failure = new InterlockError(
      'STORE_UNAVAILABLE',
      `${what}; the writes since the last commit were lost: reopen the store${reason}`,
      {
        ...(cause === undefined ? {} : { cause }),
      },
    );
    this.failure ??= failure;
    this.transactionOpen = false;
    if (this.commitTimer !== undefined) clearImmediate(this.commitTimer);
    this.commitTimer = undefined;
    const waiters = this.commitWaiters;
    this.commitWaiters = [];
    for (const waiter of waiters) waiter.reject(this.failure);
  }

  private run(statement: BetterSqlite3.Statement): void {
    try {
      statement.run();
    } catch (error) {
      throw this.unavailable(error);
    }
  }

  private assertUsable(): void {
    if (this.closed) throw new InterlockError('INVALID_OPTIONS', 'the store is closed: create a new one to go on');
    if (this.failure !== undefined) throw this.failure;
  }

  /** A database failure (not a refusal of ours) becomes STORE_UNAVAILABLE. */
  private unavailable(error: unknown): unknown {
    if (InterlockError.is(error)) return error;
    if (this.failure !== undefined) return this.failure;
    const message = error instanceof Error ? error.message : String(error);
    return new InterlockError(
      'STORE_UNAVAILABLE',
      `the SQLite store failed (${message}); this call wrote nothing: try again when the database is back`,
      {
        cause: error,
      },
    );
  }
}

/** Whether a driver error is SQLite's "database is locked" (another connection holds the write lock). */
export function isBusy(error: unknown): boolean {
  const code = typeof error === 'object' && error !== null && 'code' in error ? error.code : undefined;
  return code === 'SQLITE_BUSY' || code === 'SQLITE_BUSY_SNAPSHOT';
}
