import type { ThreadJob } from '../../workers/thread-jobs.js';
import {
  column,
  fenceCte,
  insertRow,
  jobsCte,
  Parameters,
  selectList,
  type PostgresTables,
  type SqlFence,
  type SqlTable,
  type Statement,
} from './postgres-sql.js';
import type { EncodedMessage } from './conversation-rows.js';

/*
 * The PostgreSQL store's hot statements as plain SQL (issue 18): one statement per store
 * method, the writes that touch several tables as data-modifying CTEs, so a durability
 * point costs one statement instead of one per table and check. Only PostgreSQL runs them
 * (SQLite has its own statements in ../sqlite/); table and column names come from
 * TypeORM's entity metadata, the schema of record.
 */

export { selectList, type PostgresTables, type SqlFence, type SqlTable, type Statement } from './postgres-sql.js';

/** A thread with its conversation (a JSON array of `[position, message]`), in one statement, one snapshot. */
export function selectThread(tables: PostgresTables, threadId: string): Statement {
  const { threads, messages } = tables;
  return {
    sql: `SELECT ${selectList(threads, 't')},
      (SELECT coalesce(json_agg(json_build_array(m.${column(messages, 'position')}, m.${column(messages, 'message')}) ORDER BY m.${column(messages, 'position')}), '[]')
        FROM ${messages.name} m WHERE m.${column(messages, 'threadId')} = t.${column(threads, 'threadId')}) AS "messages"
      FROM ${threads.name} t WHERE t.${column(threads, 'threadId')} = $1`,
    parameters: [threadId],
  };
}

/** Inserts a thread (unless its id exists), its messages and its jobs. Returns `created`. */
export function insertThread(
  tables: PostgresTables,
  row: object,
  messages: readonly EncodedMessage[],
  jobs: readonly ThreadJob[],
): Statement {
  const parameters = new Parameters();
  const { threads } = tables;
  const thread = insertRow(threads, row, parameters, { version: 'integer', epoch: 'integer' });
  const threadId = column(threads, 'threadId');
  const inserted = insertMessagesCte(
    tables,
    (row as { threadId: string }).threadId,
    messages,
    0,
    parameters,
    'EXISTS (SELECT 1 FROM created)',
    '0',
  );
  return {
    sql: `WITH created AS (INSERT INTO ${threads.name} (${thread.columns}) VALUES (${thread.values}) ON CONFLICT (${threadId}) DO NOTHING RETURNING 1),
      ${inserted},
      ${jobsCte(tables, jobs, parameters, 'EXISTS (SELECT 1 FROM created)')}
      SELECT (SELECT count(*) FROM created)::integer AS "created", (SELECT count(*) FROM inserted)::integer AS "messages", (SELECT count(*) FROM jobs)::integer AS "jobs"`,
    parameters: parameters.values,
  };
}

/** A CTE `inserted` adding `messages[from…]` at their positions, those at `keep` (an SQL expression) or later, when `condition` holds. */
function insertMessagesCte(
  tables: PostgresTables,
  threadId: string,
  messages: readonly EncodedMessage[],
  from: number,
  parameters: Parameters,
  condition: string,
  keep: string,
): string {
  const { messages: table } = tables;
  const rest = messages.slice(from);
  const id = parameters.add(threadId);
  const jsons = parameters.add(
    rest.map((message) => message.json),
    'text[]',
  );
  const digests = parameters.add(
    rest.map((message) => message.digest),
    'text[]',
  );
  const start = parameters.add(from, 'integer');
  const columns = ['threadId', 'position', 'message', 'digest'].map((property) => column(table, property)).join(', ');
  return `inserted AS (INSERT INTO ${table.name} (${columns})
      SELECT ${id}, ${start} + m.ordinality::integer - 1, m.message, m.digest FROM unnest(${jsons}, ${digests}) WITH ORDINALITY AS m(message, digest, ordinality)
      WHERE ${condition} AND ${start} + m.ordinality::integer - 1 >= ${keep} RETURNING 1)`;
}

