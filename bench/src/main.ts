/**
 * `pnpm bench`: every measurement of the approval round trip (../shared/bench/SCENARIO.md)
 * in its own `node --expose-gc` process, under `/usr/bin/time -v` when it exists, then
 * results/interlock.jsonl (one record per line, the peers' shapes with engine "interlock"),
 * results/interlock.json and results/summary.md.
 *
 * Knobs (environment): N=1000, WARMUP=50, DURABLE_N=50, SCALE_N=10000, SCALE_SAMPLE=1000,
 * COMMITS_N=200, FSYNC_N=2000, MICRO_N=1000, PG_N=300 (the PostgreSQL steps, on
 * INTERLOCK_BENCH_POSTGRES_URL or a server started on port 54351; BENCH_PG_TRACE=1 prints on stderr
 * what each side sends per round trip, statement by statement), QUEUE_N=2000 (the job queue alone
 * in 1, 2 and 4 worker processes), ONLY=seq,fanout,… (step-name prefixes),
 * PROFILE=1 (also a --cpu-prof run of seq), PEERS_DIR (default ../../shared/bench/peers,
 * for the mirror check of common.ts), RESULTS_DIR (default results/: a smoke run can write
 * elsewhere; the peers' figures and the separate 100k record are always read from
 * results/).
 *
 * The SQLite store runs with core's defaults (synchronous FULL, no group commit) unless a
 * step says otherwise: seq-sqlite-normal (synchronous NORMAL, like for like with the
 * peers) and fanout-group (group commit) are separately labelled rows.
 */
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { checkCommonMirror } from './mirror-check.js';
import { writeCollected } from './collect.js';
import { profileSequential } from './profile.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const benchDir = path.resolve(here, '..');
const benchResultsDir = path.join(benchDir, 'results');
const env = (name: string, fallback: string) =>
  process.env[name] === undefined || process.env[name] === '' ? fallback : process.env[name];

const N = env('N', '1000');
const WARMUP = env('WARMUP', '50');
const DURABLE_N = env('DURABLE_N', '50');
const SCALE_N = env('SCALE_N', '10000');
const SCALE_SAMPLE = env('SCALE_SAMPLE', '1000');
const resultsDir = path.resolve(env('RESULTS_DIR', benchResultsDir));
if (process.env['FULL_N'] !== undefined)
  process.stderr.write("FULL_N is gone: seq-sqlite runs at synchronous FULL (core's default) with N\n");
const COMMITS_N = env('COMMITS_N', '200');
const FSYNC_N = env('FSYNC_N', '2000');
const MICRO_N = env('MICRO_N', '1000');
const PG_N = env('PG_N', '300');
const QUEUE_N = env('QUEUE_N', '2000');
const ONLY = env('ONLY', '')
  .split(',')
  .map((s) => s.trim())
  .filter(Boolean);

const steps: [string, string[]][] = [
  ['inspect', ['inspect']],
  ['fsync', ['fsync', '--n', FSYNC_N]],
  ['seq-sqlite', ['seq', '--store', 'sqlite', '--n', N, '--warmup', WARMUP]],
  ['seq-sqlite-normal', ['seq', '--store', 'sqlite', '--synchronous', 'normal', '--n', N, '--warmup', WARMUP]],
  ['seq-memory', ['seq', '--store', 'memory', '--n', N, '--warmup', WARMUP]],
  ['fanout', ['fanout', '--store', 'sqlite', '--n', N, '--warmup', WARMUP]],
  ['fanout-group', ['fanout', '--store', 'sqlite', '--group-commit', 'true', '--n', N, '--warmup', WARMUP]],
  ['durable-suspend', ['durable', '--phase', 'suspend', '--n', DURABLE_N]],
  ['durable-resume', ['durable', '--phase', 'resume', '--n', DURABLE_N]],
  ['commits', ['commits', '--store', 'sqlite', '--n', COMMITS_N, '--warmup', WARMUP]],
  ['scale', ['scale', '--n', SCALE_N, '--sample', SCALE_SAMPLE, '--warmup', WARMUP]],
  ['micro', ['micro', '--n', MICRO_N]],
  ['workers-pg-1', ['workers-pg', '--workers', '1', '--n', PG_N, '--warmup', '20']],
  ['workers-pg-2', ['workers-pg', '--workers', '2', '--n', PG_N, '--warmup', '20']],
  ['workers-pg-4', ['workers-pg', '--workers', '4', '--n', PG_N, '--warmup', '20']],
  ['queue-pg', ['queue-pg', '--n', PG_N, '--warmup', '20']],
  ['queue-pg-workers-1', ['queue-pg', '--workers', '1', '--n', QUEUE_N, '--warmup', '200']],
  ['queue-pg-workers-2', ['queue-pg', '--workers', '2', '--n', QUEUE_N, '--warmup', '200']],
  ['queue-pg-workers-4', ['queue-pg', '--workers', '4', '--n', QUEUE_N, '--warmup', '200']],
];

