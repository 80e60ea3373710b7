/**
 * The scenario's measurements (a)–(e), each run in its own process by `main.ts`:
 * `seq` (a, d), `fanout` (b, c), `durable` (e, cross-process), plus `scale` (many threads
 * suspended at once) and `commits` (what the store commits per round trip).
 */
import fs from 'node:fs';
import path from 'node:path';
import {
  emit,
  fileSizes,
  FINAL_TEXT,
  mb,
  now,
  resetToolEffects,
  rmDb,
  rssSampler,
  summarize,
  toolArgsFor,
  toolEffects,
} from './common.js';
import { approveThread, createEngine, startThread, threadIdFor, verifyAll, type Engine, type StoreKind } from './scenario.js';
import { Database, installSqliteProbe, labelStoreMethods, synchronousOf, type SqliteProbe } from './sqlite-probe.js';
import { storageStats } from './storage-stats.js';
import { versions } from './versions.js';

export interface RunOptions {
  n: number;
  warmup: number;
  store: StoreKind;
  resultsDir: string;
  db?: string;
  phase?: string;
  scaleSample?: number;
  batch?: number;
  /** `full`: set PRAGMA synchronous = FULL on the store's connection (a labelled row). */
  synchronous?: string;
}

const label = (store: StoreKind) => ({ engine: 'interlock', variant: 'llm-tool-approval', saver: store });

function dbFile(options: RunOptions, name: string): string {
  return path.resolve(options.db ?? path.join(options.resultsDir, `interlock-${name}.db`));
}

async function openFresh(kind: StoreKind, file: string): Promise<Engine> {
  if (kind === 'sqlite') rmDb(file);
  return createEngine(kind, file);
}

/** WARMUP full round trips on a throw-away store of the same kind, excluded from every figure. */
async function warmup(options: RunOptions, name: string): Promise<void> {
  if (options.warmup <= 0) return;
  const file = dbFile(options, name).replace(/\.db$/, '') + '-warmup.db';
  const engine = await openFresh(options.store, file);
  for (let i = 0; i < options.warmup; i++) {
    await startThread(engine, 1_000_000 + i);
    await approveThread(engine, 1_000_000 + i);
  }
  await engine.interlock.close();
  if (options.store === 'sqlite') rmDb(file);
  resetToolEffects();
}

function correctness(section: string, store: StoreKind, n: number, finals: unknown[], verified: { ok: number } | null): boolean {
  const perThreadOk = toolEffects.perThread.size === n && [...toolEffects.perThread.values()].every((c) => c === 1);
  const allDone = finals.length === n && finals.every((f) => f === FINAL_TEXT);
  const record = {
    kind: 'correctness',
    section,
    ...label(store),
    n,
    tool_executions: toolEffects.count,
    tool_count_equals_threads: toolEffects.count === n,
    each_thread_executed_once: perThreadOk,
    all_final_done: allDone,
    verified_from_store: verified,
    pass: false,
  };
  record.pass = record.tool_count_equals_threads && perThreadOk && allDone && (verified == null || verified.ok === n);
  emit(record);
  return record.pass;
}

/** (a) and (d): N threads one after another. */
export async function modeSeq(options: RunOptions): Promise<boolean> {
  const { n } = options;
  const forceFull = options.store === 'sqlite' && options.synchronous === 'full';
  const probe = options.store === 'sqlite' ? installSqliteProbe(false) : undefined;
  await warmup(options, 'seq');
  const file = dbFile(options, `seq-${options.store}${forceFull ? '-full' : ''}`);
  const engine = await openFresh(options.store, file);
  if (probe && forceFull) for (const connection of probe.connections) if (connection.open) connection.pragma('synchronous = FULL');
  const synchronous = probe ? synchronousOf(probe).filter((value) => value !== 'closed') : null;
  const suspend = new Array<number>(n);
  const resume = new Array<number>(n);
  const finals = new Array<unknown>(n);
  const rss = rssSampler(20);
  const t0 = now();
  for (let i = 0; i < n; i++) {
    const a = now();
    await startThread(engine, i);
    const b = now();
    finals[i] = await approveThread(engine, i);
    const c = now();
    suspend[i] = b - a;
    resume[i] = c - b;
  }
  const total = now() - t0;
  const peak = rss.stop();
  emit({
    kind: 'sequential',
    ...label(options.store),
    ...(forceFull ? { durability: 'synchronous=FULL' } : {}),
    synchronous_pragma: synchronous,
    n,
    warmup: options.warmup,
    total_ms: Math.round(total),
    threads_per_sec: Math.round((n / total) * 1000 * 10) / 10,
    suspend: summarize(suspend),
    resume: summarize(resume),
    round_trip: summarize(suspend.map((s, i) => s + (resume[i] ?? 0))),
    peak_rss_mb: mb(peak),
    versions: versions(),
  });
  const verified = await verifyAll(engine, n);
  const pass = correctness('sequential', options.store, n, finals, verified);
  await engine.interlock.close();
  if (options.store === 'sqlite') rmDb(file);
  return pass;
}

