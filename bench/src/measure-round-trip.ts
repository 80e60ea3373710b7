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
import {
  approveThread,
  createEngine,
  durabilityOf,
  startThread,
  storeOptionsOf,
  threadIdFor,
  verifyAll,
  type Engine,
  type SqliteStoreOptions,
  type StoreKind,
} from './scenario.js';
import {
  Database,
  installSqliteProbe,
  labelStoreMethods,
  synchronousOf,
  wrote,
  type SqliteProbe,
} from './sqlite-probe.js';
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
  /** The SQLite store's `synchronous` option (core's default: `full`). */
  synchronous?: 'full' | 'normal';
  /** The SQLite store's `groupCommit` option (default false). */
  groupCommit?: boolean;
}

const sqliteOptions = (options: RunOptions): SqliteStoreOptions => ({
  ...(options.synchronous === undefined ? {} : { synchronous: options.synchronous }),
  ...(options.groupCommit === undefined ? {} : { groupCommit: options.groupCommit }),
});

/** Every record says which store, with which options (`store_options`) and its `durability` label. */
function label(store: StoreKind, options: RunOptions) {
  return {
    engine: 'interlock',
    variant: 'llm-tool-approval',
    saver: store,
    durability: durabilityOf(store, sqliteOptions(options)),
    store_options: storeOptionsOf(store, sqliteOptions(options)),
  };
}

/** A file-name suffix for the store options (`-normal`, `-group`). */
const optionsSuffix = (options: RunOptions) =>
  `${options.synchronous === 'normal' ? '-normal' : ''}${options.groupCommit ? '-group' : ''}`;

function dbFile(options: RunOptions, name: string): string {
  return path.resolve(options.db ?? path.join(options.resultsDir, `interlock-${name}.db`));
}

async function openFresh(kind: StoreKind, file: string, options: RunOptions): Promise<Engine> {
  if (kind === 'sqlite') rmDb(file);
  return createEngine(kind, file, sqliteOptions(options));
}

/** WARMUP full round trips on a throw-away store of the same kind, excluded from every figure. */
async function warmup(options: RunOptions, name: string): Promise<void> {
  if (options.warmup <= 0) return;
  const file = dbFile(options, name).replace(/\.db$/, '') + '-warmup.db';
  const engine = await openFresh(options.store, file, options);
  for (let i = 0; i < options.warmup; i++) {
    await startThread(engine, 1_000_000 + i);
    await approveThread(engine, 1_000_000 + i);
  }
  await engine.interlock.close();
  if (options.store === 'sqlite') rmDb(file);
  resetToolEffects();
}

