import { rmSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { DataSource } from 'typeorm';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  LATER,
  approvedExecution,
  errorCodeOf,
  interactionRecord,
  threadRecord,
  toolApproval,
  toolCallMessage,
  userMessage,
  workflowDefinition,
} from '../../testing/conformance/store-records.js';
import type { ICheckpointStore, ThreadRecord } from '../checkpoint-store.js';
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
async function takeMessageWrites(
  store: ICheckpointStore,
  inspector: DataSource,
  harness: TypeormStoreHarness,
): Promise<string[]> {
  // The inspector is another connection: it sees what the store committed.
  await store.flush?.();
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
      const created = await store.createThread(threadRecord({ conversation: [userMessage('hello')] }));
      const saved = await store.saveThread({
        ...created,
        status: 'waiting',
        conversation: [...created.conversation, userMessage('again')],
      });
      await store.createInteraction(interactionRecord());
      await store.recordResponse('interaction-1', {
        input: { approved: true },
        responder: 'ada',
        respondedAt: '2026-01-02T03:04:30.000Z',
      });
      await store.setGlobalVariables('workflow-a', { counter: 3 });
      await store.recordToolApproval(toolApproval());
      await store.markToolStarted('thread-1', 'call-1', toolApproval().argumentsHash, ['approved'], LATER);
      await store.saveWorkflowDefinition(workflowDefinition());
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
        { ...approvedExecution(), status: 'started', updatedAt: LATER },
      ]);
      expect(await store.markToolStarted('thread-1', 'call-1', toolApproval().argumentsHash, ['approved'], LATER)).toBe(
        false,
      );
      expect(await store.getWorkflowDefinition('workflow-a', '1.0.0')).toEqual(workflowDefinition());
      await expect(store.saveThread(created)).rejects.toMatchObject({ code: 'STORE_CONFLICT' });
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
      expect(MIGRATION_NAMES).toEqual([
        'CreateStoreTables1795305600000',
        'CreateToolExecutionAndWorkflowTables1795392000000',
        'CreateAuditAndRememberedApprovalTables1795478400000',
        'AddThreadLeases1795564800000',
        'AddClaimEpochAndAuditHead1795651200000',
        'CreateJobsTable1795737600000',
        'NotifyChanges1795824000000',
        'AddAuditToolDefinitionHash1795910400000',
        'AddAuditInteractionId1795996800000',
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
      let thread: ThreadRecord = await store.createThread(threadRecord({ conversation }));
      expect(await takeMessageWrites(store, inspector, harness)).toHaveLength(6);

      thread = await store.saveThread({ ...thread, conversation: [...thread.conversation, userMessage('message 6')] });
      expect(await takeMessageWrites(store, inspector, harness)).toEqual(['insert 6']);

      thread = await store.saveThread({ ...thread, steps: 1 });
      expect(await takeMessageWrites(store, inspector, harness)).toEqual([]);

      const edited = [...thread.conversation];
      edited[4] = toolCallMessage('call-1', { path: 'edited.txt' });
      await store.saveThread({ ...thread, conversation: edited });
      expect(await takeMessageWrites(store, inspector, harness)).toEqual([
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
        await expectInvalid(store.createThread(threadRecord({ threadId: text })));
        await expectInvalid(store.createThread(threadRecord({ threadId: 'ok', channel: text })));
        await expectInvalid(store.createInteraction(interactionRecord({ interactionId: text })));
        await expectInvalid(store.setGlobalVariables('workflow-a', { [text]: 1, fine: 2 }));
        await expectInvalid(store.setGlobalVariables(text, { fine: 2 }));
        expect(await store.getThread(text)).toBeUndefined();
        expect(await store.getInteraction(text)).toBeUndefined();
        expect(await store.listInteractions({ threadId: text })).toEqual([]);
        expect(await store.recordResponse(text, { input: true, respondedAt: '2026-01-02T03:04:30.000Z' })).toEqual({
          status: 'not_found',
        });
        expect(await store.failInteraction(text, 'timeout', 'late')).toBe(false);
        expect(await store.getGlobalVariables(text)).toEqual({});
        await expectInvalid(store.recordToolApproval(toolApproval({ toolCallId: text })));
        await expectInvalid(store.recordToolApproval(toolApproval({ threadId: 'ok', approvedBy: text })));
        await expectInvalid(store.saveWorkflowDefinition(workflowDefinition({ version: text })));
        expect(await store.getToolExecution(text, 'call-1')).toBeUndefined();
        expect(await store.getToolExecution('thread-1', text)).toBeUndefined();
        expect(await store.listToolExecutions({ threadId: text })).toEqual([]);
        expect(await store.markToolStarted('thread-1', text, 'hash', ['approved'], LATER)).toBe(false);
        expect(await store.setToolExecutionStatus(text, 'call-1', ['approved'], 'unknown', LATER)).toBe(false);
        await store.markToolFinished(text, 'call-1', { status: 'SUCCESS', content: 'done' }, LATER);
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
        await store.recordToolApproval(toolApproval({ threadId, toolCallId, createdAt }));
      }
      const order = (await store.listToolExecutions()).map((record) => `${record.threadId}/${record.toolCallId}`);
      expect(order).toEqual(['t3/c9', 't1/c1', 't1/c2', 't2/c0', 't2/c1']);
    });

    it('refuses to read a tool execution or workflow definition whose row was damaged, with INTERNAL', async () => {
      await store.recordToolApproval(toolApproval());
      await store.saveWorkflowDefinition(workflowDefinition());
      await store.flush?.();
      await inspector.query(`UPDATE ${harness.table('tool_executions')} SET "status" = 'exploded'`);
      await inspector.query(`UPDATE ${harness.table('workflow_definitions')} SET "definition" = '{"id":"other"}'`);
      expect(await errorCodeOf(store.getToolExecution('thread-1', 'call-1'))).toBe('INTERNAL');
      expect(await errorCodeOf(store.getWorkflowDefinition('workflow-a', '1.0.0'))).toBe('INTERNAL');
    });

    it('refuses to work once closed', async () => {
      await store.close();
      await expect(store.getThread('thread-1')).rejects.toMatchObject({ code: 'INVALID_OPTIONS' });
      await expect(store.createThread(threadRecord())).rejects.toMatchObject({ code: 'INVALID_OPTIONS' });
    });
  });
}