/** (b) and (c): N threads started at once, confirmed parked from the store, then all approved at once. */
export async function modeFanout(options: RunOptions): Promise<boolean> {
  const { n } = options;
  await warmup(options, 'fanout');
  const file = dbFile(options, 'fanout');
  const engine = await openFresh(options.store, file);
  globalThis.gc?.();
  const rssBase = process.memoryUsage.rss();
  const heapBase = process.memoryUsage().heapUsed;
  const rss = rssSampler(5);
  const ids = Array.from({ length: n }, (_, i) => i);
  const t0 = now();
  const pauses = await Promise.all(ids.map((i) => startThread(engine, i)));
  const t1 = now();
  const rssAfterSuspend = rss.sample();
  const heapAfterSuspend = process.memoryUsage().heapUsed;
  globalThis.gc?.();
  const heapRetainedPaused = process.memoryUsage().heapUsed;
  const rssRetainedPaused = process.memoryUsage.rss();
  const executedWhilePaused = toolEffects.count;
  let parked = 0;
  for (const i of ids) {
    const thread = await engine.store.getThread(threadIdFor(i));
    const interaction = thread?.pendingInteractionIds[0] === undefined ? undefined : await engine.store.getInteraction(thread.pendingInteractionIds[0]);
    const asked = interaction?.request.toolApproval;
    if (thread?.status === 'waiting' && interaction?.status === 'pending' && asked?.toolName === 'write_file' && JSON.stringify(asked.toolParameters) === JSON.stringify(toolArgsFor(i))) parked++;
  }
  const argumentsReturned = pauses.every((pause, i) => JSON.stringify(pause.arguments) === JSON.stringify(toolArgsFor(i)));
  const t2 = now();
  const finals = await Promise.all(ids.map((i) => approveThread(engine, i)));
  const t3 = now();
  const peak = rss.stop();
  emit({
    kind: 'fanout',
    ...label(options.store),
    n,
    warmup: options.warmup,
    suspend_phase_ms: Math.round(t1 - t0),
    resume_phase_ms: Math.round(t3 - t2),
    suspend_threads_per_sec: Math.round((n / (t1 - t0)) * 1000 * 10) / 10,
    resume_threads_per_sec: Math.round((n / (t3 - t2)) * 1000 * 10) / 10,
    interrupts_returned: pauses.length,
    pending_approvals_returned_with_arguments: argumentsReturned,
    parked_confirmed_from_store: parked,
    tool_executions_before_approval: executedWhilePaused,
    rss_baseline_mb: mb(rssBase),
    rss_after_suspend_mb: mb(rssAfterSuspend),
    peak_rss_sampled_mb: mb(peak),
    heap_used_baseline_mb: mb(heapBase),
    heap_used_after_suspend_mb: mb(heapAfterSuspend),
    heap_used_while_all_paused_after_gc_mb: mb(heapRetainedPaused),
    rss_while_all_paused_after_gc_mb: mb(rssRetainedPaused),
    versions: versions(),
  });
  const verified = await verifyAll(engine, n);
  await engine.interlock.close();
  if (options.store === 'sqlite') emit({ kind: 'storage', section: 'fanout', ...label(options.store), n, ...storageStats(file, n) });
  const pass = correctness('fanout', options.store, n, finals, verified) && executedWhilePaused === 0 && parked === n && argumentsReturned;
  if (options.store === 'sqlite') rmDb(file);
  return pass;
}