/**
 * Saves a thread at `version` when the stored messages are an unchanged prefix of the
 * conversation at least `from` long (the caller sends `messages[from…]` only): the
 * conditional UPDATE and the new messages in one statement. Returns `updated` (1 or 0),
 * `prefix` (whether the stored messages were such a prefix) and the stored version.
 * When the version matched but the prefix did not (an edited message), nothing was
 * written and the caller rewrites the conversation another way. With the thread, the
 * answers it applied (`consumed`) are marked processed, in the same statement.
 */
export function updateThread(
  tables: PostgresTables,
  threadId: string,
  version: number,
  columns: object,
  messages: readonly EncodedMessage[],
  from: number,
  consumed: { interactionIds: readonly string[]; at: string },
): Statement {
  const parameters = new Parameters();
  const { threads, messages: table } = tables;
  const id = parameters.add(threadId);
  const expected = parameters.add(version, 'integer');
  const allDigests = parameters.add(
    messages.map((message) => message.digest),
    'text[]',
  );
  const assignments = Object.entries(columns)
    .map(
      ([property, value]) =>
        `${column(threads, property)} = ${parameters.add(value, property === 'version' ? 'integer' : 'text')}`,
    )
    .join(', ');
  const position = column(table, 'position');
  const start = parameters.add(from, 'integer');
  const inserted = insertMessagesCte(
    tables,
    threadId,
    messages,
    from,
    parameters,
    'EXISTS (SELECT 1 FROM updated)',
    '(SELECT n FROM stored)',
  );
  const { interactions } = tables;
  const markConsumed =
    consumed.interactionIds.length === 0
      ? ''
      : `, consumed AS (UPDATE ${interactions.name} SET ${column(interactions, 'status')} = 'processed',
          ${column(interactions, 'updatedAt')} = ${parameters.add(consumed.at)}
        WHERE ${column(interactions, 'interactionId')} = ANY(${parameters.add(consumed.interactionIds, 'text[]')})
          AND ${column(interactions, 'status')} = 'responded' AND EXISTS (SELECT 1 FROM updated) RETURNING 1)`;
  return {
    sql: `WITH stored AS (SELECT count(*)::integer AS n,
          count(*) FILTER (WHERE ${column(table, 'digest')} IS DISTINCT FROM (${allDigests})[${position} + 1])::integer AS changed
        FROM ${table.name} WHERE ${column(table, 'threadId')} = ${id}),
      updated AS (UPDATE ${threads.name} SET ${assignments}
        WHERE ${column(threads, 'threadId')} = ${id} AND ${column(threads, 'version')} = ${expected}
          AND (SELECT changed FROM stored) = 0 AND (SELECT n FROM stored) >= ${start} RETURNING 1),
      ${inserted}${markConsumed}
      SELECT (SELECT count(*) FROM updated)::integer AS "updated",
        (SELECT changed = 0 AND n >= ${start} FROM stored) AS "prefix",
        (SELECT ${column(threads, 'version')} FROM ${threads.name} WHERE ${column(threads, 'threadId')} = ${id}) AS "storedVersion"`,
    parameters: parameters.values,
  };
}

/** Claims a thread: no live claim, the version read. Returns the new version and epoch, or no row. */
export function claimThread(
  tables: PostgresTables,
  threadId: string,
  owner: string,
  until: string,
  now: string,
  expectedVersion: number,
): Statement {
  const { threads } = tables;
  const c = (property: string): string => column(threads, property);
  return {
    sql: `UPDATE ${threads.name} SET ${c('leaseOwner')} = $2, ${c('leaseUntil')} = $3, ${c('epoch')} = ${c('epoch')} + 1, ${c('version')} = ${c('version')} + 1
      WHERE ${c('threadId')} = $1 AND (${c('leaseOwner')} IS NULL OR ${c('leaseUntil')} <= $4) AND ${c('version')} = $5::integer
      RETURNING ${c('version')} AS "version", ${c('epoch')} AS "epoch"`,
    parameters: [threadId, owner, until, now, expectedVersion],
  };
}

