import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { auditDigest, verifyAuditChain } from '../../audit/audit-chain.js';
import {
  committed,
  createThread,
  interactionRecord,
  LATER,
  refused,
  save,
  threadRecord,
  toolApproval,
} from '../../testing/conformance/store-records.js';
import type { ICheckpointStore } from '../checkpoint-store.js';
import { describeConformance } from '../../testing/conformance/whole-conformance.js';
import { describeTypeormStoreBehaviour, sqliteStoreHarness } from '../__fixtures__/store-behaviour.js';
import { openSqliteStore, SQLITE_BUSY_TIMEOUT_MS } from './open-sqlite-store.js';
import { SqliteCheckpointStore } from './sqlite-checkpoint-store.js';
import { holdWriteLock } from '../__fixtures__/hold-write-lock.js';

const root = mkdtempSync(join(tmpdir(), 'interlock-raw-sqlite-store-'));
let databases = 0;
/** A fresh file in a directory that does not exist yet: the store must create it. */
const freshPath = () => join(root, `database-${(databases += 1)}`, 'nested', 'interlock.db');

afterAll(() => rmSync(root, { recursive: true, force: true }));

// Every conformance suite, as the in-memory store, PostgreSQL and the example custom store run it.
describeConformance('SQLite store (better-sqlite3)', () => openSqliteStore({ path: freshPath() }));
describeConformance('SQLite store (better-sqlite3, group commit)', () =>
  openSqliteStore({ path: freshPath(), groupCommit: true }),
);

describeTypeormStoreBehaviour(
  'SQLite store (better-sqlite3)',
  sqliteStoreHarness(freshPath, (file) => openSqliteStore({ path: file })),
);

/** What another connection (another process) sees: the committed thread ids. */
function committedThreadIds(file: string): string[] {
  const other = new Database(file, { readonly: true });
  try {
    return other.prepare('SELECT thread_id FROM threads ORDER BY thread_id').pluck().all() as string[];
  } finally {
    other.close();
  }
}

const create = (threadId: string) => ({ thread: { kind: 'create' as const, thread: threadRecord({ threadId }) } });

