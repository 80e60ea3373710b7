/**
 * (c) storage: what a finished thread leaves in the SQLite file. Opened on its own
 * connection after the engine closed, like a separate inspection tool would.
 */
import { fileSizes } from './common.js';
import { Database } from './sqlite-probe.js';

interface ColumnInfo {
  name: string;
}

export function storageStats(file: string, n: number): Record<string, unknown> {
  const before = fileSizes(file);
  const db = new Database(file);
  try {
    db.pragma('wal_checkpoint(TRUNCATE)');
    const after = fileSizes(file);
    const tables = (
      db
        .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
        .all() as { name: string }[]
    ).map((row) => row.name);
    const perTable: Record<string, unknown> = {};
    let rows = 0;
    let payload = 0;
    for (const table of tables) {
      const columns = db.pragma(`table_info("${table}")`) as ColumnInfo[];
      const count = (db.prepare(`SELECT COUNT(*) AS c FROM "${table}"`).get() as { c: number }).c;
      const sums = columns.map((column) => `COALESCE(SUM(LENGTH("${column.name}")), 0) AS "${column.name}"`).join(', ');
      const bytes = (db.prepare(`SELECT ${sums} FROM "${table}"`).get() ?? {}) as Record<string, number>;
      const total = Object.values(bytes).reduce((a, b) => a + b, 0);
      rows += count;
      payload += total;
      perTable[table] = {
        rows: count,
        rows_per_thread: Math.round((count / n) * 100) / 100,
        payload_bytes_per_thread: Math.round(total / n),
        column_bytes_per_thread: Object.fromEntries(
          Object.entries(bytes)
            .filter(([, v]) => v > 0)
            .sort((a, b) => b[1] - a[1])
            .map(([k, v]) => [k, Math.round(v / n)]),
        ),
      };
    }
    let pagesByObject: unknown = null;
    try {
      const pageRows = db
        .prepare('SELECT name, SUM(pgsize) AS bytes FROM dbstat GROUP BY name ORDER BY bytes DESC')
        .all() as { name: string; bytes: number }[];
      pagesByObject = Object.fromEntries(
        pageRows.map((row) => [row.name, { bytes: row.bytes, bytes_per_thread: Math.round(row.bytes / n) }]),
      );
    } catch {
      pagesByObject = 'dbstat is not compiled into this SQLite';
    }
    return {
      rows,
      rows_per_thread: Math.round((rows / n) * 100) / 100,
      payload_bytes_per_thread: Math.round(payload / n),
      tables: perTable,
      pages_by_table_and_index: pagesByObject,
      page_size: db.pragma('page_size', { simple: true }),
      page_count: db.pragma('page_count', { simple: true }),
      files_before_wal_checkpoint: before,
      files_after_wal_checkpoint: after,
      db_bytes: after.total,
      bytes_per_thread: Math.round((after.total ?? 0) / n),
    };
  } finally {
    db.close();
  }
}
