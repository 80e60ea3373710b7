#!/usr/bin/env node
/**
 * Issue 38's ratios as the median of interleaved pairs: one run swings by 1.5× on a shared
 * 2-core machine, so each pair runs the peer's step and then Interlock's, as separate
 * processes one right after the other (both see the same load), and the ratio is taken per
 * pair. Prints one JSON line per pair and one summary line per comparison.
 *
 *   cd bench && node scripts/pairs.mjs [--pairs 5] [--n 1000] [--only sqlite-normal,memory,...] [--peers DIR]
 *
 * Comparisons: `sqlite-normal` and `sqlite-full` (Interlock at synchronous NORMAL / FULL)
 * against the OpenAI Agents SDK's SQLite run; `memory` against its memory run; and, when
 * INTERLOCK_BENCH_POSTGRES_URL is set, `pg-1` (one worker) against graphile-worker's no-op
 * jobs (`queue-pg`, PG_N round trips, default 300). The peers' harness is PEERS_DIR (default
 * ../../shared/bench/peers, with its node_modules installed); it runs in a scratch directory.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const benchDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const flags = {};
const argv = process.argv.slice(2);
for (let i = 0; i < argv.length; i += 2) flags[argv[i].replace(/^--/, '')] = argv[i + 1];
const pairs = Number(flags.pairs ?? 5);
const n = String(flags.n ?? 1000);
const pgN = String(process.env.PG_N ?? 300);
const peers = path.resolve(
  flags.peers ?? process.env.PEERS_DIR ?? path.join(benchDir, '..', '..', 'shared', 'bench', 'peers'),
);
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'interlock-pairs-'));
const pgUrl = process.env.INTERLOCK_BENCH_POSTGRES_URL;

const interlock = (...args) => ({ cwd: benchDir, args: ['--expose-gc', 'dist/run.js', ...args, '--results', scratch] });
const peer = (...args) => ({ cwd: scratch, args: [path.join(peers, 'openai-agents.mjs'), ...args] });
const comparisons = {
  'sqlite-normal': {
    peer: peer('seq', '--store', 'sqlite', '--n', n),
    ours: interlock('seq', '--store', 'sqlite', '--synchronous', 'normal', '--n', n),
  },
  'sqlite-full': {
    peer: peer('seq', '--store', 'sqlite', '--n', n),
    ours: interlock('seq', '--store', 'sqlite', '--synchronous', 'full', '--n', n),
  },
  memory: { peer: peer('seq', '--store', 'memory', '--n', n), ours: interlock('seq', '--store', 'memory', '--n', n) },
  ...(pgUrl === undefined
    ? {}
    : {
        'pg-1': {
          peer: interlock('queue-pg', '--n', pgN, '--warmup', '20'),
          ours: interlock('workers-pg', '--workers', '1', '--n', pgN, '--warmup', '20'),
        },
      }),
};
const only = flags.only?.split(',');

/** The rate a step's output reports: threads/s of its sequential record, or round trips (jobs) per second. */
function rate(step) {
  const result = spawnSync(process.execPath, step.args, { cwd: step.cwd, encoding: 'utf8', env: process.env });
  const records = result.stdout
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line));
  const failed = records.find((record) => record.kind === 'correctness' && record.pass === false);
  const measured = records.find((record) => ['sequential', 'workers_pg', 'queue_pg'].includes(record.kind));
  if (result.status !== 0 || failed !== undefined || measured === undefined)
    throw new Error(`${step.args.join(' ')} failed (exit ${result.status}):\n${result.stderr.slice(-2000)}`);
  return {
    rate: measured.threads_per_sec ?? measured.round_trips_per_sec ?? measured.jobs_per_sec,
    cpu:
      typeof measured.cpu_ms_per_round_trip === 'number'
        ? measured.cpu_ms_per_round_trip
        : measured.cpu_ms_per_round_trip?.node,
  };
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};
const round = (value, places = 2) => Math.round(value * 10 ** places) / 10 ** places;

for (const [name, comparison] of Object.entries(comparisons)) {
  if (only !== undefined && !only.includes(name)) continue;
  const ratios = [];
  for (let pair = 1; pair <= pairs; pair += 1) {
    const theirs = rate(comparison.peer);
    const ours = rate(comparison.ours);
    const ratio = ours.rate / theirs.rate;
    ratios.push(ratio);
    const load = os.loadavg()[0];
    console.log(
      JSON.stringify({
        kind: 'pair',
        comparison: name,
        pair,
        peer: theirs.rate,
        interlock: ours.rate,
        interlock_cpu_ms_per_round_trip: ours.cpu,
        ratio: round(ratio),
        load_1m: round(load, 1),
      }),
    );
  }
  console.log(
    JSON.stringify({
      kind: 'pairs',
      comparison: name,
      pairs,
      n: name === 'pg-1' ? Number(pgN) : Number(n),
      median_ratio: round(median(ratios)),
      ratios: ratios.map((r) => round(r)),
      node: process.version,
      run_at: new Date().toISOString(),
    }),
  );
}
fs.rmSync(scratch, { recursive: true, force: true });