/**
 * (e) cross-process: `--phase suspend` starts N threads and exits while they wait, without
 * closing anything (as a process that stops); `--phase resume` opens the same file in a new
 * process with a new instance and approves them all.
 */
export async function modeDurable(options: RunOptions): Promise<boolean> {
  const { n } = options;
  const file = dbFile(options, 'durable');
  if (options.phase === 'suspend') {
    const engine = await openFresh('sqlite', file);
    for (let i = 0; i < n; i++) await startThread(engine, i);
    emit({ kind: 'durable', phase: 'suspend', ...label('sqlite'), n, tool_executions: toolEffects.count, pid: process.pid, closed_store: false });
    return toolEffects.count === 0;
  }
  const probe = installSqliteProbe();
  const engine = await createEngine('sqlite', file);
  const finals: unknown[] = [];
  for (let i = 0; i < n; i++) finals.push(await approveThread(engine, i));
  const verified = await verifyAll(engine, n);
  const audit = await engine.interlock.verifyAudit();
  emit({
    kind: 'durable',
    phase: 'resume',
    ...label('sqlite'),
    n,
    tool_executions: toolEffects.count,
    pid: process.pid,
    audit_chain: audit,
    synchronous_on_reopen: synchronousOf(probe),
  });
  const pass = correctness('cross_process_resume', 'sqlite', n, finals, verified);
  await engine.interlock.close();
  rmDb(file);
  return pass;
}

/**
 * Many threads suspended at once on SQLite: started in batches of `batch` concurrent starts,
 * then RSS after a GC, then `scaleSample` random threads answered one by one (answer → finished).
 */
export async function modeScale(options: RunOptions): Promise<boolean> {
  const { n } = options;
  const batch = options.batch ?? 500;
  const sample = Math.min(options.scaleSample ?? 1000, n);
  await warmup(options, 'scale');
  const file = dbFile(options, 'scale');
  const engine = await openFresh('sqlite', file);
  globalThis.gc?.();
  const rssBase = process.memoryUsage.rss();
  const heapBase = process.memoryUsage().heapUsed;
  const rss = rssSampler(50);
  const t0 = now();
  for (let start = 0; start < n; start += batch) {
    const ids = Array.from({ length: Math.min(batch, n - start) }, (_, k) => start + k);
    await Promise.all(ids.map((i) => startThread(engine, i)));
  }
  const suspendMs = now() - t0;
  const peakWhileSuspending = rss.stop();
  globalThis.gc?.();
  globalThis.gc?.();
  const rssWaiting = process.memoryUsage.rss();
  const heapWaiting = process.memoryUsage().heapUsed;
  const executedWhilePaused = toolEffects.count;
  // A random sample without replacement (a fixed seed, so runs answer the same threads).
  let seed = 12345;
  const random = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
  const chosen = new Set<number>();
  while (chosen.size < sample) chosen.add(Math.floor(random() * n));
  const latencies: number[] = [];
  const finals: unknown[] = [];
  for (const i of chosen) {
    const a = now();
    finals.push(await approveThread(engine, i));
    latencies.push(now() - a);
  }
  const dbBytes = fileSizes(file).total;
  emit({
    kind: 'scale',
    ...label('sqlite'),
    n,
    warmup: options.warmup,
    start_batch: batch,
    suspend_all_ms: Math.round(suspendMs),
    suspend_threads_per_sec: Math.round((n / suspendMs) * 1000 * 10) / 10,
    rss_baseline_mb: mb(rssBase),
    heap_used_baseline_mb: mb(heapBase),
    peak_rss_while_suspending_mb: mb(peakWhileSuspending),
    rss_all_waiting_after_gc_mb: mb(rssWaiting),
    heap_used_all_waiting_after_gc_mb: mb(heapWaiting),
    tool_executions_before_approval: executedWhilePaused,
    sampled_answers: sample,
    answer_to_finish: summarize(latencies),
    db_bytes_while_waiting: dbBytes,
    versions: versions(),
  });
  const allDone = finals.every((f) => f === FINAL_TEXT);
  const pass = executedWhilePaused === 0 && allDone && toolEffects.count === sample;
  emit({ kind: 'correctness', section: 'scale', ...label('sqlite'), n: sample, tool_executions: toolEffects.count, all_final_done: allDone, pass });
  await engine.interlock.close();
  rmDb(file);
  return pass;
}