/** An audit entry for a unit, by `writer` (its thread). */
function draft(writer: string, index: number) {
  const entry = {
    threadId: writer,
    toolCallId: `call-${index}`,
    toolName: 'write_file',
    outcome: 'allow' as const,
    decidedBy: 'person',
    rule: 'ask',
    reason: 'looks fine',
    stage: 'execution' as const,
    originalArguments: { path: 'a.txt' },
    at: '2026-01-02T03:04:05.678Z',
  };
  return { entry, digest: auditDigest(entry) };
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

  it('commits a unit before it resolves: another connection sees all of it', async () => {
    const file = freshPath();
    const store = track(await openSqliteStore({ path: file }));
    await committed(store, {
      ...create('a'),
      interactions: [{ kind: 'open', interaction: interactionRecord({ threadId: 'a' }) }],
    });
    expect(committedThreadIds(file)).toEqual(['a']);
    const other = new Database(file, { readonly: true });
    expect(other.prepare('SELECT thread_id FROM interactions').pluck().all()).toEqual(['a']);
    other.close();
  });

  it('commits even while a test fakes the clock', async () => {
    const file = freshPath();
    const store = track(await openSqliteStore({ path: file }));
    vi.useFakeTimers();
    try {
      await committed(store, create('a'));
      expect(committedThreadIds(file)).toEqual(['a']);
    } finally {
      vi.useRealTimers();
    }
  });

  it('with groupCommit, commits the units of one event-loop turn together, each refused on its own', async () => {
    const file = freshPath();
    const store = track(await openSqliteStore({ path: file, groupCommit: true }));
    const units = [store.commit(create('a')), store.commit(create('b')), store.commit(create('a'))];
    expect(committedThreadIds(file)).toEqual([]);
    const [a, b, again] = await Promise.all(units);
    expect([a?.status, b?.status, again?.status]).toEqual(['committed', 'committed', 'conflict']);
    expect(committedThreadIds(file)).toEqual(['a', 'b']);
  });

  it('with groupCommit, commits a claim’s renewal at once, with the units of the group before it (issue 35)', async () => {
    const file = freshPath();
    const store = track(await openSqliteStore({ path: file, groupCommit: true }));
    await committed(store, {
      thread: { kind: 'create', thread: threadRecord({ threadId: 'held', lease: { owner: 'a', until: LATER } }) },
    });
    const leaseOf = () => {
      const other = new Database(file, { readonly: true });
      try {
        return other.prepare("SELECT lease_until FROM threads WHERE thread_id = 'held'").pluck().get();
      } finally {
        other.close();
      }
    };
    const grouped = store.commit(create('b'));
    const later = '2026-01-02T03:05:00.000Z';
    const renewal = store.commit({
      thread: { kind: 'renew', threadId: 'held', epoch: 1, owner: 'a', until: later, now: '2026-01-02T03:04:10.000Z' },
    });
    // On disk before the turn ends: its result comes back before a timer of the next turn runs.
    expect(leaseOf()).toBe(later);
    expect(committedThreadIds(file)).toEqual(['b', 'held']);
    expect((await renewal).status).toBe('committed');
    expect((await grouped).status).toBe('committed');
  });

  it('writes nothing of a refused unit and goes on with the next', async () => {
    const file = freshPath();
    const store = track(await openSqliteStore({ path: file }));
    await committed(store, {
      ...create('a'),
      toolCalls: [{ kind: 'start', call: toolApproval(), from: ['approved'], at: LATER }],
    });
    expect(
      await refused(store, {
        ...create('b'),
        toolCalls: [{ kind: 'start', call: toolApproval({ argumentsHash: 'other' }), from: ['approved'], at: LATER }],
      }),
    ).toMatchObject({ kind: 'tool-call' });
    await committed(store, create('c'));
    expect(committedThreadIds(file)).toEqual(['a', 'c']);
    expect((await store.listToolExecutions())[0]?.argumentsHash).toBe(toolApproval().argumentsHash);
  });

  it('refuses a unit whose commit fails with STORE_UNAVAILABLE, writes nothing of it, and goes on after', async () => {
    const file = freshPath();
    await (await openSqliteStore({ path: file })).close();
    const database = new Database(file);
    // A deferred foreign key is checked at COMMIT: a row that breaks it makes the commit fail.
    database.pragma('foreign_keys = ON');
    database.exec(
      'CREATE TABLE parents (id text PRIMARY KEY); ' +
        'CREATE TABLE guard (parent text REFERENCES parents (id) DEFERRABLE INITIALLY DEFERRED); ' +
        "CREATE TRIGGER orphan AFTER INSERT ON threads WHEN NEW.thread_id = 'lost' BEGIN INSERT INTO guard VALUES ('nobody'); END",
    );
    const store = track(new SqliteCheckpointStore(database));
    await expect(store.commit(create('lost'))).rejects.toMatchObject({
      code: 'STORE_UNAVAILABLE',
      message: expect.stringContaining('nothing of this write was stored'),
    });
    expect(committedThreadIds(file)).toEqual([]);
    await committed(store, create('later'));
    expect(committedThreadIds(file)).toEqual(['later']);
  });

  it('opens a throwaway database in memory', async () => {
    const store = track(await openSqliteStore({ path: ':memory:' }));
    await committed(store, create('thread-1'));
    expect((await store.getThread('thread-1'))?.version).toBe(1);
    expect(existsSync(':memory:')).toBe(false);
  });

  it('waits for another process that holds the write lock instead of failing', async () => {
    const file = freshPath();
    const store = track(await openSqliteStore({ path: file }));
    const created = await createThread(store);
    const lock = await holdWriteLock(file, 300);
    const saved = await committed(store, { thread: save(created, { steps: 1 }) });
    await lock.released;
    expect(saved.thread?.version).toBe(2);
    expect((await store.getThread('thread-1'))?.steps).toBe(1);
  });

  it('refuses a write with STORE_UNAVAILABLE when another process keeps the write lock past the busy timeout, and goes on after', async () => {
    const file = freshPath();
    await (await openSqliteStore({ path: file })).close();
    const store = track(new SqliteCheckpointStore(new Database(file), { busyTimeoutMs: 200 }));
    const lock = await holdWriteLock(file, 1_000);
    await expect(store.commit(create('thread-1'))).rejects.toMatchObject({
      code: 'STORE_UNAVAILABLE',
      message: expect.stringContaining('nothing was written'),
    });
    await lock.released;
    await committed(store, create('thread-1'));
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

  it("keeps each thread's audit chain whole when two connections on one file append at the same time, without stalling each other", async () => {
    const file = freshPath();
    const first = track(await openSqliteStore({ path: file }));
    const second = track(await openSqliteStore({ path: file }));
    const started = Date.now();
    const appends: Promise<unknown>[] = [];
    for (let index = 0; index < 20; index += 1) {
      appends.push(first.commit({ audit: [draft('shared', index), draft('first', index)] }));
      appends.push(second.commit({ audit: [draft('shared', index), draft('second', index)] }));
    }
    await Promise.all(appends);
    // Waiting inside SQLite for the other connection's lock would block the event loop
    // until the busy timeout (10 s): the other one could not commit meanwhile.
    expect(Date.now() - started).toBeLessThan(5_000);
    const entries = await first.listAuditEntries();
    expect(entries.map((entry) => entry.sequence)).toEqual(Array.from({ length: 80 }, (_, index) => index + 1));
    expect(entries.filter((entry) => entry.threadId === 'shared').map((entry) => entry.threadSequence)).toEqual(
      Array.from({ length: 40 }, (_, index) => index + 1),
    );
    expect(verifyAuditChain(entries, await second.readAuditEvidence())).toEqual({ valid: true, entries: 80 });
    expect(await second.listAuditEntries()).toEqual(entries);
  });
});