/** Sets (or, with `until` null, frees) `owner`'s claim if the epoch is still the fence's. Returns `affected`. */
export function setClaim(tables: PostgresTables, fence: SqlFence, owner: string, until: string | null): Statement {
  const { threads } = tables;
  const c = (property: string): string => column(threads, property);
  const lease = until === null ? `${c('leaseOwner')} = NULL, ${c('leaseUntil')} = NULL` : `${c('leaseUntil')} = $4`;
  return {
    sql: `WITH changed AS (UPDATE ${threads.name} SET ${lease} WHERE ${c('threadId')} = $1 AND ${c('epoch')} = $2::integer AND ${c('leaseOwner')} = $3 RETURNING 1)
      SELECT count(*)::integer AS "affected" FROM changed`,
    parameters: until === null ? [fence.threadId, fence.epoch, owner] : [fence.threadId, fence.epoch, owner, until],
  };
}

/** Upserts an interaction and adds its jobs, fenced. Returns `fenced`. */
export function upsertInteraction(
  tables: PostgresTables,
  row: object,
  fence: SqlFence | undefined,
  jobs: readonly ThreadJob[],
): Statement {
  const parameters = new Parameters();
  const { interactions } = tables;
  const fenced = fenceCte(tables, fence, parameters);
  const values = insertRow(interactions, row, parameters);
  const key = column(interactions, 'interactionId');
  const updates = Object.keys(row)
    .filter((property) => property !== 'interactionId')
    .map((property) => `${column(interactions, property)} = excluded.${column(interactions, property)}`)
    .join(', ');
  return {
    sql: `WITH ${fenced},
      written AS (INSERT INTO ${interactions.name} (${values.columns}) SELECT ${values.values} WHERE EXISTS (SELECT 1 FROM fence)
        ON CONFLICT (${key}) DO UPDATE SET ${updates} RETURNING 1),
      ${jobsCte(tables, jobs, parameters, 'EXISTS (SELECT 1 FROM fence)')}
      SELECT EXISTS (SELECT 1 FROM fence) AS "fenced", (SELECT count(*) FROM written)::integer AS "written", (SELECT count(*) FROM jobs)::integer AS "jobs"`,
    parameters: parameters.values,
  };
}

/** Interactions by id, or by status and thread, oldest first. */
export function selectInteractions(
  tables: PostgresTables,
  filter: { interactionId?: string; status?: string; threadId?: string },
): Statement {
  const parameters = new Parameters();
  const { interactions } = tables;
  const conditions = (['interactionId', 'status', 'threadId'] as const)
    .filter((property) => filter[property] !== undefined)
    .map((property) => `${column(interactions, property)} = ${parameters.add(filter[property])}`);
  return {
    sql: `SELECT ${selectList(interactions)} FROM ${interactions.name}${conditions.length === 0 ? '' : ` WHERE ${conditions.join(' AND ')}`}
      ORDER BY ${column(interactions, 'createdAt')}, ${column(interactions, 'interactionId')}`,
    parameters: parameters.values,
  };
}

/** Records the answer of a pending interaction and adds its jobs with it. Returns the updated row, or none. */
export function respondToInteraction(
  tables: PostgresTables,
  interactionId: string,
  response: string,
  respondedAt: string,
  jobs: readonly ThreadJob[],
): Statement {
  const parameters = new Parameters();
  const { interactions } = tables;
  const c = (property: string): string => column(interactions, property);
  const id = parameters.add(interactionId);
  const set = `${c('status')} = 'responded', ${c('response')} = ${parameters.add(response)}, ${c('updatedAt')} = ${parameters.add(respondedAt)}`;
  return {
    sql: `WITH updated AS (UPDATE ${interactions.name} SET ${set} WHERE ${c('interactionId')} = ${id} AND ${c('status')} = 'pending' RETURNING *),
      ${jobsCte(tables, jobs, parameters, 'EXISTS (SELECT 1 FROM updated)')}
      SELECT ${selectList(interactions)}, (SELECT count(*) FROM jobs)::integer AS "jobs" FROM updated`,
    parameters: parameters.values,
  };
}

