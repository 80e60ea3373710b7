/**
 * Collects results/interlock.jsonl and results/time-interlock-*.txt into
 * results/interlock.json (the shape of the peers' lib/collect.mjs) and writes
 * results/summary.md: the peers' tables with Interlock's rows beside the peers' rows from
 * results/peers/*.json (same machine), the ratios (each saying which Interlock row it
 * uses), and where Interlock stands on each target, from the figures of this run only.
 */
import { execSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** A value in a results file. */
type JsonValue = string | number | boolean | null | JsonValue[] | Json;
/**
 * A record of a results file, or an object inside one. Its shape differs between engines and
 * between versions of this bench, so any field may be missing: read through `at`, `show`, `num`.
 */
interface Json {
  [key: string]: JsonValue | undefined;
}

const isJson = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The value at `path` inside `value`: undefined where a step is missing or not an object. */
function at(value: JsonValue | undefined, ...path: string[]): JsonValue | undefined {
  let current = value;
  for (const key of path) current = isJson(current) ? current[key] : undefined;
  return current;
}

/** A figure to compute with: NaN where missing, so a comparison is false (as with undefined). */
const num = (value: JsonValue | undefined): number => (typeof value === 'number' ? value : NaN);

/** A figure when it is one, for the checks that distinguish missing from present. */
const figure = (value: JsonValue | undefined): number | undefined => (typeof value === 'number' ? value : undefined);

/** A field as the tables print it: '–' where missing. */
const show = (value: JsonValue | undefined): string =>
  value === undefined || value === null ? '–' : typeof value === 'object' ? JSON.stringify(value) : String(value);

/** The fields of an object in a record, none where it is missing. */
const entriesOf = (value: JsonValue | undefined): [string, JsonValue | undefined][] =>
  isJson(value) ? Object.entries(value) : [];

/** The records of a results document (this run's or a peer's). */
const recordsOf = (document: Json | undefined): Json[] => {
  const records = document?.['records'];
  return Array.isArray(records) ? records.filter(isJson) : [];
};

function readJsonl(file: string): Json[] {
  if (!fs.existsSync(file)) return [];
  return fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line.trim().startsWith('{'))
    .flatMap((line) => {
      const record: unknown = JSON.parse(line);
      return isJson(record) ? [record] : [];
    });
}

function readTimes(dir: string, prefix: string): Record<string, Json> {
  const out: Record<string, Json> = {};
  for (const file of fs.readdirSync(dir)) {
    if (!file.startsWith(`time-${prefix}`) || !file.endsWith('.txt')) continue;
    const text = fs.readFileSync(path.join(dir, file), 'utf8');
    const match = (re: RegExp) => re.exec(text)?.[1];
    out[file.slice(5, -4)] = {
      max_rss_kb: Number(match(/Maximum resident set size \(kbytes\): (\d+)/)),
      elapsed_wall: match(/Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): ([\d:.]+)/),
      user_s: Number(match(/User time \(seconds\): ([\d.]+)/)),
      system_s: Number(match(/System time \(seconds\): ([\d.]+)/)),
      cpu_percent: match(/Percent of CPU this job got: (\d+%)/),
      exit_status: Number(match(/Exit status: (\d+)/)),
    };
  }
  return out;
}

function machineInfo(): Json {
  let nproc: number | null;
  try {
    nproc = Number(execSync('nproc', { encoding: 'utf8' }).trim());
  } catch {
    nproc = null;
  }
  return {
    node: process.version,
    os: `${os.type()} ${os.release()} ${os.arch()}`,
    cpus: os.cpus().length,
    nproc,
    cpu_model: os.cpus()[0]?.model,
    total_mem_gb: Math.round(os.totalmem() / 1073741824),
  };
}

const f1 = (x: unknown) =>
  x == null || Number.isNaN(Number(x)) ? '–' : Number(x).toFixed(Number(x) >= 100 ? 0 : Number(x) >= 10 ? 1 : 2);
const ratio = (a: unknown, b: unknown) =>
  a == null || b == null || Number(b) === 0 ? '–' : `${(Number(a) / Number(b)).toFixed(2)}×`;

type Sync = 'full' | 'normal';
/** A SQLite record of the store options given (records without store_options are from the old store: no match). */
const withOptions = (r: Json, synchronous: Sync, groupCommit: boolean) =>
  r['saver'] === 'sqlite' &&
  at(r, 'store_options', 'synchronous') === synchronous &&
  Boolean(at(r, 'store_options', 'groupCommit')) === groupCommit;

