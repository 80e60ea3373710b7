import { createRequire } from 'node:module';
import { spawnProcessGroup } from '../../testing/process-group.js';

/** Holds a SQLite database's write lock from another process for `milliseconds`; resolves once it holds it. */
export function holdWriteLock(file: string, milliseconds: number): Promise<{ released: Promise<void> }> {
  const betterSqlite3 = createRequire(import.meta.url).resolve('better-sqlite3');
  const script = `
    const Database = require(${JSON.stringify(betterSqlite3)});
    const db = new Database(${JSON.stringify(file)});
    db.exec('BEGIN IMMEDIATE');
    process.stdout.write('locked\\n');
    setTimeout(() => { db.exec('COMMIT'); db.close(); }, ${milliseconds});
  `;
  const child = spawnProcessGroup(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
  const released = new Promise<void>((resolve, reject) => {
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`the lock holder exited with ${code}`))));
  });
  return new Promise((resolve, reject) => {
    child.stdout.once('data', () => resolve({ released }));
    child.once('error', reject);
  });
}
