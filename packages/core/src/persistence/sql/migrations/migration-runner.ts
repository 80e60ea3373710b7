/**
 * What a migration of the store uses of the database: `query` for plain SQL, and the
 * connection's schema and database type. TypeORM's `QueryRunner` is one (PostgreSQL); the
 * SQLite store's minimal runner is another (../../sqlite/sqlite-migrations.ts), so the same
 * migrations, with the same SQL, make both stores' tables.
 */
export interface MigrationRunner {
  query(sql: string, parameters?: unknown[]): Promise<unknown>;
  readonly connection: {
    readonly driver: {
      /** PostgreSQL: the store's schema, when it has one. */
      readonly schema?: string | undefined;
      readonly options?: { readonly type?: string };
    };
  };
}

/** The table that records which migrations ran: the same one, with the same columns, as TypeORM keeps. */
export const MIGRATIONS_TABLE = 'interlock_migrations';
