import type { PostgresPlacement } from '../../typeorm/postgres-placement.js';

/**
 * What a migration of the store uses of the database: `query` for plain SQL, the
 * connection's schema and database type, and (PostgreSQL) where the store keeps its job
 * queue. TypeORM's `QueryRunner` is one (PostgreSQL, its `data` set by the store as it
 * opens); the SQLite store's minimal runner is another (../../sqlite/sqlite-migrations.ts),
 * so the same migrations, with the same SQL, make both stores' tables.
 */
export interface MigrationRunner {
  query(sql: string, parameters?: unknown[]): Promise<unknown>;
  readonly connection: {
    readonly driver: {
      /** PostgreSQL: the store's schema (its placement's: the store opens TypeORM on it). */
      readonly schema?: string | undefined;
      readonly options?: { readonly type?: string };
    };
  };
  /** PostgreSQL: the placement the store resolved as it opened (../../typeorm/postgres-placement.ts). */
  readonly data?: { readonly placement?: PostgresPlacement };
}

/** The table that records which migrations ran: the same one, with the same columns, as TypeORM keeps. */
export const MIGRATIONS_TABLE = 'interlock_migrations';

/**
 * The placement a PostgreSQL migration runs with. Not derived here: a migration that
 * derived it from the connection would disagree with the store (issue 34).
 *
 * @throws Error when the runner carries none (a PostgreSQL migration run outside the store).
 */
export function placementOfRunner(queryRunner: MigrationRunner): PostgresPlacement {
  const placement = queryRunner.data?.placement;
  if (placement === undefined)
    throw new Error(
      "the store's migrations run with the store's placement: open the store (createTypeormStore) to migrate",
    );
  return placement;
}
