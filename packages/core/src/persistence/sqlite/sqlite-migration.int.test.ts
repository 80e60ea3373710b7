import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { auditDigest, verifyAuditChain } from '../../audit/audit-chain.js';
import {
  committed,
  interactionRecord,
  LATER,
  present,
  response,
  save,
  threadRecord,
  toolApproval,
  userMessage,
} from '../../testing/conformance/store-records.js';
import type { ICheckpointStore, ThreadStatus, ToolExecutionStatus } from '../checkpoint-store.js';
import { MIGRATIONS_TABLE, type MigrationRunner } from '../sql/migrations/migration-runner.js';
import { STORE_MIGRATIONS } from '../sql/migrations/store-migrations.js';
import { openSqliteStore } from './open-sqlite-store.js';
import { migrateSqlite } from './sqlite-migrations.js';
import { SqliteCheckpointStore } from './sqlite-checkpoint-store.js';

const root = mkdtempSync(join(tmpdir(), 'interlock-sqlite-migration-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let files = 0;
const freshFile = () => join(root, `database-${(files += 1)}.db`);

const NEW_MIGRATION = 'SqliteFewerPagesPerCommit1796860800000';
const THREAD_STATUSES: ThreadStatus[] = ['running', 'waiting', 'completed', 'failed', 'cancelled'];
const INTERACTION_STATUSES = ['pending', 'responded', 'processed', 'failed'] as const;
const TOOL_STATUSES: ToolExecutionStatus[] = ['approved', 'started', 'finished', 'unknown'];

/** A database file as the store left it before `NEW_MIGRATION`: every migration before it run and recorded. */
async function databaseBefore(file: string): Promise<Database.Database> {
  const database = new Database(file);
  database.pragma('journal_mode = WAL');
  database.pragma('foreign_keys = ON');
  database.exec(
    `CREATE TABLE "${MIGRATIONS_TABLE}" ("id" integer PRIMARY KEY AUTOINCREMENT NOT NULL, "timestamp" bigint NOT NULL, "name" varchar NOT NULL)`,
  );
  const runner: MigrationRunner = {
    query: (sql: string) => Promise.resolve(database.exec(sql)),
    connection: { driver: { options: { type: 'sqlite' } } },
  };
  const before = STORE_MIGRATIONS.map((Migration) => new Migration()).filter(
    (migration) => migration.name !== NEW_MIGRATION,
  );
  expect(before).toHaveLength(STORE_MIGRATIONS.length - 1);
  for (const migration of before) {
    await migration.up(runner);
    database
      .prepare(`INSERT INTO "${MIGRATIONS_TABLE}" ("timestamp", "name") VALUES (?, ?)`)
      .run(Number(/(\d+)$/.exec(migration.name)?.[1]), migration.name);
  }
  return database;
}

function auditDraft(threadId: string, index: number) {
  const entry = {
    threadId,
    toolCallId: `call-${index}`,
    toolName: 'write_file',
    outcome: 'allow' as const,
    decidedBy: 'person',
    rule: 'ask',
    reason: `answer ${index}`,
    stage: 'execution' as const,
    originalArguments: { path: `${threadId}-${index}.txt` },
    at: '2026-01-02T03:04:05.678Z',
  };
  return { entry, digest: auditDigest(entry) };
}

/** Threads of every status with their conversations, interactions and calls of every status, audit chains. */
async function fill(store: ICheckpointStore): Promise<void> {
  for (const [index, status] of THREAD_STATUSES.entries()) {
    const threadId = `thread-${status}`;
    await committed(store, {
      thread: {
        kind: 'create',
        thread: threadRecord({
          threadId,
          status,
          conversation: [userMessage(`first of ${status}`), userMessage(`second of ${status}`)],
        }),
      },
      interactions: [{ kind: 'open', interaction: interactionRecord({ interactionId: `ask-${status}`, threadId }) }],
      toolCalls: [
        { kind: 'start', call: toolApproval({ threadId, toolCallId: `call-${status}` }), from: [], at: LATER },
      ],
      audit: Array.from({ length: index + 1 }, (_, entry) => auditDraft(threadId, entry)),
      remember: [{ key: `remembered-${status}`, expiresAt: Date.parse('2100-01-01') }],
      globals: [{ kind: 'set', scope: 'workflow-a', name: status, value: { index } }],
    });
  }
  // Interactions of every status, tool calls of every status.
  await committed(store, {
    interactions: [
      { kind: 'answer', interactionId: 'ask-waiting', response: response(true) },
      { kind: 'answer', interactionId: 'ask-completed', response: response(true) },
      { kind: 'consume', interactionId: 'ask-completed', at: LATER },
      { kind: 'fail', interactionId: 'ask-failed', reason: 'timeout', message: 'nobody answered', at: LATER },
    ],
    toolCalls: [
      {
        kind: 'finish',
        threadId: 'thread-completed',
        toolCallId: 'call-completed',
        outcome: { status: 'SUCCESS', content: 'written' },
        at: LATER,
      },
      {
        kind: 'status',
        threadId: 'thread-failed',
        toolCallId: 'call-failed',
        to: 'unknown',
        from: ['started'],
        at: LATER,
      },
    ],
  });
  await committed(store, {
    toolCalls: [
      {
        kind: 'start',
        call: toolApproval({ threadId: 'thread-waiting', toolCallId: 'call-later' }),
        from: [],
        at: LATER,
      },
      {
        kind: 'status',
        threadId: 'thread-waiting',
        toolCallId: 'call-later',
        to: 'approved',
        from: ['started'],
        at: LATER,
      },
    ],
  });
}

/** Everything the store reads back, by every lookup that has an index behind it. */
async function everything(store: ICheckpointStore) {
  const threadIds = THREAD_STATUSES.map((status) => `thread-${status}`);
  return {
    threads: await Promise.all(threadIds.map((threadId) => store.loadThread(threadId))),
    allThreads: await store.listThreads(),
    threadsByStatus: await Promise.all(THREAD_STATUSES.map((status) => store.listThreads({ status }))),
    interactions: await store.listInteractions(),
    interactionsByStatus: await Promise.all(INTERACTION_STATUSES.map((status) => store.listInteractions({ status }))),
    pendingOfThread: await store.listInteractions({ threadId: 'thread-running', status: 'pending' }),
    toolCalls: await store.listToolExecutions(),
    toolCallsByStatus: await Promise.all(TOOL_STATUSES.map((status) => store.listToolExecutions({ status }))),
    audit: await store.listAuditEntries(),
    evidence: await store.readAuditEvidence(),
    globals: await store.getGlobalVariables('workflow-a'),
    remembered: await Promise.all(
      THREAD_STATUSES.map((status) => store.isApprovalRemembered(`remembered-${status}`, Date.parse('2030-01-01'))),
    ),
  };
}

/** Another connection's view of the file's schema, `live_threads` and every row of the store's tables. */
function inspect(file: string) {
  const other = new Database(file, { readonly: true });
  try {
    const tables = other
      .prepare(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT IN ('live_threads', 'sqlite_sequence') ORDER BY name",
      )
      .pluck()
      .all() as string[];
    return {
      migrations: other.prepare(`SELECT name FROM "${MIGRATIONS_TABLE}" ORDER BY id`).pluck().all(),
      heads: other.prepare("SELECT sql FROM sqlite_master WHERE name = 'audit_thread_heads'").pluck().get() as string,
      live: other.prepare('SELECT thread_id FROM live_threads ORDER BY thread_id').pluck().all(),
      rows: Object.fromEntries(
        tables
          .filter((table) => table !== MIGRATIONS_TABLE)
          .map((table) => [table, other.prepare(`SELECT * FROM "${table}" ORDER BY 1, 2`).all()]),
      ),
    };
  } finally {
    other.close();
  }
}

/** Every row of the store's tables, on another connection, before the migration (no `live_threads` yet). */
function rowsBefore(file: string) {
  const other = new Database(file, { readonly: true });
  try {
    const tables = other
      .prepare(
        `SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT IN ('sqlite_sequence', '${MIGRATIONS_TABLE}') ORDER BY name`,
      )
      .pluck()
      .all() as string[];
    return Object.fromEntries(
      tables.map((table) => [table, other.prepare(`SELECT * FROM "${table}" ORDER BY 1, 2`).all()]),
    );
  } finally {
    other.close();
  }
}

describe('SQLite store: the migration to fewer pages per commit (issue 38)', () => {
  it('keeps every row of a database made by the migrations before it, and reads it as a new database', async () => {
    const file = freshFile();
    const old = new SqliteCheckpointStore(await databaseBefore(file));
    await fill(old);
    await old.close();
    const rows = rowsBefore(file);
    // Each status has its rows: the lookups below compare them.
    expect(Object.fromEntries(Object.entries(rows).map(([table, stored]) => [table, stored.length]))).toMatchObject({
      threads: 5,
      messages: 10,
      interactions: 5,
      tool_executions: 6,
      audit_entries: 15,
      audit_thread_heads: 5,
    });

    const store = await openSqliteStore({ path: file });
    const fresh = await openSqliteStore({ path: freshFile() });
    try {
      const schema = inspect(file);
      expect(schema.rows).toEqual(rows);
      // Every migration once; this one last, as opening the file ran it.
      expect(schema.migrations).toEqual([
        ...STORE_MIGRATIONS.map((Migration) => new Migration().name).filter((name) => name !== NEW_MIGRATION),
        NEW_MIGRATION,
      ]);
      expect(schema.heads).toContain('WITHOUT ROWID');
      expect(schema.live).toEqual(['thread-running', 'thread-waiting']);
      // The store reads the migrated file as it reads one it filled itself, by every lookup.
      await fill(fresh);
      const read = await everything(store);
      expect(read).toEqual(await everything(fresh));
      expect(read.threadsByStatus.map((threads) => threads.length)).toEqual([1, 1, 1, 1, 1]);
      expect(read.interactionsByStatus.map((interactions) => interactions.length)).toEqual([2, 1, 1, 1]);
      expect(read.toolCallsByStatus.map((calls) => calls.length)).toEqual([1, 3, 1, 1]);
      expect(verifyAuditChain(read.audit, read.evidence)).toEqual({ valid: true, entries: 15 });

      // A thread's chain goes on from its copied head.
      const [appended] = (await committed(store, { audit: [auditDraft('thread-cancelled', 9)] })).audit;
      const head = present(read.evidence.heads.find((entry) => entry.threadId === 'thread-cancelled'));
      expect(appended).toMatchObject({ threadSequence: head.threadSequence + 1, previousHash: head.hash });
      const audit = await store.listAuditEntries();
      expect(verifyAuditChain(audit, await store.readAuditEvidence())).toEqual({ valid: true, entries: 16 });
    } finally {
      await Promise.all([store.close(), fresh.close()]);
    }
  });

  it('lists a thread by its status as it moves between running, waiting and its end', async () => {
    const file = freshFile();
    const store = await openSqliteStore({ path: file });
    try {
      const ids = async (status: ThreadStatus) =>
        (await store.listThreads({ status })).map((thread) => thread.threadId);
      await committed(store, { thread: { kind: 'create', thread: threadRecord({ threadId: 'a' }) } });
      await committed(store, {
        thread: { kind: 'create', thread: threadRecord({ threadId: 'b', status: 'completed' }) },
      });
      expect([await ids('running'), await ids('completed'), inspect(file).live]).toEqual([['a'], ['b'], ['a']]);

      let thread = present(await store.getThread('a'));
      for (const status of ['waiting', 'running', 'waiting', 'failed', 'running', 'cancelled'] as const) {
        await committed(store, { thread: save(thread, { status }) });
        thread = present(await store.getThread('a'));
        const listed = await Promise.all(THREAD_STATUSES.map(async (each) => [each, await ids(each)] as const));
        expect(Object.fromEntries(listed.filter(([, threads]) => threads.includes('a')))).toEqual({ [status]: ['a'] });
        expect(inspect(file).live).toEqual(status === 'running' || status === 'waiting' ? ['a'] : []);
      }
      expect(await ids('completed')).toEqual(['b']);
    } finally {
      await store.close();
    }
  });

  it('looks up live threads, unprocessed interactions and stopped calls without reading their whole table', async () => {
    const database = new Database(freshFile());
    await migrateSqlite(database);
    // The statements the store runs, as it prepared them (with their parameters, not values).
    const ran: string[] = [];
    const prepare = database.prepare.bind(database);
    database.prepare = ((sql: string) => {
      const statement = prepare(sql);
      const all = statement.all.bind(statement);
      statement.all = ((...parameters: unknown[]) => {
        ran.push(sql);
        return all(...parameters);
      }) as typeof statement.all;
      return statement;
    }) as typeof database.prepare;
    const store = new SqliteCheckpointStore(database);
    const plans: Record<string, string> = {};
    const planOf = async (lookup: string, read: () => Promise<unknown>) => {
      ran.length = 0;
      await read();
      const [sql = ''] = ran;
      const parameters = Object.fromEntries([...sql.matchAll(/@(\w+)/g)].map(([, name]) => [name, 'x']));
      const positional = (sql.match(/\?/g) ?? []).map(() => 'x');
      const rows = prepare(`EXPLAIN QUERY PLAN ${sql}`).all(
        ...(Object.keys(parameters).length > 0 ? [parameters] : positional),
      ) as { detail: string }[];
      plans[lookup] = rows.map((row) => row.detail).join('; ');
    };
    try {
      for (const status of ['running', 'waiting', 'failed', 'cancelled'] as const)
        await planOf(`threads ${status}`, () => store.listThreads({ status }));
      for (const status of ['pending', 'responded', 'failed'] as const) {
        await planOf(`interactions ${status}`, () => store.listInteractions({ status }));
        await planOf(`interactions ${status} of a thread`, () => store.listInteractions({ status, threadId: 't' }));
      }
      for (const status of ['approved', 'unknown'] as const)
        await planOf(`tool calls ${status}`, () => store.listToolExecutions({ status }));
      // `t` is threads, `l` live_threads (only the threads that have not finished).
      const scans = Object.entries(plans).filter(([, plan]) => /SCAN (t|interactions|tool_executions)\b/.test(plan));
      expect(scans).toEqual([]);
      expect(Object.keys(plans)).toHaveLength(12);
    } finally {
      await store.close();
    }
  });
});
