import type { DataSource, EntityManager, QueryRunner } from 'typeorm';
import { InterlockError } from '../../errors/interlock-error.js';
import { driverErrorCode } from '../sql/audit-rows.js';
import type { Statement } from '../sql/postgres-statements.js';

/** Runs one plain statement inside a write transaction and returns its rows. */
export type RunStatement = <Row>(statement: Statement) => Promise<Row[]>;

/** The pg client a TypeORM query runner holds (what `connect()` resolves to). */
interface PgClient {
  query(sql: string, values?: unknown[]): Promise<{ rows: unknown[] }>;
}

type PostgresQueryRunner = QueryRunner & { releasePostgresConnection(error?: unknown): Promise<void> };

/**
 * One plain statement on its own, without BEGIN and COMMIT: one statement is one snapshot
 * and one network round trip. For reads (and a write whose outcome does not matter to
 * its caller, the removal of an expired remembered approval).
 */
export async function postgresRead<Row>(dataSource: DataSource, statement: Statement): Promise<Row[]> {
  const runner = dataSource.createQueryRunner() as PostgresQueryRunner;
  let rows: Row[];
  try {
    const client = (await runner.connect()) as PgClient;
    rows = (await client.query(statement.sql, statement.parameters)).rows as Row[];
  } catch (error) {
    await runner.releasePostgresConnection(answeredByServer(error) ? undefined : error);
    throw unavailable(error);
  }
  await runner.release();
  return rows;
}

/**
 * A write transaction of plain statements, sent through the query runner's connection.
 * `BEGIN` goes out together with the first statement (the pool's connections are in pg's
 * pipeline mode), so it costs no round trip of its own; `COMMIT` goes out only once every
 * statement answered, so a write that got no answer (the server froze, the connection
 * died) was never committed: STORE_UNAVAILABLE, as for `postgresTransaction`.
 */
export async function postgresWrite<T>(dataSource: DataSource, work: (run: RunStatement) => Promise<T>): Promise<T> {
  const runner = dataSource.createQueryRunner() as PostgresQueryRunner;
  let client: PgClient | undefined;
  let result: T;
  try {
    client = (await runner.connect()) as PgClient;
    const connection = client;
    let begun: Promise<unknown> | undefined = connection.query('BEGIN');
    // Its failure is reported by the statement it goes with (or below); never left unhandled.
    begun.catch(() => undefined);
    const run: RunStatement = async <Row>(statement: Statement) => {
      const answer = connection.query(statement.sql, statement.parameters);
      if (begun === undefined) return (await answer).rows as Row[];
      const [, rows] = await Promise.all([begun, answer]);
      begun = undefined;
      return rows.rows as Row[];
    };
    try {
      result = await work(run);
    } finally {
      // A work that sent nothing, or failed before its first statement: BEGIN's answer is still due.
      // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- run() clears it once answered
      await begun?.catch(() => undefined);
    }
  } catch (error) {
    if (client !== undefined && answeredByServer(error)) await client.query('ROLLBACK').catch(() => undefined);
    await runner.releasePostgresConnection(answeredByServer(error) ? undefined : error);
    throw unavailable(error);
  }
  await commit(runner, () => client.query('COMMIT'));
  return result;
}

/**
 * One PostgreSQL transaction of TypeORM operations whose caller always learns what
 * happened: refusals of ours pass through; a failure before COMMIT was sent rolls back
 * (nothing was written: STORE_UNAVAILABLE); a COMMIT that got no answer (the connection
 * died or timed out meanwhile) is STORE_OUTCOME_UNKNOWN. A connection that failed is
 * destroyed, never reused, so a late reply can never land on another transaction and the
 * server rolls back what it had.
 */
export async function postgresTransaction<T>(
  dataSource: DataSource,
  work: (manager: EntityManager) => Promise<T>,
  isolation?: 'REPEATABLE READ',
): Promise<T> {
  const runner = dataSource.createQueryRunner() as PostgresQueryRunner;
  let result: T;
  try {
    await runner.connect();
    await runner.startTransaction(isolation);
    result = await work(runner.manager);
  } catch (error) {
    if (runner.isTransactionActive && answeredByServer(error))
      await runner.rollbackTransaction().catch(() => undefined);
    await runner.releasePostgresConnection(answeredByServer(error) ? undefined : error);
    throw unavailable(error);
  }
  await commit(runner, () => runner.commitTransaction());
  return result;
}

/** Sends COMMIT and releases the connection; a COMMIT without an answer is STORE_OUTCOME_UNKNOWN. */
async function commit(runner: PostgresQueryRunner, send: () => Promise<unknown>): Promise<void> {
  try {
    await send();
  } catch (error) {
    await runner.releasePostgresConnection(error);
    if (answeredByServer(error)) throw unavailable(error);
    const reason = error instanceof Error ? error.message : String(error);
    throw new InterlockError(
      'STORE_OUTCOME_UNKNOWN',
      `the PostgreSQL connection failed while committing (${reason}): the write may or may not be stored. Read it back, or repeat the call once the database is back (repeating is safe)`,
      { cause: error },
    );
  }
  await runner.release();
}

/** The server answered with an error of its own (a SQLSTATE): the transaction is intact or rolled back, never half-sent. */
function answeredByServer(error: unknown): boolean {
  if (InterlockError.is(error)) return true;
  const code = driverErrorCode(error);
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code);
}

/** A database failure (not a refusal of ours) becomes STORE_UNAVAILABLE: nothing was written. */
export function unavailable(error: unknown): unknown {
  if (InterlockError.is(error)) return error;
  const message = error instanceof Error ? error.message : String(error);
  return new InterlockError(
    'STORE_UNAVAILABLE',
    `the PostgreSQL store failed (${message}); nothing was written: try again when the database is back`,
    {
      cause: error,
    },
  );
}