/** A fenced conditional UPDATE of one row: `set` where `where` (property → value; arrays match any of their values). Returns `fenced`, `affected`. */
export function fencedUpdate(
  tables: PostgresTables,
  table: SqlTable,
  set: Readonly<Record<string, unknown>>,
  where: Readonly<Record<string, unknown>>,
  fence: SqlFence | undefined,
  not: Readonly<Record<string, unknown>> = {},
): Statement {
  const parameters = new Parameters();
  const fenced = fenceCte(tables, fence, parameters);
  const assignments = Object.entries(set)
    .map(([property, value]) => `${column(table, property)} = ${parameters.add(value)}`)
    .join(', ');
  const conditions = [
    ...Object.entries(where).map(([property, value]) =>
      Array.isArray(value)
        ? `${column(table, property)} = ANY(${parameters.add(value, 'text[]')})`
        : `${column(table, property)} = ${parameters.add(value)}`,
    ),
    ...Object.entries(not).map(([property, value]) => `${column(table, property)} <> ${parameters.add(value)}`),
    'EXISTS (SELECT 1 FROM fence)',
  ];
  return {
    sql: `WITH ${fenced}, changed AS (UPDATE ${table.name} SET ${assignments} WHERE ${conditions.join(' AND ')} RETURNING 1)
      SELECT EXISTS (SELECT 1 FROM fence) AS "fenced", (SELECT count(*) FROM changed)::integer AS "affected"`,
    parameters: parameters.values,
  };
}

/** Inserts a tool call's approval unless it is stored, fenced. Returns `fenced` and the stored hash (of this snapshot). */
export function insertToolApproval(tables: PostgresTables, row: object, fence: SqlFence | undefined): Statement {
  const parameters = new Parameters();
  const { toolExecutions: table } = tables;
  const fenced = fenceCte(tables, fence, parameters);
  const values = insertRow(table, row, parameters, { idempotent: 'boolean' });
  const { threadId, toolCallId } = row as { threadId: string; toolCallId: string };
  return {
    sql: `WITH ${fenced},
      inserted AS (INSERT INTO ${table.name} (${values.columns}) SELECT ${values.values} WHERE EXISTS (SELECT 1 FROM fence) ON CONFLICT DO NOTHING RETURNING ${column(table, 'argumentsHash')} AS hash)
      SELECT EXISTS (SELECT 1 FROM fence) AS "fenced",
        coalesce((SELECT hash FROM inserted), (SELECT ${column(table, 'argumentsHash')} FROM ${table.name}
          WHERE ${column(table, 'threadId')} = ${parameters.add(threadId)} AND ${column(table, 'toolCallId')} = ${parameters.add(toolCallId)})) AS "storedHash"`,
    parameters: parameters.values,
  };
}

/** Reads the audit chain's head FOR UPDATE (appenders queue on it), fenced. Returns `fenced`, and the head's columns when it exists. */
export function lockAuditHead(tables: PostgresTables, fence: SqlFence | undefined): Statement {
  const parameters = new Parameters();
  const { auditHead } = tables;
  const fenced = fenceCte(tables, fence, parameters);
  return {
    sql: `WITH ${fenced}, head AS (SELECT ${column(auditHead, 'sequence')} AS sequence, ${column(auditHead, 'hash')} AS hash FROM ${auditHead.name}
        WHERE ${column(auditHead, 'id')} = 1 AND EXISTS (SELECT 1 FROM fence) FOR UPDATE)
      SELECT EXISTS (SELECT 1 FROM fence) AS "fenced", (SELECT sequence FROM head) AS "sequence", (SELECT hash FROM head) AS "hash"`,
    parameters: parameters.values,
  };
}

