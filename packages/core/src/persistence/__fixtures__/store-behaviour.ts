import { rmSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { DataSource } from 'typeorm';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { auditDigest, nextAnchor, verifyAuditChain } from '../../audit/audit-chain.js';
import {
  LATER,
  committed,
  createThread,
  errorCodeOf,
  interactionRecord,
  present,
  refused,
  save,
  threadRecord,
  toolApproval,
  toolCallMessage,
  userMessage,
  workflowDefinition,
} from '../../testing/conformance/store-records.js';
import type { ICheckpointStore } from '../checkpoint-store.js';
import { STORE_MIGRATIONS } from '../sql/migrations/store-migrations.js';
import { STORE_ENTITIES } from '../typeorm/store-entities.js';

/** How the store-behaviour tests reach one database. */
export interface TypeormStoreHarness {
  /** Prepares an empty database (file or schema) for the next test. */
  prepare(): Promise<void>;
  /** Opens a store (the PostgreSQL or the SQLite store) on the prepared database; call it again to reopen. */
  open(): Promise<ICheckpointStore>;
  /** Opens a bare DataSource on the prepared database (entities, no migrations) to look inside. */
  inspect(): Promise<DataSource>;
  /**
   * SQL that makes the database log every insert, update and delete on `messages` into
   * a table `message_writes ("position" integer, "operation" text)`, operation lower case.
   */
  logMessageWritesSql(): string[];
  /** A table's name as the SQL should spell it (schema-qualified on PostgreSQL). */
  table(name: string): string;
  /** Removes the prepared database. */
  cleanup(): Promise<void>;
}

/**
 * The harness for a SQLite file: each test gets a fresh file from `freshPath` (in a
 * directory that does not exist yet), opened with `open`.
 */
export function sqliteStoreHarness(
  freshPath: () => string,
  open: (path: string) => Promise<ICheckpointStore>,
): TypeormStoreHarness {
  let path = '';
  return {
    async prepare() {
      path = freshPath();
    },
    open: () => open(path),
    async inspect() {
      const dataSource = new DataSource({
        type: 'better-sqlite3',
        driver: Database,
        database: path,
        entities: STORE_ENTITIES,
      });
      return dataSource.initialize();
    },
    logMessageWritesSql: () => [
      'CREATE TABLE "message_writes" ("position" integer, "operation" text)',
      `CREATE TRIGGER "log_message_inserts" AFTER INSERT ON "messages" BEGIN INSERT INTO "message_writes" VALUES (NEW."position", 'insert'); END`,
      `CREATE TRIGGER "log_message_updates" AFTER UPDATE ON "messages" BEGIN INSERT INTO "message_writes" VALUES (NEW."position", 'update'); END`,
      `CREATE TRIGGER "log_message_deletes" AFTER DELETE ON "messages" BEGIN INSERT INTO "message_writes" VALUES (OLD."position", 'delete'); END`,
    ],
    table: (name) => `"${name}"`,
    async cleanup() {
      rmSync(join(path, '..', '..'), { recursive: true, force: true });
    },
  };
}

const ESCAPES = ['NUL \u0000 inside', 'lone surrogate \uD800'];

/** The names of every migration, oldest first, as the migrations table records them. */
export const MIGRATION_NAMES = STORE_MIGRATIONS.map((migration) => new migration().name);

/** The writes to `messages` logged since the last call, as `operation position`, sorted. */
async function takeMessageWrites(inspector: DataSource, harness: TypeormStoreHarness): Promise<string[]> {
  // The inspector is another connection: it sees what the store committed.
  const rows: { position: number; operation: string }[] = await inspector.query(
    `SELECT "position", "operation" FROM ${harness.table('message_writes')}`,
  );
  await inspector.query(`DELETE FROM ${harness.table('message_writes')}`);
  return rows.map((row) => `${row.operation} ${row.position}`).sort();
}

const expectInvalid = async (promise: Promise<unknown>) => expect(await errorCodeOf(promise)).toBe('INVALID_OPTIONS');

/**
 * What the stores on the shared tables (the PostgreSQL store, the SQLite store) do beyond
 * the port's conformance suite: durability across reopening, migrations, small
 * conversation writes, refusing what a text column cannot hold, and a closed store.
 */
export function describeTypeormStoreBehaviour(name: string, harness: TypeormStoreHarness): void {
  describe(`${name} (store on the shared tables)`, () => {
    let store: ICheckpointStore;
    let inspector: DataSource;

    beforeEach(async () => {
      await harness.prepare();
      store = await harness.open();
      inspector = await harness.inspect();
    });

    afterEach(async () => {
      await inspector.destroy();
      await store.close();
      await harness.cleanup();
    });

    it('keeps everything when the database is opened again by a new store', async () => {
      const created = await createThread(store, threadRecord({ conversation: [userMessage('hello')] }));
      await committed(store, {
        thread: save(created, { status: 'waiting', conversation: [...created.conversation, userMessage('again')] }),
        interactions: [{ kind: 'open', interaction: interactionRecord() }],
        globals: [{ kind: 'set', scope: 'workflow-a', name: 'counter', value: 3 }],
        toolCalls: [{ kind: 'start', call: toolApproval(), from: ['approved'], at: LATER }],
        definitions: [workflowDefinition()],
      });
      await committed(store, {
        interactions: [
          {
            kind: 'answer',
            interactionId: 'interaction-1',
            response: { input: { approved: true }, responder: 'ada', respondedAt: '2026-01-02T03:04:30.000Z' },
          },
        ],
      });
      const saved = present(await store.getThread('thread-1'));
      await store.close();

      store = await harness.open();
      expect(await store.getThread('thread-1')).toEqual(saved);
      expect(await store.listThreads({ status: 'waiting' })).toEqual([saved]);
      expect(await store.getInteraction('interaction-1')).toMatchObject({
        status: 'responded',
        response: { responder: 'ada' },
      });
      expect(await store.getGlobalVariables('workflow-a')).toEqual({ counter: 3 });
      expect(await store.listToolExecutions({ status: 'started' })).toEqual([
        { ...toolApproval(), status: 'started', updatedAt: LATER },
      ]);
      expect(
        await refused(store, { toolCalls: [{ kind: 'start', call: toolApproval(), from: ['approved'], at: LATER }] }),
      ).toMatchObject({ kind: 'tool-call' });
      expect(await store.getWorkflowDefinition('workflow-a', '1.0.0')).toEqual(workflowDefinition());
      expect(await refused(store, { thread: save(created) })).toMatchObject({ kind: 'thread-changed' });
    });

    it('creates its tables by migration, once, matching the entity schemas', async () => {
      const migrationNames = async () => {
        const rows: { name: string }[] = await inspector
          .createQueryBuilder()
          .select('migration.name', 'name')
          .from('interlock_migrations', 'migration')
          .getRawMany();
        return rows.map((row) => row.name);
      };
      expect(MIGRATION_NAMES.slice(0, 10)).toEqual([
        'CreateStoreTables1795305600000',
        'CreateToolExecutionAndWorkflowTables1795392000000',
        'CreateAuditAndRememberedApprovalTables1795478400000',
        'AddThreadLeases1795564800000',
        'AddClaimEpochAndAuditHead1795651200000',
        'CreateJobsTable1795737600000',
        'NotifyChanges1795824000000',
        'AddAuditToolDefinitionHash1795910400000',
        'AddAuditInteractionId1795996800000',
        'AddThreadAuditChains1796083200000',
      ]);
      expect(await migrationNames()).toEqual(MIGRATION_NAMES);
      await (await harness.open()).close();
      expect(await migrationNames()).toEqual(MIGRATION_NAMES);
      const pending = await inspector.driver.createSchemaBuilder().log();
      expect(pending.upQueries.map((query) => query.query)).toEqual([]);
    });

    it('writes only the new messages when a conversation grows, and rewrites from an edit on', async () => {
      for (const statement of harness.logMessageWritesSql()) await inspector.query(statement);
      const conversation = Array.from({ length: 6 }, (_, index) => userMessage(`message ${index}`));
      let thread = await createThread(store, threadRecord({ conversation }));
      expect(await takeMessageWrites(inspector, harness)).toHaveLength(6);

      await committed(store, {
        thread: save(thread, { conversation: [...thread.conversation, userMessage('message 6')] }),
      });
      thread = present(await store.getThread('thread-1'));
      expect(await takeMessageWrites(inspector, harness)).toEqual(['insert 6']);

      await committed(store, { thread: save(thread, { steps: 1 }) });
      thread = present(await store.getThread('thread-1'));
      expect(await takeMessageWrites(inspector, harness)).toEqual([]);

      const edited = [...thread.conversation];
      edited[4] = toolCallMessage('call-1', { path: 'edited.txt' });
      await committed(store, { thread: save(thread, { conversation: edited }, { kind: 'keep' }, 4) });
      expect(await takeMessageWrites(inspector, harness)).toEqual([
        'delete 4',
        'delete 5',
        'delete 6',
        'insert 4',
        'insert 5',
        'insert 6',
      ]);
      expect((await store.getThread('thread-1'))?.conversation).toEqual(edited);
    });

    it('refuses NUL and unpaired surrogates in ids and names with INVALID_OPTIONS, and stores nothing', async () => {
      for (const text of ESCAPES) {
        await expectInvalid(store.commit({ thread: { kind: 'create', thread: threadRecord({ threadId: text }) } }));
        await expectInvalid(
          store.commit({ thread: { kind: 'create', thread: threadRecord({ threadId: 'ok', channel: text }) } }),
        );
        await expectInvalid(
          store.commit({ interactions: [{ kind: 'open', interaction: interactionRecord({ interactionId: text }) }] }),
        );
        await expectInvalid(store.commit({ globals: [{ kind: 'set', scope: 'workflow-a', name: text, value: 1 }] }));
        await expectInvalid(store.commit({ globals: [{ kind: 'set', scope: text, name: 'fine', value: 2 }] }));
        expect(await store.getThread(text)).toBeUndefined();
        expect(await store.loadThread(text)).toBeUndefined();
        expect(await store.getInteraction(text)).toBeUndefined();
        expect(await store.listInteractions({ threadId: text })).toEqual([]);
        expect(await store.getGlobalVariables(text)).toEqual({});
        await expectInvalid(
          store.commit({
            toolCalls: [{ kind: 'start', call: toolApproval({ toolCallId: text }), from: ['approved'], at: LATER }],
          }),
        );
        await expectInvalid(store.commit({ definitions: [workflowDefinition({ version: text })] }));
        expect(await store.listToolExecutions({ threadId: text })).toEqual([]);
        expect(await store.getWorkflowDefinition('workflow-a', text)).toBeUndefined();
      }
      expect(await store.listThreads()).toEqual([]);
      expect(await store.listInteractions()).toEqual([]);
      expect(await store.getGlobalVariables('workflow-a')).toEqual({});
      expect(await store.listToolExecutions()).toEqual([]);
    });

    it('lists tool executions oldest first, ties by thread id and then call id', async () => {
      for (const [threadId, toolCallId, createdAt] of [
        ['t2', 'c1', '2026-01-02T03:04:07.000Z'],
        ['t1', 'c2', '2026-01-02T03:04:06.000Z'],
        ['t2', 'c0', '2026-01-02T03:04:06.000Z'],
        ['t1', 'c1', '2026-01-02T03:04:06.000Z'],
        ['t3', 'c9', '2026-01-02T03:04:05.000Z'],
      ] as const) {
        await committed(store, {
          toolCalls: [
            {
              kind: 'start',
              call: toolApproval({ threadId, toolCallId, createdAt }),
              from: ['approved'],
              at: createdAt,
            },
          ],
        });
      }
      const order = (await store.listToolExecutions()).map((record) => `${record.threadId}/${record.toolCallId}`);
      expect(order).toEqual(['t3/c9', 't1/c1', 't1/c2', 't2/c0', 't2/c1']);
    });

    it('refuses to read a tool execution or workflow definition whose row was damaged, with INTERNAL', async () => {
      await committed(store, {
        toolCalls: [{ kind: 'start', call: toolApproval(), from: ['approved'], at: LATER }],
        definitions: [workflowDefinition()],
      });
      await inspector.query(`UPDATE ${harness.table('tool_executions')} SET "status" = 'exploded'`);
      await inspector.query(`UPDATE ${harness.table('workflow_definitions')} SET "definition" = '{"id":"other"}'`);
      expect(await errorCodeOf(store.listToolExecutions({ threadId: 'thread-1' }))).toBe('INTERNAL');
      expect(await errorCodeOf(store.getWorkflowDefinition('workflow-a', '1.0.0'))).toBe('INTERNAL');
    });

    it('finds an audit entry edited, removed or cut off in the database (F45)', async () => {
      const draft = (threadId: string, reason: string) => {
        const entry = {
          threadId,
          toolCallId: 'call-1',
          toolName: 'write_file',
          outcome: 'allow' as const,
          decidedBy: 'person',
          rule: 'ask',
          reason,
          stage: 'execution' as const,
          originalArguments: { path: 'a.txt' },
          at: LATER,
        };
        return { entry, digest: auditDigest(entry) };
      };
      const { audit } = await committed(store, {
        audit: [draft('t-1', 'one'), draft('t-2', 'two'), draft('t-1', 'three')],
      });
      const verify = async () => verifyAuditChain(await store.listAuditEntries(), await store.readAuditEvidence());
      expect(await verify()).toEqual({ valid: true, entries: 3 });
      const entries = harness.table('audit_entries');
      await inspector.query(
        `UPDATE ${entries} SET "reason" = '"edited"' WHERE "sequence" = ${audit[1]?.sequence ?? 0}`,
      );
      expect(await verify()).toMatchObject({ valid: false, reason: 'the entry was changed' });
      await inspector.query(`UPDATE ${entries} SET "reason" = '"two"' WHERE "sequence" = ${audit[1]?.sequence ?? 0}`);
      await inspector.query(`DELETE FROM ${entries} WHERE "sequence" = ${audit[2]?.sequence ?? 0}`);
      expect(await verify()).toMatchObject({ valid: false, reason: expect.stringMatching(/removed from its end/) });
      // Sealed by an anchor, a whole thread removed (its entries and its head) is found too.
      await inspector.query(
        `UPDATE ${harness.table('audit_thread_heads')} SET "thread_sequence" = 1, "hash" = '${audit[0]?.hash ?? ''}' WHERE "thread_id" = 't-1'`,
      );
      expect(await verify()).toEqual({ valid: true, entries: 2 });
      await committed(store, { anchor: nextAnchor(undefined, await store.listAuditEntries(), LATER) });
      await inspector.query(`DELETE FROM ${entries} WHERE "thread_id" = 't-1'`);
      await inspector.query(`DELETE FROM ${harness.table('audit_thread_heads')} WHERE "thread_id" = 't-1'`);
      expect(await verify()).toMatchObject({ valid: false, reason: expect.stringMatching(/anchor 1 sealed/) });
    });

    it('refuses to work once closed', async () => {
      await store.close();
      await expect(store.getThread('thread-1')).rejects.toMatchObject({ code: 'INVALID_OPTIONS' });
      await expect(store.commit({ thread: { kind: 'create', thread: threadRecord() } })).rejects.toMatchObject({
        code: 'INVALID_OPTIONS',
      });
    });
  });
}
