import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { spawnProcessGroup } from '../../testing/process-group.js';

/*
 * A process that leaves SQLite statements open exits cleanly on the Node that runs it (F61).
 * On Node 24, better-sqlite3 12.11's statement finaliser aborted the process as it exited
 * (`Assertion failed: (env) != nullptr` in node::RemoveEnvironmentCleanupHook), which took a
 * test worker down after its tests had passed; 13's N-API build does not. The child opens the
 * database as the store does, in the main thread and in a worker thread, prepares and steps
 * statements, and lets Node tear everything down without closing anything.
 */

const betterSqlite3 = createRequire(import.meta.url).resolve('better-sqlite3');

const CHILD = `
const { Worker, isMainThread, workerData } = require('node:worker_threads');
const Database = require(${JSON.stringify(betterSqlite3)});
function use(path) {
  const database = new Database(path, { timeout: 10000 });
  database.pragma('journal_mode = WAL');
  database.function('interlock_link', { deterministic: true }, (value) => String(value));
  database.exec('CREATE TABLE IF NOT EXISTS t (id INTEGER PRIMARY KEY, v TEXT)');
  const insert = database.prepare('INSERT INTO t (v) VALUES (?)');
  for (let i = 0; i < 100; i += 1) insert.run('row ' + i);
  const rows = database.prepare('SELECT interlock_link(v) AS v FROM t');
  return rows.iterate().next().value.v;
}
if (isMainThread) {
  const path = process.argv[2];
  const first = use(path);
  const worker = new Worker(__filename, { workerData: path });
  worker.on('message', (value) => process.stdout.write(first + '|' + value + '\\n'));
} else {
  require('node:worker_threads').parentPort.postMessage(use(workerData));
}
`;

async function runChild(
  dir: string,
): Promise<{ code: number | null; signal: string | null; out: string; err: string }> {
  const script = join(dir, 'child.cjs');
  await writeFile(script, CHILD);
  return new Promise((resolve, reject) => {
    const child = spawnProcessGroup(process.execPath, [script, join(dir, 'exit.db')], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    child.once('error', reject);
    child.once('exit', (code, signal) => resolve({ code, signal, out, err }));
  });
}

describe('better-sqlite3 at process exit', () => {
  let dir: string | undefined;
  afterEach(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it(`exits cleanly with statements left open in the main and a worker thread, on Node ${process.versions.node} (F61)`, async () => {
    dir = await mkdtemp(join(tmpdir(), 'interlock-sqlite-exit-'));
    const result = await runChild(dir);
    expect(result.err).not.toMatch(/Assertion failed|RemoveEnvironmentCleanupHook/);
    expect({ code: result.code, signal: result.signal }).toEqual({ code: 0, signal: null });
    expect(result.out.trim()).toBe('row 0|row 0');
  });
});
