import type { DataSource } from 'typeorm';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { errorCodeOf, interactionRecord, threadRecord, toolCallMessage, userMessage } from '../__fixtures__/store-records.js';
import type { ThreadRecord } from '../checkpoint-store.js';
import type { TypeormCheckpointStore } from './typeorm-checkpoint-store.js';

/** How the TypeORM store tests reach one database. */
export interface TypeormStoreHarness {
  /** Prepares an empty database (file or schema) for the next test. */
  prepare(): Promise<void>;
  /** Opens a store on the prepared database; call it again to reopen. */
  open(): Promise<TypeormCheckpointStore>;
  /** Opens a bare DataSource on the prepared database (entities, no migrations) to look inside. */
  inspect(): Promise<DataSource>;
  /**
   * SQL that makes the database log every insert, update and delete on `messages` into
   * a table `message_writes ("position" integer, "operation" text)`, operation lower case.
   */
  logMessageWritesSql(): string[];
  /** The name of that table as the SQL should spell it (schema-qualified on PostgreSQL). */
  messageWritesTable(): string;
  /** Removes the prepared database. */
  cleanup(): Promise<void>;
}

const ESCAPES = ['NUL \u0000 inside', 'lone surrogate \uD800'];

/** The writes to `messages` logged since the last call, as `operation position`, sorted. */
async function takeMessageWrites(inspector: DataSource, harness: TypeormStoreHarness): Promise<string[]> {
  const rows: { position: number; operation: string }[] = await inspector.query(
    `SELECT "position", "operation" FROM ${harness.messageWritesTable()}`,
  );
  await inspector.query(`DELETE FROM ${harness.messageWritesTable()}`);
  return rows.map((row) => `${row.operation} ${Number(row.position)}`).sort();
}

const expectInvalid = async (promise: Promise<unknown>) => expect(await errorCodeOf(promise)).toBe('INVALID_OPTIONS');

/**
 * What the TypeORM store does beyond the port's conformance suite: durability across
 * reopening, migrations, small conversation writes, refusing what a text column cannot
 * hold, and a closed store.
 */
export function describeTypeormStoreBehaviour(name: string, harness: TypeormStoreHarness): void {
  describe(`${name} (TypeORM store)`, () => {
    let store: TypeormCheckpointStore;
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
      const saved = await store.saveThread({ ...created, status: 'waiting', conversation: [...created.conversation, userMessage('again')] });
      await store.createInteraction(interactionRecord());
      await store.recordResponse('interaction-1', { input: { approved: true }, responder: 'ada', respondedAt: '2026-01-02T03:04:30.000Z' });
      await store.setGlobalVariables('workflow-a', { counter: 3 });
      await store.close();

      store = await harness.open();
      expect(await store.getThread('thread-1')).toEqual(saved);
      expect(await store.listThreads({ status: 'waiting' })).toEqual([saved]);
      expect(await store.getInteraction('interaction-1')).toMatchObject({ status: 'responded', response: { responder: 'ada' } });
      expect(await store.getGlobalVariables('workflow-a')).toEqual({ counter: 3 });
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
      expect(await migrationNames()).toEqual(['CreateStoreTables1795305600000']);
      await (await harness.open()).close();
      expect(await migrationNames()).toEqual(['CreateStoreTables1795305600000']);
      const pending = await inspector.driver.createSchemaBuilder().log();
      expect(pending.upQueries.map((query) => query.query)).toEqual([]);
    });

    it('writes only the new messages when a conversation grows, and rewrites from an edit on', async () => {
      for (const statement of harness.logMessageWritesSql()) await inspector.query(statement);
      const conversation = Array.from({ length: 6 }, (_, index) => userMessage(`message ${index}`));
      let thread: ThreadRecord = await store.createThread(threadRecord({ conversation }));
      expect(await takeMessageWrites(inspector, harness)).toHaveLength(6);

      thread = await store.saveThread({ ...thread, conversation: [...thread.conversation, userMessage('message 6')] });
      expect(await takeMessageWrites(inspector, harness)).toEqual(['insert 6']);

      thread = await store.saveThread({ ...thread, steps: 1 });
      expect(await takeMessageWrites(inspector, harness)).toEqual([]);

      const edited = [...thread.conversation];
      edited[4] = toolCallMessage('call-1', { path: 'edited.txt' });
      await store.saveThread({ ...thread, conversation: edited });
      expect(await takeMessageWrites(inspector, harness)).toEqual(['delete 4', 'delete 5', 'delete 6', 'insert 4', 'insert 5', 'insert 6']);
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
        expect(await store.recordResponse(text, { input: true, respondedAt: '2026-01-02T03:04:30.000Z' })).toEqual({ status: 'not_found' });
        expect(await store.failInteraction(text, 'timeout', 'late')).toBe(false);
        expect(await store.getGlobalVariables(text)).toEqual({});
      }
      expect(await store.listThreads()).toEqual([]);
      expect(await store.listInteractions()).toEqual([]);
      expect(await store.getGlobalVariables('workflow-a')).toEqual({});
    });

    it('refuses to work once closed', async () => {
      await store.close();
      await expect(store.getThread('thread-1')).rejects.toMatchObject({ code: 'INVALID_OPTIONS' });
      await expect(store.createThread(threadRecord())).rejects.toMatchObject({ code: 'INVALID_OPTIONS' });
    });
  });
}
