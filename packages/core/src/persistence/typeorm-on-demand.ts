import type { TypeormStoreOptions } from './typeorm/create-typeorm-store.js';
import type { PostgresCheckpointStore } from './typeorm/postgres-checkpoint-store.js';

/**
 * Opens the PostgreSQL store (see `createTypeormStore` in ./typeorm). TypeORM is loaded
 * on the first call: a process on the SQLite store or in memory never loads it (about
 * 30 MB).
 */
export async function createTypeormStore(options: TypeormStoreOptions): Promise<PostgresCheckpointStore> {
  const { createTypeormStore: open } = await import('./typeorm/create-typeorm-store.js');
  return open(options);
}
