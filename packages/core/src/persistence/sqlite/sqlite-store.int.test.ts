import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { setImmediate as realSetImmediate } from 'node:timers';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import type { AuditEntry } from '../../audit/audit-log.js';
import { errorCodeOf, threadRecord, toolApproval, userMessage } from '../../testing/conformance/store-records.js';
import type { ICheckpointStore } from '../checkpoint-store.js';
import { describeStoreConformance } from '../../testing/conformance/store-conformance.js';
import { describeAuditAndMemoryConformance } from '../../testing/conformance/audit-conformance.js';
import { describeLeaseConformance } from '../../testing/conformance/claim-conformance.js';
import { describeTypeormStoreBehaviour, sqliteStoreHarness } from '../__fixtures__/store-behaviour.js';
import { openSqliteStore, SQLITE_BUSY_TIMEOUT_MS } from './open-sqlite-store.js';
import { SqliteCheckpointStore } from './sqlite-checkpoint-store.js';
import { holdWriteLock } from '../__fixtures__/hold-write-lock.js';

const root = mkdtempSync(join(tmpdir(), 'interlock-raw-sqlite-store-'));
let databases = 0;
/** A fresh file in a directory that does not exist yet: the store must create it. */
const freshPath = () => join(root, `database-${(databases += 1)}`, 'nested', 'interlock.db');

afterAll(() => rmSync(root, { recursive: true, force: true }));

describeStoreConformance('SQLite store (better-sqlite3)', () => openSqliteStore({ path: freshPath() }));
describeAuditAndMemoryConformance('SQLite store (better-sqlite3)', () => openSqliteStore({ path: freshPath() }));
describeLeaseConformance('SQLite store (better-sqlite3)', () => openSqliteStore({ path: freshPath() }));
describeStoreConformance('SQLite store (better-sqlite3, group commit)', () =>
  openSqliteStore({ path: freshPath(), groupCommit: true }),
);

describeTypeormStoreBehaviour(
  'SQLite store (better-sqlite3)',
  sqliteStoreHarness(freshPath, (file) => openSqliteStore({ path: file })),
);

/** Resolves after the commit the store scheduled for the end of this event-loop turn. */
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** What another connection (another process) sees: the committed thread ids. */
function committedThreadIds(file: string): string[] {
  const other = new Database(file, { readonly: true });
  try {
    return other.prepare('SELECT thread_id FROM threads ORDER BY thread_id').pluck().all() as string[];
  } finally {
    other.close();
  }
}

/** The version another connection sees committed for a thread. */
function committedVersion(file: string, threadId: string): number | undefined {
  const other = new Database(file, { readonly: true });
  try {
    return other.prepare('SELECT version FROM threads WHERE thread_id = ?').pluck().get(threadId) as number | undefined;
  } finally {
    other.close();
  }
}

/** An audit entry sealed on `previous` by `writer`, hashed so the chain can be verified. */
function sealed(previous: { sequence: number; hash: string } | undefined, writer: string): AuditEntry {
  const sequence = (previous?.sequence ?? 0) + 1;
  return {
    threadId: writer,
    toolCallId: `call-${sequence}`,
    toolName: 'write_file',
    outcome: 'allow',
    decidedBy: 'person',
    rule: 'ask',
    reason: 'looks fine',
    stage: 'execution',
    originalArguments: { path: 'a.txt' },
    at: '2026-01-02T03:04:05.678Z',
    previousHash: previous?.hash ?? 'genesis',
    hash: `${writer}-${sequence}`,
    sequence,
  };
}

