#!/usr/bin/env node
/**
 * Issue 38: which pages each SQLite commit of a round trip writes, read from the WAL.
 *
 *   cd bench && node --expose-gc scripts/wal-pages.mjs [--n 30] [--warmup 200] [--synchronous normal] [--ids uuid] [--out /tmp/walpages]
 *
 * Runs `warmup` round trips (the scenario's: startThread, then approveThread, one at a time),
 * checkpoints the WAL into the file (TRUNCATE, from a second connection), runs `n` more while
 * a reader holds its snapshot (so no checkpoint starts the WAL over), and reads the WAL's frames: each frame is one page a commit wrote; a commit ends with a frame
 * that carries the database's size. Each page is named by `dbstat` (the table or index it
 * belongs to) on a copy of the file with its WAL. Prints frames per round trip, per commit
 * of a round trip (the suspend, the call's start, its end), and per table or index.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const dist = path.resolve(here, '..', 'dist');
const { createEngine, startThread, approveThread, requireFromCore, WORKFLOW_ID } = await import(
  path.join(dist, 'scenario.js')
);
const { rmDb, threadCtx } = await import(path.join(dist, 'common.js'));
const Database = requireFromCore('better-sqlite3');

const flags = {};
const argv = process.argv.slice(2);
for (let i = 0; i < argv.length; i += 2) flags[argv[i].replace(/^--/, '')] = argv[i + 1];
const n = Number(flags.n ?? 30);
const warmup = Number(flags.warmup ?? 200);
const synchronous = flags.synchronous === 'full' ? 'full' : 'normal';
const out = path.resolve(flags.out ?? '/tmp/walpages');
// `--ids uuid`: threads get random ids, as `interlock.start` gives them by default (the scenario's are t-<i>).
const uuids = flags.ids === 'uuid';
fs.mkdirSync(out, { recursive: true });
const file = path.join(out, `wal-pages-${process.pid}.db`);

rmDb(file);
const engine = await createEngine('sqlite', file, { synchronous });
/** The scenario's round trip, halves apart; with --ids uuid, under a random thread id. */
async function start(i) {
  if (!uuids) return startThread(engine, i);
  return threadCtx.run({ threadIndex: i }, async () => {
    const handle = await engine.interlock.start(WORKFLOW_ID, {});
    const outcome = await handle.done();
    if (outcome.status !== 'waiting') throw new Error(`thread ${i} did not wait: ${JSON.stringify(outcome)}`);
    return { threadId: handle.threadId, interactionId: outcome.pendingInteractionIds[0] };
  });
}
async function approve(i, started) {
  if (!uuids) return approveThread(engine, i);
  return threadCtx.run({ threadIndex: i }, async () => {
    const result = await engine.interlock.respond(started.interactionId, { approved: true });
    const outcome = await result.thread?.done();
    if (outcome?.status !== 'completed') throw new Error(`thread ${i} did not finish: ${JSON.stringify(outcome)}`);
  });
}
for (let i = 0; i < warmup; i++) await approve(i, await start(i));
{
  const db = new Database(file);
  const [result] = db.pragma('wal_checkpoint(TRUNCATE)');
  db.close();
  if (result.busy !== 0) throw new Error(`the checkpoint was blocked: ${JSON.stringify(result)}`);
}
// A reader that holds its snapshot from before the measured round trips: no checkpoint can
// then move the WAL's frames into the file and start the WAL over, however many there are.
const reader = new Database(file);
reader.exec('BEGIN');
reader.prepare('SELECT COUNT(*) FROM sqlite_master').get();
// Where each round trip's frames start: the WAL's size before it, and between its two halves.
const walFile = `${file}-wal`;
const walSize = () => (fs.existsSync(walFile) ? fs.statSync(walFile).size : 0);
const marks = [];
for (let i = warmup; i < warmup + n; i++) {
  const before = walSize();
  const started = await start(i);
  const suspended = walSize();
  await approve(i, started);
  marks.push({ start: before, suspended, end: walSize() });
}
const wal = fs.readFileSync(walFile);
reader.exec('COMMIT');
reader.close();
await engine.interlock.close();
if (marks.some(({ start, suspended, end }) => !(start <= suspended && suspended <= end)))
  throw new Error('the WAL started over during the measured round trips: nothing to read');

