import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { SqliteConnection } from './sqlite-connection.js';

const root = mkdtempSync(join(tmpdir(), 'interlock-sqlite-connection-'));
let files = 0;
const open: Database.Database[] = [];
afterEach(() => {
  for (const database of open.splice(0)) database.close();
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** Two connections to one new WAL file with a table `t(x)`: the connection under test and another "process". */
function twoConnections(): { connection: SqliteConnection; mine: Database.Database; other: Database.Database } {
  const file = join(root, `db-${(files += 1)}.sqlite`);
  const mine = new Database(file);
  mine.pragma('journal_mode = WAL');
  mine.exec('CREATE TABLE t (x INTEGER)');
  const other = new Database(file);
  open.push(mine, other);
  return { connection: new SqliteConnection(mine, { busyTimeoutMs: 10_000, groupCommit: false }), mine, other };
}

describe('SqliteConnection reads (F21)', () => {
  it('reads all statements of one readTogether on one snapshot: a commit of another connection in between is not seen', () => {
    const { connection, mine, other } = twoConnections();
    const count = mine.prepare('SELECT count(*) FROM t').pluck();
    const seen = connection.readTogether(() => {
      const before = count.get();
      other.prepare('INSERT INTO t VALUES (1)').run(); // another process commits between the two statements
      return [before, count.get()];
    });
    expect(seen).toEqual([0, 0]);
    expect(connection.read(() => count.get())).toBe(1);
  });

  it('waits with the busy timeout on when a read finds the database busy, and turns it off again', () => {
    const { connection, mine } = twoConnections();
    const timeout = () => mine.pragma('busy_timeout', { simple: true });
    expect(timeout()).toBe(0); // idle: a write that finds the lock taken must not block the event loop
    const timeouts: unknown[] = [];
    const value = connection.readTogether(() => {
      timeouts.push(timeout());
      if (timeouts.length === 1) throw Object.assign(new Error('database is locked'), { code: 'SQLITE_BUSY' });
      return 'read';
    });
    expect(value).toBe('read');
    expect(timeouts).toEqual([0, 10_000]);
    expect(timeout()).toBe(0);
  });

  it('fails a read that stays busy with STORE_UNAVAILABLE', () => {
    const { connection } = twoConnections();
    expect(() =>
      connection.read(() => {
        throw Object.assign(new Error('database is locked'), { code: 'SQLITE_BUSY' });
      }),
    ).toThrow(expect.objectContaining({ code: 'STORE_UNAVAILABLE' }));
  });
});
