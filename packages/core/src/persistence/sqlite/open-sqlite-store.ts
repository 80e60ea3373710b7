import { resolve } from 'node:path';
import type BetterSqlite3 from 'better-sqlite3';
import { InterlockError } from '../../errors/interlock-error.js';
import { IN_MEMORY, SQLITE_BUSY_TIMEOUT_MS, openMigratedSqlite } from '../typeorm/create-typeorm-store.js';
import { SqliteCheckpointStore } from './sqlite-checkpoint-store.js';

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
 * Opens the SQLite store: creates the file's directory, brings the tables up to date with
 * the TypeORM store's migrations (under the write lock, so processes opening a new file
 * at once do not both migrate), then opens one better-sqlite3 connection in WAL mode with
 * `synchronous` FULL (or NORMAL), a 10 s busy timeout and foreign keys on, as the TypeORM
 * store has. Open one store per file in a process.
 *
 * @example
 * ```ts
 * const store = await openSqliteStore({ path: '.interlock/interlock.db' });
 * await store.createThread(thread);
 * await store.flush(); // on disk now
 * await store.close();
 * ```
 * @throws InterlockError INVALID_OPTIONS when the database cannot be opened or migrated (the driver's error is the cause).
 */
export async function openSqliteStore(options: SqliteStoreOptions): Promise<SqliteCheckpointStore> {
  try {
    const { default: Database } = await import('better-sqlite3');
    let migrated: BetterSqlite3.Database | undefined;
    const dataSource = await openMigratedSqlite(options.path, (connection) => {
      migrated = connection;
    });
    // A database in memory lives only as long as its connection: carry it over as a copy.
    const image = options.path === IN_MEMORY ? migrated?.serialize() : undefined;
    await dataSource.destroy();
    const database = new Database(image ?? resolve(options.path), { timeout: SQLITE_BUSY_TIMEOUT_MS });
    try {
      database.pragma('journal_mode = WAL');
      database.pragma(`synchronous = ${options.synchronous === 'normal' ? 'NORMAL' : 'FULL'}`);
      database.pragma(`busy_timeout = ${SQLITE_BUSY_TIMEOUT_MS}`);
      database.pragma('foreign_keys = ON');
      return new SqliteCheckpointStore(database, { busyTimeoutMs: SQLITE_BUSY_TIMEOUT_MS, groupCommit: options.groupCommit ?? false });
    } catch (error) {
      database.close();
      throw error;
    }
  } catch (error) {
    if (InterlockError.is(error)) throw error;
    const reason = error instanceof Error ? error.message : String(error);
    throw new InterlockError('INVALID_OPTIONS', `cannot open the SQLite store at ${options.path}: ${reason}`, { cause: error });
  }
}
