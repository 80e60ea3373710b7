import { InterlockError } from '../errors/interlock-error.js';
import type { ICheckpointStore } from './checkpoint-store.js';
import { InMemoryCheckpointStore } from './memory/in-memory-checkpoint-store.js';
import { openSqliteStore } from './sqlite/open-sqlite-store.js';
import { createTypeormStore } from './typeorm-on-demand.js';
import type { PostgresTimeouts } from './typeorm/create-typeorm-store.js';

/**
 * Where threads and interactions are kept: in this process (`memory`, the default), in a
 * SQLite file (`.interlock/interlock.db` unless `path` says otherwise), in PostgreSQL, or
 * in a store of your own.
 *
 * SQLite: `synchronous` is `full` by default (a commit is on disk when it returns);
 * `normal` survives a crash of the process but not always a power loss. The store
 * commits the writes of one event-loop turn together, and at once where the engine needs
 * them durable; with `groupCommit`, those commits wait for the end of the turn too, so
 * threads running at the same time share them.
 *
 * PostgreSQL: a unit of work is one statement, so a connection is held for one network
 * round trip at a time; `poolSize` (default 4) bounds the store's connections. A worker
 * sizes it from its concurrency (see `createWorker`).
 */
export type StoreOptions =
  | { type: 'memory' }
  | { type: 'sqlite'; path?: string; synchronous?: 'full' | 'normal'; groupCommit?: boolean }
  | { type: 'postgres'; url: string; schema?: string; timeouts?: PostgresTimeouts; poolSize?: number }
  | { type: 'custom'; store: ICheckpointStore };

/**
 * Opens the store `createInterlock({ store })` would open. For an app that reads the store
 * itself too (the web inbox): open it here, then pass `{ type: 'custom', store }`.
 */
export async function openStore(options: StoreOptions): Promise<ICheckpointStore> {
  switch (options.type) {
    case 'memory':
      return new InMemoryCheckpointStore();
    case 'sqlite':
      return openSqliteStore({
        path: options.path ?? DEFAULT_SQLITE_PATH,
        ...(options.synchronous === undefined ? {} : { synchronous: options.synchronous }),
        ...(options.groupCommit === undefined ? {} : { groupCommit: options.groupCommit }),
      });
    case 'postgres':
      return createTypeormStore({
        type: 'postgres',
        url: options.url,
        ...(options.schema === undefined ? {} : { schema: options.schema }),
        ...(options.timeouts === undefined ? {} : { timeouts: options.timeouts }),
        ...(options.poolSize === undefined ? {} : { poolSize: options.poolSize }),
      });
    case 'custom':
      return options.store;
    default:
      throw new InterlockError(
        'INVALID_OPTIONS',
        `store type "${(options as { type: string }).type}" is not available: use "memory", "sqlite", "postgres" or "custom"`,
      );
  }
}

/** The embedded default: a SQLite file under `.interlock/` in the working directory. */
export const DEFAULT_SQLITE_PATH = '.interlock/interlock.db';
