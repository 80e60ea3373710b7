import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { threadRecord } from '../../testing/conformance/store-records.js';
import { describeStoreConformance } from '../../testing/conformance/store-conformance.js';
import { describeAuditAndMemoryConformance } from '../../testing/conformance/audit-conformance.js';
import { describeLeaseConformance } from '../../testing/conformance/claim-conformance.js';
import { createTypeormStore } from './create-typeorm-store.js';
import { MIGRATION_NAMES, describeTypeormStoreBehaviour, sqliteStoreHarness } from './typeorm-store-behaviour.js';
import { holdWriteLock } from '../__fixtures__/hold-write-lock.js';

const root = mkdtempSync(join(tmpdir(), 'interlock-sqlite-store-'));
let databases = 0;
/** A fresh file in a directory that does not exist yet: the store must create it. */
const freshPath = () => join(root, `database-${(databases += 1)}`, 'nested', 'interlock.db');

afterAll(() => rmSync(root, { recursive: true, force: true }));

describeStoreConformance('SQLite store', () => createTypeormStore({ type: 'sqlite', path: freshPath() }));
describeAuditAndMemoryConformance('SQLite store', () => createTypeormStore({ type: 'sqlite', path: freshPath() }));
describeLeaseConformance('SQLite store', () => createTypeormStore({ type: 'sqlite', path: freshPath() }));

describeTypeormStoreBehaviour(
  'SQLite store',
  sqliteStoreHarness(freshPath, (file) => createTypeormStore({ type: 'sqlite', path: file })),
);

describe('SQLite store file', () => {
  it('creates the parent directory, uses WAL and records its migrations', async () => {
    const file = freshPath();
    const store = await createTypeormStore({ type: 'sqlite', path: file });
    await store.createThread(threadRecord());
    await store.close();
    expect(existsSync(file)).toBe(true);
    const database = new Database(file, { readonly: true });
    try {
      expect(database.pragma('journal_mode', { simple: true })).toBe('wal');
      const tables = database
        .prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
        .pluck()
        .all();
      expect(tables).toEqual(
        expect.arrayContaining([
          'global_variables',
          'interactions',
          'interlock_migrations',
          'messages',
          'threads',
          'tool_executions',
          'workflow_definitions',
        ]),
      );
      expect(database.prepare('SELECT name FROM interlock_migrations ORDER BY id').pluck().all()).toEqual(
        MIGRATION_NAMES,
      );
    } finally {
      database.close();
    }
  });

  it('opens a throwaway database in memory', async () => {
    const store = await createTypeormStore({ type: 'sqlite', path: ':memory:' });
    await store.createThread(threadRecord());
    expect((await store.getThread('thread-1'))?.version).toBe(1);
    await store.close();
    expect(existsSync(':memory:')).toBe(false);
  });

  it('says which file it cannot open', async () => {
    const blocked = join(root, 'a-file');
    writeFileSync(blocked, '');
    await expect(createTypeormStore({ type: 'sqlite', path: join(blocked, 'interlock.db') })).rejects.toMatchObject({
      code: 'INVALID_OPTIONS',
      message: expect.stringContaining(`cannot open the SQLite store at ${join(blocked, 'interlock.db')}`),
    });
  });

  it('waits for another process that holds the write lock instead of failing', async () => {
    const file = freshPath();
    const store = await createTypeormStore({ type: 'sqlite', path: file });
    try {
      const created = await store.createThread(threadRecord());
      const lock = await holdWriteLock(file, 300);
      const saved = await store.saveThread({ ...created, steps: 1 });
      await lock.released;
      expect(saved.version).toBe(2);
      expect((await store.getThread('thread-1'))?.steps).toBe(1);
    } finally {
      await store.close();
    }
  });
});