const PG_SCRIPT = path.join(benchDir, '..', 'scripts', 'start-postgres.sh');
const PG_ENV = { ...process.env, INTERLOCK_PG_PORT: '54351' };

/**
 * The PostgreSQL steps' server: INTERLOCK_BENCH_POSTGRES_URL, or one started on 127.0.0.1:54351
 * by scripts/start-postgres.sh (which installs Debian's postgresql if it is missing). Returns
 * whether this call started it: the bench then stops it when it is done.
 */
function ensurePostgres(): boolean {
  if (process.env['INTERLOCK_BENCH_POSTGRES_URL']) return false;
  const started = spawnSync('bash', [PG_SCRIPT], {
    env: PG_ENV,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  // stdout is null when bash could not be started at all (started.error).
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- see above
  const url = /INTERLOCK_TEST_POSTGRES_URL=(\S+)/.exec(started.stdout ?? '')?.[1];
  if (started.status !== 0 || url === undefined)
    throw new Error('could not start PostgreSQL for the workers-pg steps: set INTERLOCK_BENCH_POSTGRES_URL');
  process.env['INTERLOCK_BENCH_POSTGRES_URL'] = url;
  return /INTERLOCK_PG_STARTED=1/.test(started.stdout);
}

const TIME = '/usr/bin/time';
const haveTime = fs.existsSync(TIME);

/** Tags a record with the step that wrote it and when this `pnpm bench` started (for partial reruns). */
const runAt = new Date().toISOString();
function tagged(line: string, step: string): string {
  try {
    return JSON.stringify({ step, run_at: runAt, ...(JSON.parse(line) as Record<string, unknown>) });
  } catch {
    return line;
  }
}

function runStep(name: string, args: string[], jsonl: string): Promise<number> {
  const node = [process.execPath, '--expose-gc', path.join(here, 'run.js'), ...args, '--results', resultsDir];
  const [command, ...commandArgs] = haveTime
    ? [TIME, '-v', '-o', path.join(resultsDir, `time-interlock-${name}.txt`), ...node]
    : node;
  process.stderr.write(`## interlock-${name}\n`);
  const started = Date.now();
  return new Promise((resolve) => {
    const child = spawn(command as string, commandArgs, { cwd: benchDir, stdio: ['ignore', 'pipe', 'inherit'] });
    let pending = '';
    child.stdout.on('data', (chunk: Buffer) => {
      pending += chunk.toString();
      const lines = pending.split('\n');
      pending = lines.pop() ?? '';
      for (const line of lines) {
        process.stdout.write(line + '\n');
        if (line.trim().startsWith('{')) fs.appendFileSync(jsonl, tagged(line, name) + '\n');
      }
    });
    child.on('close', (code, signal) => {
      if (pending.trim().startsWith('{')) fs.appendFileSync(jsonl, tagged(pending, name) + '\n');
      process.stderr.write(`## interlock-${name} took ${Date.now() - started} ms, exit ${code ?? signal ?? '?'}\n`);
      resolve(code ?? 1);
    });
  });
}

fs.mkdirSync(resultsDir, { recursive: true });
const selected = steps.filter(([name]) => ONLY.length === 0 || ONLY.some((prefix) => name.startsWith(prefix)));
const jsonl = path.join(resultsDir, 'interlock.jsonl');
if (ONLY.length === 0) {
  fs.writeFileSync(jsonl, '');
  for (const file of fs.readdirSync(resultsDir))
    if (file.startsWith('time-interlock-')) fs.rmSync(path.join(resultsDir, file));
} else {
  // A partial run replaces only the records of the steps it runs.
  const kept = fs.existsSync(jsonl)
    ? fs
        .readFileSync(jsonl, 'utf8')
        .split('\n')
        .filter((line) => line.trim() !== '')
    : [];
  const rerun = new Set(['mirror', ...selected.map(([name]) => name)]);
  fs.writeFileSync(
    jsonl,
    kept
      .filter((line) => !rerun.has(stepOf(JSON.parse(line) as Record<string, unknown>)))
      .map((line) => line + '\n')
      .join(''),
  );
}

/** Which step wrote a record (for partial reruns): its tag, or for untagged records of older runs, a guess. */
function stepOf(record: Record<string, unknown>): string {
  if (typeof record['step'] === 'string') return record['step'];
  switch (record['kind']) {
    case 'inspect':
      return 'inspect';
    case 'fsync_bound':
      return 'fsync';
    case 'sequential':
      return record['saver'] === 'memory' ? 'seq-memory' : record['durability'] ? 'seq-sqlite-full' : 'seq-sqlite';
    case 'fanout':
    case 'storage':
      return 'fanout';
    case 'durable':
      return record['phase'] === 'suspend' ? 'durable-suspend' : 'durable-resume';
    case 'commits':
      return 'commits';
    case 'scale':
      return 'scale';
    case 'micro':
      return 'micro';
    case 'workers_pg':
      return `workers-pg-${String(record['workers'])}`;
    case 'queue_pg':
      return 'queue-pg';
    case 'queue_pg_workers':
      return `queue-pg-workers-${String(record['workers'])}`;
    case 'mirror_check':
      return 'mirror';
    case 'correctness': {
      const section = record['section'];
      if (section === 'sequential')
        return record['saver'] === 'memory' ? 'seq-memory' : record['durability'] ? 'seq-sqlite-full' : 'seq-sqlite';
      if (section === 'cross_process_resume') return 'durable-resume';
      return String(section);
    }
    default:
      return '';
  }
}

const mirror = {
  step: 'mirror',
  run_at: runAt,
  ...(await checkCommonMirror(
    path.resolve(env('PEERS_DIR', path.join(benchDir, '..', '..', 'shared', 'bench', 'peers'))),
  )),
};
fs.appendFileSync(jsonl, JSON.stringify(mirror) + '\n');
process.stdout.write(JSON.stringify(mirror) + '\n');

const failed: string[] = [];
const startedAll = Date.now();
const startedPostgres = selected.some(([name]) => name.endsWith('-pg') || name.includes('-pg-')) && ensurePostgres();
try {
  for (const [name, args] of selected) if ((await runStep(name, args, jsonl)) !== 0) failed.push(name);
} finally {
  // A server this bench started is not left running; one that was there before is left alone.
  if (startedPostgres) spawnSync('bash', [PG_SCRIPT, 'stop'], { env: PG_ENV, stdio: ['ignore', 'ignore', 'inherit'] });
}
if (process.env['PROFILE'] === '1') await profileSequential(here, resultsDir, N, WARMUP);
writeCollected(resultsDir, benchResultsDir);
process.stderr.write(`## all steps took ${Math.round((Date.now() - startedAll) / 1000)} s\n`);
if (failed.length > 0) {
  process.stderr.write(`FAILED steps: ${failed.join(' ')}\n`);
  process.exitCode = 1;
}
