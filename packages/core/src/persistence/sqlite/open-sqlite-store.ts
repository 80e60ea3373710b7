import { mkdir } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { InterlockError } from '../../errors/interlock-error.js';
import { SqliteCheckpointStore } from './sqlite-checkpoint-store.js';
import { migrateSqlite } from './sqlite-migrations.js';
import { isBusy } from './sqlite-connection.js';

/** How long a SQLite statement waits for another process's lock before it fails. */
export const SQLITE_BUSY_TIMEOUT_MS = 10_000;
/** SQLite's name for a database that lives in memory only (for tests). */
export const IN_MEMORY = ':memory:';

/** Where and how the SQLite store keeps its data. */
export interface SqliteStoreOptions {
  /** The database file, its directory created if missing. `:memory:` for a throwaway database. */
  path: string;
  /**
   * `full` (the default): a commit is on disk when it returns. `normal`: a commit survives a
   * crash of the process but may be lost, with the commits after it, if the machine loses
   * power before the next WAL checkpoint.
   */
  synchronous?: 'full' | 'normal';
  /** `flush('now')` waits for the commit at the end of the event-loop turn, so concurrent threads share commits. */
  groupCommit?: boolean;
}

/**
 * Opens the SQLite store: creates the file's directory, opens one better-sqlite3
 * connection in WAL mode with `synchronous` FULL (or NORMAL), a 10 s busy timeout and
 * foreign keys on, as the TypeORM store has, and brings the tables up to date with the
 * store's migrations (under the write lock, so processes opening a new file at once do
 * not both migrate; TypeORM is not loaded). Open one store per file in a process.
 *
 * @example
 * ```ts
 * const store = await openSqliteStore({ path: '.interlock/interlock.db' });
 * const result = await store.commit({ thread: { kind: 'create', thread } }); // on disk now
 * await store.close();
 * ```
 * @throws InterlockError INVALID_OPTIONS when the database cannot be opened or migrated (the driver's error is the cause);
 *   STORE_UNAVAILABLE when another connection keeps the write lock past the busy timeout (10 s).
 */
export async function openSqliteStore(options: SqliteStoreOptions): Promise<SqliteCheckpointStore> {
  try {
    const { default: Database } = await import('better-sqlite3');
    if (options.path !== IN_MEMORY) await mkdir(dirname(resolve(options.path)), { recursive: true });
    const database = new Database(options.path === IN_MEMORY ? IN_MEMORY : resolve(options.path), {
      timeout: SQLITE_BUSY_TIMEOUT_MS,
    });
    try {
      database.pragma('journal_mode = WAL');
      database.pragma(`synchronous = ${options.synchronous === 'normal' ? 'NORMAL' : 'FULL'}`);
      database.pragma(`busy_timeout = ${SQLITE_BUSY_TIMEOUT_MS}`);
      database.pragma('foreign_keys = ON');
      await migrateSqlite(database);
      return new SqliteCheckpointStore(database, {
        busyTimeoutMs: SQLITE_BUSY_TIMEOUT_MS,
        groupCommit: options.groupCommit ?? false,
      });
    } catch (error) {
      database.close();
      throw error;
    }
  } catch (error) {
    if (InterlockError.is(error)) throw error;
    if (isBusy(error)) {
      throw new InterlockError(
        'STORE_UNAVAILABLE',
        `the SQLite database ${options.path} stayed locked by another connection for ${SQLITE_BUSY_TIMEOUT_MS} ms while opening; nothing was written: try again`,
        { cause: error },
      );
    }
    const reason = error instanceof Error ? error.message : String(error);
    throw new InterlockError('INVALID_OPTIONS', `cannot open the SQLite store at ${options.path}: ${reason}`, {
      cause: error,
    });
  }
}