/** The row label of a record's store: `sqlite (synchronous=FULL)`, `memory`, the peers' `sqlite (durability=sync)`. */
function storeLabel(r: Json): string {
  if (r['engine'] === 'interlock')
    return r['saver'] === 'sqlite' && r['durability'] ? `sqlite (${show(r['durability'])})` : show(r['saver']);
  return `${show(r['saver'])}${r['durability'] && r['durability'] !== 'async' ? ` (durability=${show(r['durability'])})` : ''}`;
}

/**
 * @param dir where this run's records are (results/, or RESULTS_DIR for a smoke run)
 * @param benchResultsDir results/: the peers' figures (results/peers) and the separate 100k record
 */
export function writeCollected(dir: string, benchResultsDir = dir): void {
  const records = readJsonl(path.join(dir, 'interlock.jsonl'));
  const machine = machineInfo();
  const doc = {
    scenario: 'approval-round-trip/v1 (see ../shared/bench/SCENARIO.md)',
    engine: 'interlock',
    generated_at: new Date().toISOString(),
    machine,
    versions: records.find((r) => r['versions'])?.['versions'] ?? null,
    records,
    process_time_v: readTimes(dir, 'interlock-'),
  };
  fs.writeFileSync(path.join(dir, 'interlock.json'), JSON.stringify(doc, null, 2) + '\n');

  const peerDir = path.join(benchResultsDir, 'peers');
  const peers: Json[] = fs.existsSync(peerDir)
    ? fs
        .readdirSync(peerDir)
        .filter((f) => f.endsWith('.json'))
        .sort()
        .flatMap((f) => {
          const peer: unknown = JSON.parse(fs.readFileSync(path.join(peerDir, f), 'utf8'));
          return isJson(peer) && Array.isArray(peer['records']) ? [peer] : [];
        })
    : [];
  const docs: Json[] = [doc, ...peers];

  const seqRows: string[] = [];
  const fanRows: string[] = [];
  const checks: string[] = [];
  for (const d of docs) {
    const times = d['process_time_v'];
    const timeFor = (needle: string) => {
      const key = entriesOf(times).find(([k]) => k.endsWith(needle))?.[0];
      return key === undefined ? undefined : at(times, key);
    };
    const docRecords = recordsOf(d);
    for (const r of docRecords) {
      const tag = `${show(r['engine'])}/${show(r['variant'])}`;
      const store = storeLabel(r);
      if (r['kind'] === 'sequential') {
        seqRows.push(
          `| ${tag} | ${store} | ${show(r['n'])} | ${f1(r['threads_per_sec'])} | ${f1(at(r, 'suspend', 'p50_ms'))} / ${f1(at(r, 'suspend', 'p99_ms'))} | ${f1(at(r, 'resume', 'p50_ms'))} / ${f1(
            at(r, 'resume', 'p99_ms'),
          )} | ${f1(at(r, 'round_trip', 'p50_ms'))} / ${f1(at(r, 'round_trip', 'p99_ms'))} | ${show(r['cpu_ms_per_round_trip'] ?? '–')} | ${show(r['peak_rss_mb'])} |`,
        );
      }
      if (r['kind'] === 'fanout') {
        const st = docRecords.find(
          (x) =>
            x['kind'] === 'storage' &&
            x['section'] === 'fanout' &&
            x['variant'] === r['variant'] &&
            (r['step'] === undefined || x['step'] === r['step']),
        );
        const tv =
          r['step'] !== undefined
            ? at(times, `interlock-${show(r['step'])}`)
            : (timeFor(`${show(r['variant'])}-fanout`) ?? timeFor('-fanout'));
        const rows =
          st?.['checkpoint_rows_per_thread'] != null
            ? `${show(st['checkpoint_rows_per_thread'])} ckpt + ${show(st['write_rows_per_thread'])} writes`
            : st?.['tables'] != null
              ? `${show(st['rows_per_thread'])} rows (${entriesOf(st['tables'])
                  .filter(([, t]) => num(at(t, 'rows_per_thread')) > 0)
                  .map(([name, t]) => `${show(at(t, 'rows_per_thread'))} ${name}`)
                  .join(', ')})`
              : st?.['rows_per_thread'] != null
                ? `${show(st['rows_per_thread'])} row (${show(st['row_writes_per_thread'])} upserts)`
                : '–';
        fanRows.push(
          `| ${tag} | ${store} | ${show(r['n'])} | ${show(r['suspend_phase_ms'])} | ${show(r['resume_phase_ms'])} | ${show(r['rss_baseline_mb'])} | ${show(r['heap_used_while_all_paused_after_gc_mb'])} | ${show(
            r['peak_rss_sampled_mb'],
          )} | ${tv ? Math.round(num(at(tv, 'max_rss_kb')) / 1024) : '–'} | ${st ? Number(st['db_bytes']).toLocaleString('en-US') : '–'} | ${
            st ? Number(st['bytes_per_thread']).toLocaleString('en-US') : '–'
          } | ${rows} |`,
        );
      }
      if (r['kind'] === 'correctness') {
        const verified = r['verified_from_checkpoint'] ?? r['verified_from_store'];
        checks.push(
          `| ${tag} | ${store} | ${show(r['section'])} | ${show(r['n'])} | ${show(r['tool_executions'])} | ${show(r['each_thread_executed_once'])} | ${show(r['all_final_done'])} | ${show(
            at(verified, 'ok'),
          )} | ${r['pass'] ? 'PASS' : 'FAIL'} |`,
        );
      }
      if (r['kind'] === 'error')
        checks.push(`| ${tag} | ${show(r['saver'])} | ERROR in ${show(r['mode'])} | | | | | | FAIL |`);
    }
  }

  const find = (d: Json | undefined, pred: (r: Json) => boolean) => recordsOf(d).find(pred);
  // This run's rows: core's default store (synchronous FULL, the scenario's durability), the
  // NORMAL row (like for like with the peers), memory, fan-out without and with group commit.
  const seq = find(doc, (r) => r['kind'] === 'sequential' && withOptions(r, 'full', false));
  const seqNormal = find(doc, (r) => r['kind'] === 'sequential' && withOptions(r, 'normal', false));
  const seqMem = find(doc, (r) => r['kind'] === 'sequential' && r['saver'] === 'memory');
  const fan = find(doc, (r) => r['kind'] === 'fanout' && withOptions(r, 'full', false));
  const fanGroup = find(doc, (r) => r['kind'] === 'fanout' && withOptions(r, 'full', true));
  const storage = find(doc, (r) => r['kind'] === 'storage' && withOptions(r, 'full', false));
  const commits = find(doc, (r) => r['kind'] === 'commits');
  const scale = find(doc, (r) => r['kind'] === 'scale');
  // A separate 100k run (SCALE_N=100000, too long for the 10-minute `pnpm bench`), when present:
  // reported apart with its own date and core revision, never in the targets table.
  const scale100k = readJsonl(path.join(benchResultsDir, 'interlock-scale-100k.jsonl')).find(
    (r) => r['kind'] === 'scale',
  );
  const revisionOf = (r: Json | undefined) => {
    const revision = at(r, 'versions', '@interlock/core revision');
    return typeof revision === 'string' ? revision : undefined;
  };
  const thisRevision = revisionOf(records.find((r) => r['versions']));
  const runsInThisDoc = [
    ...new Set(records.map((r) => r['run_at']).filter((x): x is string => typeof x === 'string')),
  ].sort();
  const fsyncBound = find(doc, (r) => r['kind'] === 'fsync_bound');
  const approval = find(doc, (r) => r['kind'] === 'micro' && r['group'] === 'approval');
  const shell = find(doc, (r) => r['kind'] === 'micro' && r['group'] === 'shell');
  const bus = find(doc, (r) => r['kind'] === 'micro' && r['group'] === 'event_bus');
  const worst = find(doc, (r) => r['kind'] === 'micro' && r['group'] === 'policy_worst_case');
  const fanTime = doc.process_time_v['interlock-fanout'];
  const fanGroupTime = doc.process_time_v['interlock-fanout-group'];

  const lg = peers.find((p) => p['engine'] === 'langgraph');
  const oa = peers.find((p) => p['engine'] === 'openai-agents');
  const peerSeq = (p: Json | undefined, saver: string) =>
    find(
      p,
      (r) =>
        r['kind'] === 'sequential' &&
        r['saver'] === saver &&
        (r['variant'] === 'lg-interrupt' || r['variant'] === 'needsApproval') &&
        (r['durability'] ?? 'async') === 'async',
    );
  const peerFan = (p: Json | undefined) =>
    find(p, (r) => r['kind'] === 'fanout' && (r['variant'] === 'lg-interrupt' || r['variant'] === 'needsApproval'));
  const peerStorage = (p: Json | undefined) =>
    find(
      p,
      (r) =>
        r['kind'] === 'storage' &&
        r['section'] === 'fanout' &&
        (r['variant'] === 'lg-interrupt' || r['variant'] === 'needsApproval'),
    );

  // Each ratio says which Interlock row it uses. The peers' rows are their primary variants
  // (lg-interrupt, needsApproval), which run at synchronous NORMAL (better-sqlite3's WAL default).
  const FULL = 'synchronous=FULL (default, scenario)';
  const NORMAL = 'synchronous=NORMAL (like for like)';
  const GROUP = 'synchronous=FULL + group commit';
  type Figure = JsonValue | undefined;
  const ratioFigures: [what: string, row: string, interlock: Figure, langgraph: Figure, openaiAgents: Figure][] = [
    [
      'sequential SQLite threads/s',
      FULL,
      seq?.['threads_per_sec'],
      peerSeq(lg, 'sqlite')?.['threads_per_sec'],
      peerSeq(oa, 'sqlite')?.['threads_per_sec'],
    ],
    [
      'sequential SQLite threads/s',
      NORMAL,
      seqNormal?.['threads_per_sec'],
      peerSeq(lg, 'sqlite')?.['threads_per_sec'],
      peerSeq(oa, 'sqlite')?.['threads_per_sec'],
    ],
    [
      'sequential SQLite round trip p50 ms',
      FULL,
      at(seq, 'round_trip', 'p50_ms'),
      at(peerSeq(lg, 'sqlite'), 'round_trip', 'p50_ms'),
      at(peerSeq(oa, 'sqlite'), 'round_trip', 'p50_ms'),
    ],
    [
      'sequential SQLite round trip p50 ms',
      NORMAL,
      at(seqNormal, 'round_trip', 'p50_ms'),
      at(peerSeq(lg, 'sqlite'), 'round_trip', 'p50_ms'),
      at(peerSeq(oa, 'sqlite'), 'round_trip', 'p50_ms'),
    ],
    [
      'sequential memory threads/s',
      'memory',
      seqMem?.['threads_per_sec'],
      peerSeq(lg, 'memory')?.['threads_per_sec'],
      peerSeq(oa, 'memory')?.['threads_per_sec'],
    ],
    [
      'fan-out suspend phase ms',
      FULL,
      fan?.['suspend_phase_ms'],
      peerFan(lg)?.['suspend_phase_ms'],
      peerFan(oa)?.['suspend_phase_ms'],
    ],
    [
      'fan-out resume phase ms',
      FULL,
      fan?.['resume_phase_ms'],
      peerFan(lg)?.['resume_phase_ms'],
      peerFan(oa)?.['resume_phase_ms'],
    ],
    [
      'fan-out suspend phase ms',
      GROUP,
      fanGroup?.['suspend_phase_ms'],
      peerFan(lg)?.['suspend_phase_ms'],
      peerFan(oa)?.['suspend_phase_ms'],
    ],
    [
      'fan-out resume phase ms',
      GROUP,
      fanGroup?.['resume_phase_ms'],
      peerFan(lg)?.['resume_phase_ms'],
      peerFan(oa)?.['resume_phase_ms'],
    ],
    [
      'fan-out peak RSS MB (sampled)',
      FULL,
      fan?.['peak_rss_sampled_mb'],
      peerFan(lg)?.['peak_rss_sampled_mb'],
      peerFan(oa)?.['peak_rss_sampled_mb'],
    ],
    [
      'bytes per finished thread (after fan-out)',
      FULL,
      storage?.['bytes_per_thread'],
      peerStorage(lg)?.['bytes_per_thread'],
      peerStorage(oa)?.['bytes_per_thread'],
    ],
  ];
  const ratioRows = ratioFigures.map(
    ([what, row, il, l, o]) =>
      `| ${what} | ${row} | ${f1(il)} | ${f1(l)} | ${f1(o)} | ${ratio(il, l)} | ${ratio(il, o)} |`,
  );

  const fsyncMs = figure(at(fsyncBound, 'full', 'per_commit', 'p50_ms'));
  const commitsPerTrip = figure(commits?.['write_commits_per_round_trip']);
  const met = (ok: boolean | undefined) => (ok === undefined ? '–' : ok ? 'met' : '**not met**');
  const targets = [
    [
      'sequential SQLite ≥ 1,000 threads/s',
      `${f1(seq?.['threads_per_sec'])} threads/s at synchronous=FULL (N=${show(seq?.['n'])}); ${f1(seqNormal?.['threads_per_sec'])} at NORMAL`,
      met(seq ? num(seq['threads_per_sec']) >= 1000 : undefined),
    ],
    [
      '≤ 3 commits per round trip',
      `${show(commitsPerTrip)} write commits (suspend ${show(at(commits, 'phases', 'suspend', 'write_commits'))}, resume ${show(at(commits, 'phases', 'resume', 'write_commits'))}; ${show(commits?.['transactions_per_round_trip'])} transactions, ${show(commits?.['statements_per_round_trip'])} statements)`,
      met(commitsPerTrip === undefined ? undefined : commitsPerTrip <= 3),
    ],
    [
      'fan-out 1000: suspend ≤ 400 ms',
      `${show(fan?.['suspend_phase_ms'])} ms (N=${show(fan?.['n'])}, synchronous=FULL); group commit ${show(fanGroup?.['suspend_phase_ms'])} ms`,
      met(fan && num(fan['n']) >= 1000 ? num(fan['suspend_phase_ms']) <= 400 : undefined),
    ],
    [
      'fan-out 1000: resume ≤ 600 ms',
      `${show(fan?.['resume_phase_ms'])} ms; group commit ${show(fanGroup?.['resume_phase_ms'])} ms`,
      met(fan && num(fan['n']) >= 1000 ? num(fan['resume_phase_ms']) <= 600 : undefined),
    ],
    [
      'fan-out 1000: peak RSS ≤ 150 MB',
      `${show(fan?.['peak_rss_sampled_mb'])} MB sampled, ${fanTime ? Math.round(num(fanTime['max_rss_kb']) / 1024) : '–'} MB time -v; group commit ${show(fanGroup?.['peak_rss_sampled_mb'])} / ${fanGroupTime ? Math.round(num(fanGroupTime['max_rss_kb']) / 1024) : '–'} MB`,
      met(fan && num(fan['n']) >= 1000 ? num(fan['peak_rss_sampled_mb']) <= 150 : undefined),
    ],
    [
      'storage ≤ 2,000 bytes per finished thread',
      `${show(storage?.['bytes_per_thread'])} bytes (payload ${show(storage?.['payload_bytes_per_thread'])}; N=${show(storage?.['n'])})`,
      met(storage ? num(storage['bytes_per_thread']) <= 2000 : undefined),
    ],
    [
      `100,000 suspended: RSS ≤ 200 MB`,
      `${show(scale?.['rss_all_waiting_after_gc_mb'])} MB with ${show(scale?.['n'])} suspended`,
      scale && num(scale['n']) >= 100000
        ? met(num(scale['rss_all_waiting_after_gc_mb']) <= 200)
        : `not measured at 100k in this run (N=${show(scale?.['n'])})`,
    ],
    [
      `100,000 suspended: answer-to-finish p99 ≤ 5 ms`,
      `p50 ${f1(at(scale, 'answer_to_finish', 'p50_ms'))} / p99 ${f1(at(scale, 'answer_to_finish', 'p99_ms'))} ms with ${show(scale?.['n'])} suspended`,
      scale && num(scale['n']) >= 100000
        ? met(num(at(scale, 'answer_to_finish', 'p99_ms')) <= 5)
        : `not measured at 100k in this run${scale && num(at(scale, 'answer_to_finish', 'p99_ms')) > 5 ? ' (already above 5 ms at this N)' : ''}`,
    ],
    [
      'decideApproval auto path p50 ≤ 2 µs',
      `${show(at(approval, 'decide_approval_auto', 'p50_us'))} µs (explain: ${show(at(approval, 'explain_auto', 'p50_us'))} µs; ask path ${show(at(approval, 'decide_approval_ask', 'p50_us'))} µs)`,
      met(approval ? num(at(approval, 'decide_approval_auto', 'p50_us')) <= 2 : undefined),
    ],
    [
      'shell classification p50 ≤ 100 µs',
      `typical ${show(at(shell, 'typical_all', 'p50_us'))} µs, adversarial ${show(at(shell, 'adversarial_all', 'p50_us'))} µs`,
      met(shell ? num(at(shell, 'typical_all', 'p50_us')) <= 100 : undefined),
    ],
  ].map((row) => `| ${row.join(' | ')} |`);

  /** `p50 / p99` of a per-call cost in a micro-benchmark record. */
  const micro = (record: Json, name: string) =>
    `${show(at(record, name, 'p50_us'))} / ${show(at(record, name, 'p99_us'))}`;
  const mirror = find(doc, (r) => r['kind'] === 'mirror_check');
  const md = [
    `Machine: ${show(machine['os'])}, ${show(machine['nproc'] ?? machine['cpus'])} cpus (${show(machine['cpu_model'])}), ${show(machine['total_mem_gb'])} GB, Node ${show(machine['node'])}`,
    `Interlock generated ${doc.generated_at} (core ${thisRevision ?? '–'}); peers from results/peers (their run.sh, same machine). common.ts mirrors peers/lib/common.mjs: ${show(mirror?.['pass'] ?? 'not checked')}.`,
    runsInThisDoc.length > 1
      ? `**Records from ${runsInThisDoc.length} runs** (a partial rerun with ONLY=…: ${runsInThisDoc.join(', ')}; each record's \`run_at\` says which): compare figures of one run only.`
      : `All Interlock records from one run (${runsInThisDoc[0] ?? 'untagged'}).`,
    '',
    "Interlock's SQLite store runs with core's defaults unless the row says otherwise: synchronous=FULL (an fsync per commit, SCENARIO.md §2's stated durability), no group commit. The peers' SQLite rows run at synchronous=NORMAL: better-sqlite3 12.x defaults WAL databases to NORMAL and neither peer changes it (README, \"synchronous\"), so Interlock's synchronous=NORMAL row is the like-for-like comparison.",
    '',
    'Sequential (a/d): latencies in ms, p50 / p99',
    '',
    '| engine/variant | store | N | threads/s | suspend p50/p99 | resume p50/p99 | round trip p50/p99 | CPU ms per round trip | peak RSS MB |',
    '|---|---|---|---|---|---|---|---|---|',
    ...seqRows,
    '',
    'Fan-out (b/c): all N paused at once, then all approved',
    '',
    '| engine/variant | store | N | suspend phase ms | resume phase ms | RSS baseline MB | heap while all paused (after GC) MB | peak RSS sampled MB | max RSS (time -v) MB | SQLite bytes | bytes/thread | rows per thread |',
    '|---|---|---|---|---|---|---|---|---|---|---|---|',
    ...fanRows,
    '',
    "Ratios (Interlock / peer; < 1 is better for times, bytes and RSS, > 1 for threads/s). Each row says which Interlock row it uses; the peers' figures are always their primary rows (lg-interrupt, needsApproval), at synchronous=NORMAL. The synchronous=NORMAL rows are the like-for-like comparison; the synchronous=FULL rows hold Interlock to the stricter durability the peers do not run at.",
    '',
    '| figure | Interlock row | interlock | langgraph lg-interrupt | openai-agents | vs langgraph | vs openai-agents |',
    '|---|---|---|---|---|---|---|',
    ...ratioRows,
    ...([seq, seqNormal, seqMem, fan].some((r) => r !== undefined && r['n'] !== peerSeq(lg, 'sqlite')?.['n'])
      ? [
          '',
          `**N differs from the peers' (${show(peerSeq(lg, 'sqlite')?.['n'])}) in some Interlock rows** (sequential ${show(seq?.['n'])}, fan-out ${show(fan?.['n'])}): these ratios are not like for like.`,
        ]
      : []),
    '',
    'Commits and the fsync bound',
    '',
    commits
      ? `- Interlock commits ${show(commitsPerTrip)} write transactions per round trip on ${show(commits['durability'] ?? 'sqlite')} (suspend ${show(at(commits, 'phases', 'suspend', 'write_commits'))}, resume ${show(at(commits, 'phases', 'resume', 'write_commits'))}; ${show(commits['transactions_per_round_trip'])} transactions in all of which ${show(commits['read_transactions_per_round_trip'])} read-only and ${show(commits['empty_write_commits_per_round_trip'])} writes that changed nothing, ${show(commits['statements_per_round_trip'])} statements, N=${show(commits['n'])}). Committed by: ${entriesOf(
          commits['write_commits_by_committer'],
        )
          .map(([k, v]) => `${k} ${show(v)}`)
          .join(', ')}.`
      : '- commits: not measured in this run.',
    ...entriesOf(commits?.['write_commit_shapes']).map(
      ([shape, v]) =>
        `  - ${show(at(v, 'commits'))} per round trip: opened by ${shape} (${show(at(v, 'rows_changed_per_commit'))} rows changed, ${show(at(v, 'statements_per_commit'))} statements per commit)`,
    ),
    ...entriesOf(commits?.['concurrent']).map(
      ([, c]) =>
        `- ${show(at(c, 'threads'))} threads started at once, then approved at once (${show(at(c, 'durability'))}): ${show(at(c, 'write_commits'))} write commits, ${show(at(c, 'write_commits_per_thread'))} per thread (suspend ${show(at(c, 'suspend_phase_write_commits_per_thread'))}, resume ${show(at(c, 'resume_phase_write_commits_per_thread'))}); largest commit changed ${show(at(c, 'largest_commit_rows_changed'))} rows.`,
    ),
    `- PRAGMA synchronous read back from the store's connection (2 = FULL, 1 = NORMAL): seq-sqlite ${JSON.stringify(seq?.['synchronous_pragma'] ?? '–')}, seq-sqlite-normal ${JSON.stringify(seqNormal?.['synchronous_pragma'] ?? '–')}, fanout ${JSON.stringify(fan?.['synchronous_pragma'] ?? '–')}, fanout-group ${JSON.stringify(fanGroup?.['synchronous_pragma'] ?? '–')}, commits ${JSON.stringify(commits?.['synchronous_pragma'] ?? '–')}.`,
    `- An fsync'd single-row commit (WAL, synchronous=FULL) on this disk: p50 ${show(at(fsyncBound, 'full', 'per_commit', 'p50_ms'))} ms, mean ${show(at(fsyncBound, 'full', 'per_commit', 'mean_ms'))} ms, ${show(at(fsyncBound, 'full', 'commits_per_sec'))} commits/s (NORMAL: ${show(at(fsyncBound, 'normal', 'commits_per_sec'))} commits/s).`,
    fsyncMs && commitsPerTrip
      ? `- fsync bound at ${commitsPerTrip} commits per round trip: ${f1(1000 / (commitsPerTrip * fsyncMs))} threads/s (p50 commit). The synchronous=FULL row measured ${f1(seq?.['threads_per_sec'])} threads/s (${f1(at(seq, 'round_trip', 'mean_ms'))} ms mean round trip, of which ≈ ${f1(commitsPerTrip * (figure(at(fsyncBound, 'full', 'per_commit', 'mean_ms')) ?? fsyncMs))} ms are commits at the measured mean commit cost); the NORMAL row ${f1(seqNormal?.['threads_per_sec'])} threads/s (${f1(at(seqNormal, 'round_trip', 'mean_ms'))} ms mean).`
      : '- fsync bound: not measured in this run.',
    '',
    'Many threads suspended at once (SQLite)',
    '',
    ...[scale, scale100k]
      .filter((x): x is Json => x !== undefined)
      .map(
        (sc) =>
          `- ${show(sc['n'])} threads suspended (started in batches of ${show(sc['start_batch'])}) in ${show(sc['suspend_all_ms'])} ms (${show(sc['suspend_threads_per_sec'])} threads/s); RSS after GC while all wait: ${show(sc['rss_all_waiting_after_gc_mb'])} MB (baseline ${show(sc['rss_baseline_mb'])} MB, heap ${show(sc['heap_used_all_waiting_after_gc_mb'])} MB); ${show(sc['sampled_answers'])} random answers, answer → finished p50 ${show(at(sc, 'answer_to_finish', 'p50_ms'))} ms, p99 ${show(at(sc, 'answer_to_finish', 'p99_ms'))} ms; database ${Number(sc['db_bytes_while_waiting']).toLocaleString('en-US')} bytes while waiting. At that suspend rate 100,000 threads would take ≈ ${Math.round(100000 / num(sc['suspend_threads_per_sec']))} s to start.${
            sc === scale100k
              ? ` (separate run, not in the targets table: results/interlock-scale-100k.jsonl, core ${revisionOf(sc) ?? '–'}, ${show(sc['durability'] ?? 'store options not recorded: the TypeORM store of an older core')}${revisionOf(sc) !== undefined && thisRevision !== undefined && revisionOf(sc) !== thisRevision ? `; **another core than this run's (${thisRevision}): rerun it** with \`node --expose-gc dist/run.js scale --n 100000\`` : ''})`
              : ` (${show(sc['durability'] ?? 'sqlite')}, this run)`
          }`,
      ),
    '',
    'PostgreSQL with workers (issue 12): started and approved by an answerer that runs no thread (the web inbox of a deployment), taken forward by K worker processes; 8 round trips in flight',
    '',
    '| workers | N | round trips/s | round trip p50 / p90 / p99 / max ms | network round trips per round trip | recovered / found by a poll | CPU ms per round trip: Node / PostgreSQL (server / statements) | tool runs | each once |',
    '|---|---|---|---|---|---|---|---|---|',
    ...records
      .filter((r) => r['kind'] === 'workers_pg')
      .map(
        (r) =>
          `| ${show(r['workers'])} | ${show(r['n'])} | ${f1(r['round_trips_per_sec'])} | ${f1(at(r, 'round_trip', 'p50_ms'))} / ${f1(at(r, 'round_trip', 'p90_ms'))} / ${f1(at(r, 'round_trip', 'p99_ms'))} / ${f1(at(r, 'round_trip', 'max_ms'))} | ${show(r['network_round_trips_per_round_trip'])} | ${show(r['recovered_round_trips'])} / ${show(r['round_trips_found_by_poll'])} | ${show(at(r, 'cpu_ms_per_round_trip', 'node'))} / ${show(at(r, 'cpu_ms_per_round_trip', 'postgres'))} / ${show(at(r, 'cpu_ms_per_round_trip', 'postgres_exec'))} | ${show(r['tool_executions'])} | ${r['every_effect_once'] ? 'yes' : '**no**'} |`,
      ),
    ...records
      .filter((r) => r['kind'] === 'queue_pg')
      .map(
        (r) =>
          `\nThe job queue alone (${show(r['queue'])}, nothing of Interlock): ${f1(r['jobs_per_sec'])} no-op jobs/s, add → run p50 ${f1(at(r, 'add_to_run', 'p50_ms'))} ms, p99 ${f1(at(r, 'add_to_run', 'p99_ms'))} ms (N=${show(r['n'])}, ${show(r['in_flight'])} in flight).`,
      ),
    ...queueScaling(records),
    '',
    'Micro-benchmarks (per call, µs: p50 / p99)',
    '',
    approval
      ? `- decideApproval auto path (read tool, rule ${show(at(approval, 'decide_approval_auto', 'rule'))}): ${micro(approval, 'decide_approval_auto')}; ask path (${show(at(approval, 'decide_approval_ask', 'rule'))}): ${micro(approval, 'decide_approval_ask')}; interlock.explain auto: ${micro(approval, 'explain_auto')}, ask: ${micro(approval, 'explain_ask')}`
      : '- approval: not run',
    shell
      ? `- shell classification, typical commands: ${micro(shell, 'typical_all')}; adversarial: ${micro(shell, 'adversarial_all')}; explain(bash) typical ${micro(shell, 'explain_bash_typical_all')}, adversarial ${micro(shell, 'explain_bash_adversarial_all')} (per command in interlock.json)`
      : '- shell: not run',
    worst
      ? `- policy worst case (bound: ask past ${show(worst['budget_ms'])} ms): ${show(worst['commands'])} adversarial commands up to the length limit classify in p50 ${show(worst['classify_p50_ms'])} / p99 ${show(worst['classify_p99_ms'])} / max ${show(worst['classify_max_ms'])} ms (slowest: ${show(worst['slowest_command'])} → ${show(worst['slowest_verdict'])}); a nested-quantifier deny rule takes at most ${show(worst['deny_rule_max_ms'])} ms (${show(worst['slowest_rule'])})`
      : '- policy worst case: not run',
    bus
      ? `- event bus (events$): ${entriesOf(bus)
          .filter(([, v]) => isJson(v))
          .map(
            ([k, v]) =>
              `${k}: ${num(at(v, 'events_per_sec')).toLocaleString('en-US')} events/s (${show(at(v, 'us_per_event'))} µs/event)`,
          )
          .join('; ')}`
      : '- event bus: not run',
    '',
    'Targets (phase 2) and where Interlock stands',
    '',
    '| target | now | |',
    '|---|---|---|',
    ...targets,
    '',
    'Correctness (e)',
    '',
    "| engine/variant | store | section | N | tool executions | each once | all 'done' | verified from store | result |",
    '|---|---|---|---|---|---|---|---|---|',
    ...checks,
    '',
  ].join('\n');
  fs.writeFileSync(path.join(dir, 'summary.md'), md);
  process.stdout.write(md);
}

