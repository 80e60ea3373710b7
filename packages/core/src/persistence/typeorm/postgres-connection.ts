import { createHash } from 'node:crypto';
import type { Pool, PoolClient } from 'pg';
import { InterlockError } from '../../errors/interlock-error.js';

/** What a statement does: reads write nothing; a commit's outcome matters when its answer is lost. */
export type StatementKind = 'read' | 'commit';

/**
 * Runs one statement on a connection of the pool, on its own (no BEGIN, no COMMIT: one
 * statement is one transaction, one snapshot and one network round trip), and says what
 * happened when it fails:
 * - nothing was written (no connection, the statement never left, or the server answered
 *   with an error and rolled back): STORE_UNAVAILABLE;
 * - a commit sent whose answer never came (the connection broke, the client timed out, the
 *   server went down mid-statement): STORE_OUTCOME_UNKNOWN.
 * A connection that failed is destroyed, never reused, so a late answer cannot land on
 * another statement.
 */
export async function runStatement<Row>(
  pool: Pool,
  sql: string,
  parameters: readonly unknown[],
  kind: StatementKind,
): Promise<Row[]> {
  let client: PoolClient;
  try {
    client = await pool.connect();
  } catch (error) {
    throw unavailable(error);
  }
  // A connection that breaks while the statement runs also emits 'error' (the statement's
  // rejection says what happened); unheard, it would end the process.
  const ignore = () => undefined;
  client.on('error', ignore);
  let rows: Row[];
  try {
    rows = (await client.query({ name: statementName(sql), text: sql, values: parameters as unknown[] })).rows as Row[];
  } catch (error) {
    const sessionLives = answeredByServer(error) && !endsSession(error);
    client.off('error', ignore);
    client.release(sessionLives ? undefined : toError(error));
    if (kind === 'read' || sessionLives || neverSent(error)) throw unavailable(error);
    throw outcomeUnknown(error);
  }
  client.off('error', ignore);
  client.release();
  return rows;
}

const names = new Map<string, string>();

/**
 * The name a statement is prepared under on each connection (its text's digest): the server
 * parses and plans it once per connection instead of on every call (issue 38), in the same
 * round trip as its first run. graphile-worker prepares its statements the same way.
 */
function statementName(sql: string): string {
  let name = names.get(sql);
  if (name === undefined) {
    name = `interlock_${createHash('sha256').update(sql).digest('hex').slice(0, 32)}`;
    names.set(sql, name);
  }
  return name;
}

/** The server answered with an error of its own (a SQLSTATE). */
function answeredByServer(error: unknown): boolean {
  const code = typeof error === 'object' && error !== null && 'code' in error ? error.code : undefined;
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code);
}

/**
 * An error that ends the session (FATAL, PANIC: the server is shutting down, crashing, or
 * the backend was terminated). A crash can strike after the commit was made durable and
 * before its answer was sent, so such an error does not say the commit did not happen.
 */
function endsSession(error: unknown): boolean {
  const severity = typeof error === 'object' && error !== null && 'severity' in error ? error.severity : undefined;
  return severity === 'FATAL' || severity === 'PANIC';
}

/** pg refused the statement before sending it: its connection had failed already. */
function neverSent(error: unknown): boolean {
  return error instanceof Error && /not queryable/.test(error.message);
}

function toError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}

function reasonOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** A database failure that wrote nothing: STORE_UNAVAILABLE. */
export function unavailable(error: unknown): InterlockError {
  if (InterlockError.is(error)) return error;
  return new InterlockError(
    'STORE_UNAVAILABLE',
    `the PostgreSQL store failed (${reasonOf(error)}); nothing was written: try again when the database is back`,
    { cause: error },
  );
}

function outcomeUnknown(error: unknown): InterlockError {
  return new InterlockError(
    'STORE_OUTCOME_UNKNOWN',
    `the PostgreSQL connection failed while committing (${reasonOf(error)}): the unit of work may or may not be stored, all of it or none. Read it back, then go on`,
    { cause: error },
  );
}
