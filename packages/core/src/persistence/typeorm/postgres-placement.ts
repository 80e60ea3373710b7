import { InterlockError } from '../../errors/interlock-error.js';

/**
 * Where a PostgreSQL store keeps its tables and its job queue (issue 34). Resolved once, when
 * the store opens ({@link resolvePlacement}), from its options or from the database itself;
 * everything else reads it from the open store ({@link placementOf}): the migrations (the
 * commit function queues its jobs in `jobsSchema`), the reads and commits, the listener for
 * changes, the workers' job queue and the readiness checks. Nothing derives it again.
 */
export interface PostgresPlacement {
  /** The schema of the store's tables: the one its options name, or else the database's `current_schema()` (usually `public`). */
  readonly schema: string;
  /** The schema of its job queue (graphile-worker's tables and functions), beside it: `<schema>_jobs`. */
  readonly jobsSchema: string;
}

/** What a job queue's schema adds to the store's; a schema name holds at most 63 bytes. */
const JOBS_SUFFIX = '_jobs';
const MAX_SCHEMA_LENGTH = 63 - JOBS_SUFFIX.length;
const PLAIN_IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * The placement of a store whose options name `named` (a `schema` option or a URL's
 * `?schema=`), or else the database's current schema, read by `currentSchema` (called only
 * then). The one place the job queue's schema is derived.
 *
 * @throws InterlockError INVALID_OPTIONS for a schema that is not a plain identifier of at
 * most 58 characters (its job queue's name must fit PostgreSQL's 63), or a database whose
 * `search_path` names no schema that exists.
 */
export async function resolvePlacement(
  named: string | undefined,
  currentSchema: () => Promise<string | null | undefined>,
): Promise<PostgresPlacement> {
  if (named !== undefined) {
    checkSchemaName(named, `store schema ${JSON.stringify(named)}`);
    return placed(named);
  }
  const current = await currentSchema();
  if (current === null || current === undefined || current === '')
    throw new InterlockError(
      'INVALID_OPTIONS',
      "the database's search_path names no schema that exists, so the store has nowhere to keep its tables: name one (`?schema=name` in the URL, or the `schema` option)",
    );
  checkSchemaName(current, `the database's current schema ${JSON.stringify(current)} (from its search_path)`);
  return placed(current);
}

/** Whether `name` can name a store's schema (before any database is asked). */
export function checkSchemaName(name: string, what = `store schema ${JSON.stringify(name)}`): void {
  if (!PLAIN_IDENTIFIER.test(name) || name.length > MAX_SCHEMA_LENGTH)
    throw new InterlockError(
      'INVALID_OPTIONS',
      `${what} is not a plain identifier of at most ${MAX_SCHEMA_LENGTH} characters: use letters, digits and _ (its job queue's schema, ${JOBS_SUFFIX} added, must fit PostgreSQL's 63), e.g. ?schema=interlock`,
    );
}

function placed(schema: string): PostgresPlacement {
  return Object.freeze({ schema, jobsSchema: `${schema}${JOBS_SUFFIX}` });
}

/** `"schema"."name"`: a table, sequence or function of the store. */
export function qualified(placement: PostgresPlacement, name: string): string {
  return `"${placement.schema}"."${name}"`;
}

/**
 * The placement of an open PostgreSQL store (`store.placement`), or undefined for another
 * store. A wrapper of the store that forwards its properties keeps it.
 */
export function placementOf(store: object): PostgresPlacement | undefined {
  const placement = (store as { placement?: unknown }).placement;
  if (typeof placement !== 'object' || placement === null) return undefined;
  const { schema, jobsSchema } = placement as Record<string, unknown>;
  return typeof schema === 'string' && typeof jobsSchema === 'string' ? { schema, jobsSchema } : undefined;
}