/** What the store commits per round trip, by store method (the probe adds overhead: never timed). */
export async function modeCommits(options: RunOptions): Promise<boolean> {
  const { n } = options;
  const probe: SqliteProbe = installSqliteProbe();
  probe.enabled = false;
  await warmup(options, 'commits');
  const file = dbFile(options, `commits-${options.store}`);
  const engine = await openFresh(options.store, file);
  const calls = labelStoreMethods(engine.store);
  const synchronous = synchronousOf(probe);
  calls.clear();
  probe.reset();
  probe.enabled = true;
  const phases = { suspend: { transactions: 0, statements: 0 }, resume: { transactions: 0, statements: 0 } };
  for (let i = 0; i < n; i++) {
    let tx = probe.transactions.length;
    let st = probe.statements;
    await startThread(engine, i);
    phases.suspend.transactions += probe.transactions.length - tx;
    phases.suspend.statements += probe.statements - st;
    tx = probe.transactions.length;
    st = probe.statements;
    await approveThread(engine, i);
    phases.resume.transactions += probe.transactions.length - tx;
    phases.resume.statements += probe.statements - st;
  }
  probe.enabled = false;
  const per = (x: number) => Math.round((x / n) * 100) / 100;
  const suspendWrites = probe.transactions.length;
  emit({
    kind: 'commits',
    ...label(options.store),
    n,
    method:
      'better-sqlite3 prototypes wrapped (prepare/run/all/get); a commit = COMMIT of a transaction that changed >= 1 row; labels = the store method whose AsyncLocalStorage scope issued the BEGIN',
    synchronous_pragma: synchronous,
    store_calls_per_round_trip: Object.fromEntries([...calls.entries()].sort((a, b) => b[1] - a[1]).map(([k, v]) => [k, per(v)])),
    phases: {
      suspend: { transactions: per(phases.suspend.transactions), statements: per(phases.suspend.statements) },
      resume: { transactions: per(phases.resume.transactions), statements: per(phases.resume.statements) },
    },
    ...(options.store === 'sqlite' ? probe.summary(n) : {}),
    transactions_total: suspendWrites,
  });
  if (options.store === 'sqlite') fs.writeFileSync(path.join(options.resultsDir, 'interlock-transactions.json'), JSON.stringify(probe.examples(), null, 2) + '\n');
  await engine.interlock.close();
  if (options.store === 'sqlite') rmDb(file);
  return true;
}

/** The fsync bound: single-row commits on a fresh file, WAL, synchronous=FULL (and NORMAL for reference). */
export function modeFsync(options: RunOptions): boolean {
  const results: Record<string, unknown> = {};
  for (const synchronous of ['FULL', 'NORMAL']) {
    const file = path.join(options.resultsDir, `interlock-fsync-${synchronous.toLowerCase()}.db`);
    rmDb(file);
    const db = new Database(file);
    db.pragma('journal_mode = WAL');
    db.pragma(`synchronous = ${synchronous}`);
    db.prepare('CREATE TABLE t (id INTEGER PRIMARY KEY, payload TEXT NOT NULL)').run();
    const insert = db.prepare('INSERT INTO t (payload) VALUES (?)');
    const payload = 'x'.repeat(200);
    for (let i = 0; i < 200; i++) insert.run(payload);
    const commits = Math.max(200, options.n);
    const times: number[] = [];
    const t0 = now();
    for (let i = 0; i < commits; i++) {
      const a = now();
      insert.run(payload);
      times.push(now() - a);
    }
    const total = now() - t0;
    const actual = db.pragma('synchronous', { simple: true });
    db.close();
    rmDb(file);
    results[synchronous.toLowerCase()] = {
      synchronous_pragma: actual,
      commits,
      commits_per_sec: Math.round((commits / total) * 1000),
      per_commit: summarize(times),
    };
  }
  emit({ kind: 'fsync_bound', engine: 'sqlite', method: 'better-sqlite3, fresh file, WAL, one autocommit INSERT of a 200-char row per commit', ...results });
  return true;
}
