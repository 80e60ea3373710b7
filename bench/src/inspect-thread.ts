/**
 * `inspect`: one thread on a fresh SQLite file; every row it left after the suspend and
 * after the resume, with the bytes of each column (written to results/interlock-inspect.json).
 */
import fs from 'node:fs';
import path from 'node:path';
import { emit, rmDb } from './common.js';
import type { RunOptions } from './measure-round-trip.js';
import { approveThread, createEngine, durabilityOf, startThread, storeOptionsOf } from './scenario.js';
import { Database } from './sqlite-probe.js';

type Row = Record<string, unknown>;

function snapshot(file: string): Record<string, Row[]> {
  const db = new Database(file);
  try {
    const tables = (
      db
        .prepare(
          "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name <> 'interlock_migrations' ORDER BY name",
        )
        .all() as { name: string }[]
    ).map((row) => row.name);
    return Object.fromEntries(tables.map((table) => [table, db.prepare(`SELECT * FROM "${table}"`).all() as Row[]]));
  } finally {
    db.close();
  }
}

/** Bytes of an SQLite cell: NULL, INTEGER or REAL (number or bigint), TEXT, BLOB. */
const bytesOf = (value: unknown) =>
  typeof value === 'string'
    ? Buffer.byteLength(value)
    : Buffer.isBuffer(value)
      ? value.length
      : typeof value === 'number' || typeof value === 'bigint'
        ? String(value).length
        : 0;
const shorten = (value: unknown) => {
  // JSON.stringify(undefined) is undefined, whatever its declared type says.
  const text = typeof value === 'string' ? value : (JSON.stringify(value) as string | undefined);
  return text !== undefined && text.length > 240 ? `${text.slice(0, 240)}…(${text.length} chars)` : text;
};

function describe(tables: Record<string, Row[]>) {
  return Object.fromEntries(
    Object.entries(tables).map(([table, rows]) => [
      table,
      rows.map((row) => ({
        bytes: Object.values(row).reduce<number>((a, v) => a + bytesOf(v), 0),
        columns: Object.fromEntries(
          Object.entries(row).map(([column, value]) => [column, { bytes: bytesOf(value), value: shorten(value) }]),
        ),
      })),
    ]),
  );
}

export async function modeInspect(options: RunOptions): Promise<boolean> {
  const file = path.join(options.resultsDir, 'interlock-inspect.db');
  rmDb(file);
  const engine = await createEngine('sqlite', file);
  await startThread(engine, 0);
  const afterSuspend = snapshot(file);
  await approveThread(engine, 0);
  const afterResume = snapshot(file);
  await engine.interlock.close();
  rmDb(file);
  const count = (tables: Record<string, Row[]>) =>
    Object.fromEntries(Object.entries(tables).map(([t, rows]) => [t, rows.length]));
  const total = (tables: Record<string, Row[]>) =>
    Object.fromEntries(
      Object.entries(tables).map(([t, rows]) => [
        t,
        rows.reduce((a, row) => a + Object.values(row).reduce<number>((b, v) => b + bytesOf(v), 0), 0),
      ]),
    );
  emit({
    kind: 'inspect',
    engine: 'interlock',
    variant: 'llm-tool-approval',
    saver: 'sqlite',
    durability: durabilityOf('sqlite'),
    store_options: storeOptionsOf('sqlite'),
    rows_after_suspend: count(afterSuspend),
    rows_after_resume: count(afterResume),
    payload_bytes_after_suspend: total(afterSuspend),
    payload_bytes_after_resume: total(afterResume),
  });
  fs.writeFileSync(
    path.join(options.resultsDir, 'interlock-inspect.json'),
    JSON.stringify({ after_suspend: describe(afterSuspend), after_resume: describe(afterResume) }, null, 2) + '\n',
  );
  return true;
}