function correctness(
  section: string,
  options: RunOptions,
  n: number,
  finals: unknown[],
  verified: { ok: number } | null,
): boolean {
  const perThreadOk = toolEffects.perThread.size === n && [...toolEffects.perThread.values()].every((c) => c === 1);
  const allDone = finals.length === n && finals.every((f) => f === FINAL_TEXT);
  const record = {
    kind: 'correctness',
    section,
    ...label(options.store, options),
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
  // Only records the connections (no per-statement cost), to read back the store's PRAGMA synchronous.
  const probe = options.store === 'sqlite' ? installSqliteProbe(false) : undefined;
  await warmup(options, 'seq');
  const file = dbFile(options, `seq-${options.store}${optionsSuffix(options)}`);
  const engine = await openFresh(options.store, file, options);
  const synchronous = probe ? synchronousOf(probe) : null;
  const suspend = new Array<number>(n);
  const resume = new Array<number>(n);
  const finals = new Array<unknown>(n);
  const rss = rssSampler(20);
  const cpu0 = process.cpuUsage();
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
  const cpu = process.cpuUsage(cpu0);
  const peak = rss.stop();
  emit({
    kind: 'sequential',
    ...label(options.store, options),
    synchronous_pragma: synchronous,
    n,
    warmup: options.warmup,
    total_ms: Math.round(total),
    threads_per_sec: Math.round((n / total) * 1000 * 10) / 10,
    // This process's CPU (user + system) over the loop: less swayed by a loaded machine than the rate.
    cpu_ms_per_round_trip: Math.round(((cpu.user + cpu.system) / 1000 / n) * 1000) / 1000,
    suspend: summarize(suspend),
    resume: summarize(resume),
    round_trip: summarize(suspend.map((s, i) => s + (resume[i] ?? 0))),
    peak_rss_mb: mb(peak),
    versions: versions(),
  });
  const verified = await verifyAll(engine, n);
  const pass = correctness('sequential', options, n, finals, verified);
  await engine.interlock.close();
  if (options.store === 'sqlite') rmDb(file);
  return pass;
}

/** (b) and (c): N threads started at once, confirmed parked from the store, then all approved at once. */
export async function modeFanout(options: RunOptions): Promise<boolean> {
  const { n } = options;
  const probe = options.store === 'sqlite' ? installSqliteProbe(false) : undefined;
  await warmup(options, 'fanout');
  const file = dbFile(options, `fanout${optionsSuffix(options)}`);
  const engine = await openFresh(options.store, file, options);
  const synchronous = probe ? synchronousOf(probe) : null;
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
    const interaction =
      thread?.pendingInteractionIds[0] === undefined
        ? undefined
        : await engine.store.getInteraction(thread.pendingInteractionIds[0]);
    const asked = interaction?.request.toolApproval;
    if (
      thread?.status === 'waiting' &&
      interaction?.status === 'pending' &&
      asked?.toolName === 'write_file' &&
      JSON.stringify(asked.toolParameters) === JSON.stringify(toolArgsFor(i))
    )
      parked++;
  }
  const argumentsReturned = pauses.every(
    (pause, i) => JSON.stringify(pause.arguments) === JSON.stringify(toolArgsFor(i)),
  );
  const t2 = now();
  const finals = await Promise.all(ids.map((i) => approveThread(engine, i)));
  const t3 = now();
  const peak = rss.stop();
  emit({
    kind: 'fanout',
    ...label(options.store, options),
    synchronous_pragma: synchronous,
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
  if (options.store === 'sqlite')
    emit({ kind: 'storage', section: 'fanout', ...label(options.store, options), n, ...storageStats(file, n) });
  const pass =
    correctness('fanout', options, n, finals, verified) &&
    executedWhilePaused === 0 &&
    parked === n &&
    argumentsReturned;
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
    const engine = await openFresh('sqlite', file, options);
    for (let i = 0; i < n; i++) await startThread(engine, i);
    emit({
      kind: 'durable',
      phase: 'suspend',
      ...label('sqlite', options),
      n,
      tool_executions: toolEffects.count,
      pid: process.pid,
      closed_store: false,
    });
    return toolEffects.count === 0;
  }
  const probe = installSqliteProbe(false);
  const engine = await createEngine('sqlite', file, sqliteOptions(options));
  const finals: unknown[] = [];
  for (let i = 0; i < n; i++) finals.push(await approveThread(engine, i));
  const verified = await verifyAll(engine, n);
  const audit = await engine.interlock.verifyAudit();
  emit({
    kind: 'durable',
    phase: 'resume',
    ...label('sqlite', options),
    n,
    tool_executions: toolEffects.count,
    pid: process.pid,
    audit_chain: audit,
    synchronous_on_reopen: synchronousOf(probe),
  });
  const pass = correctness('cross_process_resume', { ...options, store: 'sqlite' }, n, finals, verified);
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
  await warmup({ ...options, store: 'sqlite' }, 'scale');
  const file = dbFile(options, 'scale');
  const engine = await openFresh('sqlite', file, options);
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
  const random = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
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
    ...label('sqlite', options),
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
  emit({
    kind: 'correctness',
    section: 'scale',
    ...label('sqlite', options),
    n: sample,
    tool_executions: toolEffects.count,
    all_final_done: allDone,
    pass,
  });
  await engine.interlock.close();
  rmDb(file);
  return pass;
}

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * What the store commits per round trip (the probe adds overhead: never timed). Sequential
 * round trips on the store as `options` say (default: core's, synchronous FULL, no group
 * commit), split into suspend and resume (after each call the harness lets the event-loop
 * turn end, so a commit at the end of that turn counts in its phase); then, for reference,
 * `n` threads started at once and approved at once, without and with group commit.
 */
export async function modeCommits(options: RunOptions): Promise<boolean> {
  const { n } = options;
  const probe: SqliteProbe = installSqliteProbe();
  probe.enabled = false;
  await warmup(options, 'commits');
  const file = dbFile(options, `commits-${options.store}`);
  const engine = await openFresh(options.store, file, options);
  const calls = labelStoreMethods(engine.store);
  const synchronous = synchronousOf(probe);
  calls.clear();
  probe.reset();
  probe.enabled = true;
  const phases = {
    suspend: { write_commits: 0, transactions: 0, statements: 0 },
    resume: { write_commits: 0, transactions: 0, statements: 0 },
  };
  const count = async (phase: keyof typeof phases, work: () => Promise<unknown>) => {
    const tx = probe.transactions.length;
    const st = probe.statements;
    await work();
    await nextTurn();
    phases[phase].write_commits += probe.writeCommits(tx);
    phases[phase].transactions += probe.transactions.length - tx;
    phases[phase].statements += probe.statements - st;
  };
  for (let i = 0; i < n; i++) {
    await count('suspend', () => startThread(engine, i));
    await count('resume', () => approveThread(engine, i));
  }
  probe.enabled = false;
  const per = (x: number) => Math.round((x / n) * 100) / 100;
  const summary = probe.summary(n);
  const examples = probe.examples();
  await engine.interlock.close();
  rmDb(file);

  // The same n threads all at once (the fan-out's shape), without and with group commit.
  const concurrent: Record<string, unknown> = {};
  for (const groupCommit of [false, true]) {
    const concurrentFile = dbFile(options, `commits-concurrent${groupCommit ? '-group' : ''}`);
    const concurrentOptions: RunOptions = { ...options, groupCommit };
    const other = await openFresh('sqlite', concurrentFile, concurrentOptions);
    labelStoreMethods(other.store);
    resetToolEffects();
    probe.reset();
    probe.enabled = true;
    const ids = Array.from({ length: n }, (_, i) => i);
    await Promise.all(ids.map((i) => startThread(other, i)));
    await nextTurn();
    const suspendCommits = probe.writeCommits();
    const mark = probe.transactions.length;
    await Promise.all(ids.map((i) => approveThread(other, i)));
    await nextTurn();
    const resumeCommits = probe.writeCommits(mark);
    probe.enabled = false;
    const rowsChanged = probe.transactions.filter(wrote).map((tx) => tx.changes);
    concurrent[groupCommit ? 'group_commit' : 'no_group_commit'] = {
      durability: durabilityOf('sqlite', sqliteOptions(concurrentOptions)),
      threads: n,
      write_commits: suspendCommits + resumeCommits,
      write_commits_per_thread: per(suspendCommits + resumeCommits),
      suspend_phase_write_commits_per_thread: per(suspendCommits),
      resume_phase_write_commits_per_thread: per(resumeCommits),
      largest_commit_rows_changed: rowsChanged.reduce((a, b) => Math.max(a, b), 0),
    };
    await other.interlock.close();
    rmDb(concurrentFile);
  }

  emit({
    kind: 'commits',
    ...label(options.store, options),
    n,
    method:
      "better-sqlite3 prototypes wrapped (prepare/run/all/get); a write commit = COMMIT of a transaction that changed >= 1 row; each transaction is labelled with the store method whose AsyncLocalStorage scope ran its BEGIN (opener), lists every store method whose statements ran inside it, and says what committed it (flush('now') = a durability point, end of turn = the store's setImmediate, close)",
    synchronous_pragma: synchronous,
    store_calls_per_round_trip: Object.fromEntries(
      [...calls.entries()].sort((a, b) => b[1] - a[1]).map(([k, v]) => [k, per(v)]),
    ),
    phases: Object.fromEntries(
      Object.entries(phases).map(([phase, p]) => [
        phase,
        { write_commits: per(p.write_commits), transactions: per(p.transactions), statements: per(p.statements) },
      ]),
    ),
    ...summary,
    concurrent,
  });
  fs.writeFileSync(
    path.join(options.resultsDir, 'interlock-transactions.json'),
    JSON.stringify(examples, null, 2) + '\n',
  );
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
  emit({
    kind: 'fsync_bound',
    engine: 'sqlite',
    method: 'better-sqlite3, fresh file, WAL, one autocommit INSERT of a 200-char row per commit',
    ...results,
  });
  return true;
}