describe('SQLite store (better-sqlite3): commits', () => {
  const open: ICheckpointStore[] = [];
  const track = <T extends ICheckpointStore>(store: T): T => {
    open.push(store);
    return store;
  };
  afterEach(async () => {
    await Promise.allSettled(open.splice(0).map((store) => store.close()));
  });

  it('shows a write to its own reads at once and to another connection after the commit at the end of the turn', async () => {
    const file = freshPath();
    const store = track(await openSqliteStore({ path: file }));
    await store.createThread(threadRecord());
    expect((await store.getThread('thread-1'))?.version).toBe(1);
    expect(await store.listThreads()).toHaveLength(1);
    expect(committedThreadIds(file)).toEqual([]);
    await nextTurn();
    expect(committedThreadIds(file)).toEqual(['thread-1']);
  });

  it('commits at the end of the turn even while a test fakes the clock', async () => {
    const file = freshPath();
    const store = track(await openSqliteStore({ path: file }));
    vi.useFakeTimers();
    try {
      await store.createThread(threadRecord());
      await new Promise<void>((resolve) => realSetImmediate(resolve));
      expect(committedThreadIds(file)).toEqual(['thread-1']);
    } finally {
      vi.useRealTimers();
    }
  });

  it("commits at once on flush('now'), and on flush('soon') at the end of the turn", async () => {
    const file = freshPath();
    const store = track(await openSqliteStore({ path: file }));
    await store.createThread(threadRecord({ threadId: 'a' }));
    await store.flush();
    expect(committedThreadIds(file)).toEqual(['a']);

    const b = await store.createThread(threadRecord({ threadId: 'b' }));
    const flushed = store.flush('soon');
    await store.saveThread(b);
    expect(committedThreadIds(file)).toEqual(['a']);
    await flushed;
    expect(committedThreadIds(file)).toEqual(['a', 'b']);
    expect(committedVersion(file, 'b')).toBe(2);
  });

  it("without groupCommit, keeps each thread's writes in transactions of their own: another thread's write commits the open one first", async () => {
    const file = freshPath();
    const store = track(await openSqliteStore({ path: file }));
    await store.createThread(threadRecord({ threadId: 'a' }));
    await store.createThread(threadRecord({ threadId: 'b' }));
    expect(committedThreadIds(file)).toEqual(['a']);
    await store.createThread(threadRecord({ threadId: 'c' }));
    expect(committedThreadIds(file)).toEqual(['a', 'b']);
    await nextTurn();
    expect(committedThreadIds(file)).toEqual(['a', 'b', 'c']);
  });

  it("with groupCommit, shares one transaction among threads, and lets flush('now') wait for the shared commit at the end of the turn", async () => {
    const file = freshPath();
    const store = track(await openSqliteStore({ path: file, groupCommit: true }));
    await store.createThread(threadRecord({ threadId: 'a' }));
    const first = store.flush('now');
    await store.createThread(threadRecord({ threadId: 'b' }));
    const second = store.flush('now');
    expect(committedThreadIds(file)).toEqual([]);
    await Promise.all([first, second]);
    expect(committedThreadIds(file)).toEqual(['a', 'b']);
  });

  it('commits the pending writes when it closes', async () => {
    const file = freshPath();
    const store = await openSqliteStore({ path: file });
    await store.createThread(threadRecord());
    await store.close();
    expect(committedThreadIds(file)).toEqual(['thread-1']);
    await expect(store.getThread('thread-1')).rejects.toMatchObject({ code: 'INVALID_OPTIONS' });
  });

  it('keeps the other writes of the open transaction when one write is refused', async () => {
    const file = freshPath();
    const store = track(await openSqliteStore({ path: file }));
    await store.createThread(threadRecord({ threadId: 'a', conversation: [userMessage('hello')] }));
    expect(
      await errorCodeOf(store.createThread(threadRecord({ threadId: 'a', conversation: [userMessage('other')] }))),
    ).toBe('STORE_CONFLICT');
    await store.recordToolApproval(toolApproval());
    expect(await errorCodeOf(store.recordToolApproval(toolApproval({ argumentsHash: 'other' })))).toBe(
      'STORE_CONFLICT',
    );
    await store.createThread(threadRecord({ threadId: 'b' }));
    await store.flush();
    expect(committedThreadIds(file)).toEqual(['a', 'b']);
    expect((await store.getThread('a'))?.conversation).toEqual([userMessage('hello')]);
    expect((await store.getToolExecution('thread-1', 'call-1'))?.argumentsHash).toBe(toolApproval().argumentsHash);
  });

  it('refuses every call with STORE_UNAVAILABLE once a commit failed, and says the uncommitted writes were lost', async () => {
    const file = freshPath();
    await (await openSqliteStore({ path: file })).close();
    const database = new Database(file);
    // The connection checks foreign keys at COMMIT: an orphan message makes the commit fail.
    database.pragma('defer_foreign_keys = ON');
    const store = track(new SqliteCheckpointStore(database));
    await store.createThread(threadRecord({ threadId: 'lost' }));
    database
      .prepare("INSERT INTO messages (thread_id, position, message, digest) VALUES ('no-such-thread', 0, '{}', 'x')")
      .run();
    const flushed = store.flush('soon');
    const failure = {
      code: 'STORE_UNAVAILABLE',
      message: expect.stringContaining('a commit failed; the writes since the last commit were lost: reopen the store'),
    };
    await expect(flushed).rejects.toMatchObject(failure);
    await expect(store.getThread('lost')).rejects.toMatchObject(failure);
    await expect(store.createThread(threadRecord({ threadId: 'later' }))).rejects.toMatchObject(failure);
    await expect(store.flush()).rejects.toMatchObject(failure);
    expect(committedThreadIds(file)).toEqual([]);
  });

  it('opens a throwaway database in memory', async () => {
    const store = track(await openSqliteStore({ path: ':memory:' }));
    await store.createThread(threadRecord());
    await store.flush();
    expect((await store.getThread('thread-1'))?.version).toBe(1);
    expect(existsSync(':memory:')).toBe(false);
  });

  it('waits for another process that holds the write lock instead of failing', async () => {
    const file = freshPath();
    const store = track(await openSqliteStore({ path: file }));
    const created = await store.createThread(threadRecord());
    await store.flush();
    const lock = await holdWriteLock(file, 300);
    const saved = await store.saveThread({ ...created, steps: 1 });
    await lock.released;
    expect(saved.version).toBe(2);
    await store.flush();
    expect((await store.getThread('thread-1'))?.steps).toBe(1);
  });

  it('refuses a write with STORE_UNAVAILABLE when another process keeps the write lock past the busy timeout, and goes on after', async () => {
    const file = freshPath();
    await (await openSqliteStore({ path: file })).close();
    const store = track(new SqliteCheckpointStore(new Database(file), { busyTimeoutMs: 200 }));
    const lock = await holdWriteLock(file, 1_000);
    await expect(store.createThread(threadRecord())).rejects.toMatchObject({
      code: 'STORE_UNAVAILABLE',
      message: expect.stringContaining('nothing was written'),
    });
    await lock.released;
    await store.createThread(threadRecord());
    await store.flush();
    expect(committedThreadIds(file)).toEqual(['thread-1']);
  });

  it('refuses to open with STORE_UNAVAILABLE, not as bad options, while another process keeps the write lock past the busy timeout', async () => {
    const file = freshPath();
    await (await openSqliteStore({ path: file })).close();
    // Opening migrates under the write lock, waiting SQLite's busy timeout (10 s) for it.
    const lock = await holdWriteLock(file, SQLITE_BUSY_TIMEOUT_MS + 1_500);
    await expect(openSqliteStore({ path: file })).rejects.toMatchObject({
      code: 'STORE_UNAVAILABLE',
      message: expect.stringContaining('try again'),
    });
    await lock.released;
    await (await openSqliteStore({ path: file })).close();
  }, 30_000);

  it('says which file it cannot open', async () => {
    const blocked = join(root, 'a-file');
    writeFileSync(blocked, '');
    await expect(openSqliteStore({ path: join(blocked, 'interlock.db') })).rejects.toMatchObject({
      code: 'INVALID_OPTIONS',
      message: expect.stringContaining(`cannot open the SQLite store at ${join(blocked, 'interlock.db')}`),
    });
  });

  it('keeps one audit chain when two connections on one file append at the same time, without stalling each other', async () => {
    const file = freshPath();
    const first = track(await openSqliteStore({ path: file }));
    const second = track(await openSqliteStore({ path: file }));
    const started = Date.now();
    const appends: Promise<AuditEntry>[] = [];
    for (let index = 0; index < 20; index += 1) {
      appends.push(first.appendAuditEntry((previous) => sealed(previous, 'first')));
      appends.push(second.appendAuditEntry((previous) => sealed(previous, 'second')));
    }
    await Promise.all(appends);
    await Promise.all([first.flush(), second.flush()]);
    // Waiting inside SQLite for the other connection's lock would block the event loop
    // until the busy timeout (10 s): the other one could not commit meanwhile.
    expect(Date.now() - started).toBeLessThan(5_000);
    const entries = await first.listAuditEntries();
    expect(entries.map((entry) => entry.sequence)).toEqual(Array.from({ length: 40 }, (_, index) => index + 1));
    expect(entries.filter((entry) => entry.threadId === 'second')).toHaveLength(20);
    for (const [index, entry] of entries.entries())
      expect(entry.previousHash).toBe(index === 0 ? 'genesis' : entries[index - 1]?.hash);
    expect(await second.listAuditEntries()).toEqual(entries);
  });
});