/**
 * The job queue alone in 1, 2 and 4 worker processes (`queue-pg --workers K`), beside the
 * workers table: what more processes cost the queue itself, each figure against the one before.
 */
function queueScaling(records: Json[]): string[] {
  const rows = records
    .filter((r) => r['kind'] === 'queue_pg_workers')
    .sort((a, b) => num(a['workers']) - num(b['workers']));
  if (rows.length === 0) return [];
  const rates = rows.map((r, i) => {
    const before = rows[i - 1];
    const step = before === undefined ? '' : ` (${(num(r['jobs_per_sec']) / num(before['jobs_per_sec'])).toFixed(2)}×)`;
    return `${show(r['workers'])}: ${f1(r['jobs_per_sec'])} jobs/s${step}, CPU ms per job workers ${show(at(r, 'cpu_ms_per_job', 'workers'))} / PostgreSQL ${show(at(r, 'cpu_ms_per_job', 'postgres'))}`;
  });
  return [
    `\nThe job queue alone in K worker processes, nothing of Interlock (${show(rows[0]?.['options'])}; N=${show(rows[0]?.['n'])}, ${show(rows[0]?.['in_flight'])} in flight), each rate against the one before: ${rates.join('; ')}.`,
  ];
}

// `node dist/collect.js [dir]`: the peers' figures and the 100k record always come from bench/results.
if (process.argv[1]?.endsWith('collect.js')) {
  const benchResults = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', 'results');
  writeCollected(path.resolve(process.argv[2] ?? benchResults), benchResults);
}