/** Inserts an audit entry and moves the head to it, in one statement. */
export function appendAudit(tables: PostgresTables, row: { sequence: number; hash: string }): Statement {
  const parameters = new Parameters();
  const { auditEntries, auditHead } = tables;
  const entry = insertRow(auditEntries, row, parameters, { sequence: 'integer' });
  const sequence = column(auditHead, 'sequence');
  const hash = column(auditHead, 'hash');
  return {
    sql: `WITH entry AS (INSERT INTO ${auditEntries.name} (${entry.columns}) VALUES (${entry.values}) RETURNING 1)
      INSERT INTO ${auditHead.name} (${column(auditHead, 'id')}, ${sequence}, ${hash}) VALUES (1, ${parameters.add(row.sequence, 'integer')}, ${parameters.add(row.hash)})
      ON CONFLICT (${column(auditHead, 'id')}) DO UPDATE SET ${sequence} = excluded.${sequence}, ${hash} = excluded.${hash}`,
    parameters: parameters.values,
  };
}

/** Whether `key` is remembered at `now`, deleting it when it expired (and was not extended meanwhile). */
export function checkRememberedApproval(tables: PostgresTables, key: string, now: number): Statement {
  const { rememberedApprovals: table } = tables;
  const expiresAt = column(table, 'expiresAt');
  return {
    sql: `WITH gone AS (DELETE FROM ${table.name} WHERE ${column(table, 'key')} = $1 AND ${expiresAt} <= $2::bigint RETURNING 1)
      SELECT EXISTS (SELECT 1 FROM ${table.name} WHERE ${column(table, 'key')} = $1 AND ${expiresAt} > $2::bigint) AS "remembered", (SELECT count(*) FROM gone)::integer AS "deleted"`,
    parameters: [key, now],
  };
}

/** Remembers `key` until `expiresAt`, replacing an earlier expiry. */
export function upsertRememberedApproval(tables: PostgresTables, key: string, expiresAt: number): Statement {
  const { rememberedApprovals: table } = tables;
  const expires = column(table, 'expiresAt');
  return {
    sql: `INSERT INTO ${table.name} (${column(table, 'key')}, ${expires}) VALUES ($1, $2::bigint) ON CONFLICT (${column(table, 'key')}) DO UPDATE SET ${expires} = excluded.${expires}`,
    parameters: [key, expiresAt],
  };
}

/** Adds jobs on their own. */
export function insertJobs(tables: PostgresTables, jobs: readonly ThreadJob[]): Statement {
  const parameters = new Parameters();
  return {
    sql: `WITH ${jobsCte(tables, jobs, parameters, 'true')} SELECT count(*)::integer AS "jobs" FROM jobs`,
    parameters: parameters.values,
  };
}

/** A tool call's write-ahead record. */
/** The audit entries, in chain order; those of one thread with `threadId`. */
export function selectAuditEntries(tables: PostgresTables, threadId: string | undefined): Statement {
  const { auditEntries: table } = tables;
  return {
    sql: `SELECT ${selectList(table)} FROM ${table.name}${threadId === undefined ? '' : ` WHERE ${column(table, 'threadId')} = $1`}
      ORDER BY ${column(table, 'sequence')}`,
    parameters: threadId === undefined ? [] : [threadId],
  };
}

export function selectToolExecution(tables: PostgresTables, threadId: string, toolCallId: string): Statement {
  const { toolExecutions: table } = tables;
  return {
    sql: `SELECT ${selectList(table)} FROM ${table.name} WHERE ${column(table, 'threadId')} = $1 AND ${column(table, 'toolCallId')} = $2`,
    parameters: [threadId, toolCallId],
  };
}