const pageSize = wal.readUInt32BE(8);
const frameSize = 24 + pageSize;
/** The frames as [{ offset, page, commit }] in WAL order (offset: the frame's first byte). */
const frames = [];
for (let offset = 32; offset + frameSize <= wal.length; offset += frameSize)
  frames.push({ offset, page: wal.readUInt32BE(offset), commit: wal.readUInt32BE(offset + 4) !== 0 });

// Name the pages: dbstat on a copy of the file and its WAL, taken before the close checkpointed them.
const copy = path.join(out, `wal-pages-${process.pid}-copy.db`);
rmDb(copy);
fs.copyFileSync(file, copy);
fs.writeFileSync(`${copy}-wal`, wal);
const names = new Map();
{
  const db = new Database(copy);
  for (const row of db.prepare('SELECT pageno, name, pagetype FROM dbstat').all())
    names.set(row.pageno, row.pagetype === 'overflow' ? `${row.name} (overflow)` : row.name);
  db.close();
}
rmDb(copy);
rmDb(file);
const nameOf = (page) => (page === 1 ? 'header (page 1)' : (names.get(page) ?? 'free or moved'));

/** The commits between two WAL offsets, each a list of page names. */
function commitsBetween(from, to) {
  const commits = [];
  let current = [];
  for (const frame of frames) {
    if (frame.offset < from || frame.offset >= to) continue;
    current.push(nameOf(frame.page));
    if (frame.commit) {
      commits.push(current);
      current = [];
    }
  }
  if (current.length > 0) commits.push(current);
  return commits;
}
const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
};
const byName = {};
const perRoundTrip = [];
const commitsPerRoundTrip = [];
const shapes = { suspend: [], start: [], end: [] };
const objectsByCommit = { suspend: {}, start: {}, end: {} };
const count = (into, names) => {
  for (const name of names) into[name] = (into[name] ?? 0) + 1;
};
for (const { start, suspended, end } of marks) {
  const suspend = commitsBetween(start, suspended);
  const resume = commitsBetween(suspended, end);
  const all = [...suspend, ...resume];
  commitsPerRoundTrip.push(all.length);
  perRoundTrip.push(all.flat().length);
  for (const name of all.flat()) byName[name] = (byName[name] ?? 0) + 1;
  shapes.suspend.push(suspend.flat().length);
  shapes.start.push(resume[0]?.length ?? 0);
  shapes.end.push(resume.slice(1).flat().length);
  count(objectsByCommit.suspend, suspend.flat());
  count(objectsByCommit.start, resume[0] ?? []);
  count(objectsByCommit.end, resume.slice(1).flat());
}
console.log(
  JSON.stringify(
    {
      synchronous,
      ids: uuids ? 'uuid' : 't-<i>',
      warmup,
      n,
      page_size: pageSize,
      frames_per_round_trip: {
        median: median(perRoundTrip),
        min: Math.min(...perRoundTrip),
        max: Math.max(...perRoundTrip),
      },
      commits_per_round_trip: {
        median: median(commitsPerRoundTrip),
        min: Math.min(...commitsPerRoundTrip),
        max: Math.max(...commitsPerRoundTrip),
      },
      frames_by_commit: Object.fromEntries(
        Object.entries(shapes).map(([name, values]) => [
          name,
          { median: median(values), min: Math.min(...values), max: Math.max(...values) },
        ]),
      ),
      frames_by_commit_and_object: Object.fromEntries(
        Object.entries(objectsByCommit).map(([commit, counts]) => [
          commit,
          Object.fromEntries(
            Object.entries(counts)
              .sort((a, b) => b[1] - a[1])
              .map(([name, c]) => [name, Math.round((c / n) * 100) / 100]),
          ),
        ]),
      ),
      frames_per_round_trip_by_object: Object.fromEntries(
        Object.entries(byName)
          .sort((a, b) => b[1] - a[1])
          .map(([name, count]) => [name, Math.round((count / n) * 100) / 100]),
      ),
    },
    null,
    1,
  ),
);
