import type { ThreadJob } from '../../workers/thread-jobs.js';
import { taskIdentifier } from '../../workers/thread-jobs.js';

/*
 * The building blocks of the PostgreSQL store's plain SQL (postgres-statements.ts): tables
 * as TypeORM's metadata names them, numbered parameters, and the CTEs that several
 * statements share (the claim's fence, the workers' jobs).
 */

/** A table as SQL spells it: its (schema-qualified) name, and each property's quoted column. */
export interface SqlTable {
  name: string;
  columns: Readonly<Record<string, string>>;
}

/** The store's tables, and the schema of the job queue (graphile-worker) when workers are used. */
export interface PostgresTables {
  threads: SqlTable;
  messages: SqlTable;
  interactions: SqlTable;
  toolExecutions: SqlTable;
  auditEntries: SqlTable;
  auditHead: SqlTable;
  rememberedApprovals: SqlTable;
  jobsSchema?: string;
}

/** A statement and its parameters. */
export interface Statement {
  sql: string;
  parameters: unknown[];
}

/** Collects parameters and hands out their placeholders (`$1`, `$2`, …). */
export class Parameters {
  readonly values: unknown[] = [];

  add(value: unknown, cast?: string): string {
    this.values.push(value);
    return cast === undefined ? `$${this.values.length}` : `$${this.values.length}::${cast}`;
  }
}

/** The fencing token of a write: its thread and the epoch of the claim it runs under. */
export interface SqlFence {
  threadId: string;
  epoch: number;
}

/** `"column" AS "property", …` for every column of `table`. */
export function selectList(table: SqlTable, alias?: string): string {
  const prefix = alias === undefined ? '' : `${alias}.`;
  return Object.entries(table.columns)
    .map(([property, column]) => `${prefix}${column} AS "${property}"`)
    .join(', ');
}

/**
 * The fence as a CTE: the thread's row if its epoch is still the fence's, read FOR SHARE
 * (a claim waits until this statement's transaction ends; one that landed first is seen,
 * PostgreSQL re-checking the row it waited for). Without a fence it always passes.
 */
export function fenceCte(tables: PostgresTables, fence: SqlFence | undefined, parameters: Parameters): string {
  if (fence === undefined) return 'fence AS (SELECT 1)';
  const { threads } = tables;
  return `fence AS (SELECT 1 FROM ${threads.name} WHERE ${column(threads, 'threadId')} = ${parameters.add(fence.threadId)} AND ${column(threads, 'epoch')} = ${parameters.add(fence.epoch, 'integer')} FOR SHARE)`;
}

/** graphile-worker's `add_job` for each job, as a CTE `jobs` run only when `condition` holds. */
export function jobsCte(
  tables: PostgresTables,
  jobs: readonly ThreadJob[],
  parameters: Parameters,
  condition: string,
): string {
  if (jobs.length === 0 || tables.jobsSchema === undefined) return 'jobs AS (SELECT 1 WHERE false)';
  const identifiers = parameters.add(
    jobs.map((job) => taskIdentifier(job.workflowId)),
    'text[]',
  );
  const payloads = parameters.add(
    jobs.map(({ key, runAt: _runAt, workflowId, ...payload }) => JSON.stringify({ ...payload, workflowId, key })),
    'text[]',
  );
  const runAts = parameters.add(
    jobs.map((job) => job.runAt),
    'text[]',
  );
  const keys = parameters.add(
    jobs.map((job) => job.key),
    'text[]',
  );
  return `jobs AS (SELECT "${tables.jobsSchema}".add_job(identifier => j.identifier, payload => j.payload::json, run_at => j.run_at::timestamptz, job_key => j.job_key, max_attempts => 25)
    FROM unnest(${identifiers}, ${payloads}, ${runAts}, ${keys}) AS j(identifier, payload, run_at, job_key) WHERE ${condition})`;
}

/** `INSERT INTO table (columns) SELECT values WHERE condition`, every column of `row`. */
export function insertRow(
  table: SqlTable,
  row: object,
  parameters: Parameters,
  casts: Readonly<Record<string, string>> = {},
): { columns: string; values: string } {
  const entries = Object.entries(row);
  return {
    columns: entries.map(([property]) => column(table, property)).join(', '),
    values: entries.map(([property, value]) => parameters.add(value, casts[property] ?? 'text')).join(', '),
  };
}

export function column(table: SqlTable, property: string): string {
  const name = table.columns[property];
  if (name === undefined) throw new Error(`${table.name} has no column for ${property}`);
  return name;
}
