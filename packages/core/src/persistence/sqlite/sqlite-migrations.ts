import type BetterSqlite3 from 'better-sqlite3';
import { MIGRATIONS_TABLE, type MigrationRunner } from '../sql/migrations/migration-runner.js';
import { STORE_MIGRATIONS } from '../sql/migrations/store-migrations.js';

/**
 * Brings a SQLite database's tables up to date with the store's migrations, without
 * TypeORM: the migrations only run SQL (`MigrationRunner.query`), so a minimal runner does.
 * They are recorded in the same migrations table the PostgreSQL store's TypeORM keeps
 * (`interlock_migrations`), so both databases carry one history. Runs under the write lock (`BEGIN IMMEDIATE`), so two processes opening a new
 * file do not both create the tables.
 */
export async function migrateSqlite(database: BetterSqlite3.Database): Promise<void> {
  database.exec('BEGIN IMMEDIATE');
  try {
    database.exec(
      `CREATE TABLE IF NOT EXISTS "${MIGRATIONS_TABLE}" ("id" integer PRIMARY KEY AUTOINCREMENT NOT NULL, "timestamp" bigint NOT NULL, "name" varchar NOT NULL)`,
    );
    const applied = new Set(database.prepare(`SELECT name FROM "${MIGRATIONS_TABLE}"`).pluck().all() as string[]);
    const runner: MigrationRunner = {
      query: (sql: string): Promise<unknown[]> => {
        database.exec(sql);
        return Promise.resolve([]);
      },
      connection: { driver: { options: { type: 'sqlite' } } },
    };
    const record = database.prepare(`INSERT INTO "${MIGRATIONS_TABLE}" ("timestamp", "name") VALUES (?, ?)`);
    for (const Migration of STORE_MIGRATIONS) {
      const migration = new Migration();
      if (applied.has(migration.name)) continue;
      await migration.up(runner);
      record.run(Number(/(\d+)$/.exec(migration.name)?.[1]), migration.name);
    }
    database.exec('COMMIT');
  } catch (error) {
    if (database.inTransaction) database.exec('ROLLBACK');
    throw error;
  }
}
