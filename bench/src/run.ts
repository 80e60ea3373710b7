/**
 * One measurement in this process: `node --expose-gc dist/run.js <mode> [--n N] [--warmup W]
 * [--store sqlite|memory] [--synchronous full|normal] [--group-commit true|false]
 * [--phase suspend|resume] [--db file] [--sample S] [--batch B] [--workers K]`; `workers-pg` and
 * `queue-pg` run on INTERLOCK_BENCH_POSTGRES_URL (`queue-pg --workers K`: the queue alone in K
 * processes, as Interlock's workers run it). The SQLite store's options
 * default to core's (synchronous FULL, no group commit).
 * Prints one JSON object per line; the exit code says whether its checks passed.
 */
import fs from 'node:fs';
import path from 'node:path';
import { emit } from './common.js';
import {
  modeCommits,
  modeDurable,
  modeFanout,
  modeFsync,
  modeScale,
  modeSeq,
  type RunOptions,
} from './measure-round-trip.js';
import { modeInspect } from './inspect-thread.js';
import { modeMicro } from './micro.js';
import { modeQueuePg, modeWorkersPg } from './workers-pg.js';
import { modeQueueWorkersPg } from './queue-workers-pg.js';

function parseArguments(argv: string[]): { mode: string; flags: Record<string, string> } {
  const flags: Record<string, string> = {};
  for (let i = 1; i < argv.length; i += 2) flags[(argv[i] ?? '').replace(/^--/, '')] = argv[i + 1] ?? '';
  return { mode: argv[0] ?? '', flags };
}

function synchronousFlag(value: string): 'full' | 'normal' {
  if (value === 'full' || value === 'normal') return value;
  console.error(`--synchronous is full or normal, not ${value}`);
  process.exit(2);
}

const { mode, flags } = parseArguments(process.argv.slice(2));
const resultsDir = path.resolve(flags['results'] ?? 'results');
fs.mkdirSync(resultsDir, { recursive: true });
const options: RunOptions = {
  n: Number(flags['n'] ?? 1000),
  warmup: Number(flags['warmup'] ?? 50),
  store: flags['store'] === 'memory' ? 'memory' : 'sqlite',
  resultsDir,
  ...(flags['db'] === undefined ? {} : { db: flags['db'] }),
  ...(flags['phase'] === undefined ? {} : { phase: flags['phase'] }),
  ...(flags['sample'] === undefined ? {} : { scaleSample: Number(flags['sample']) }),
  ...(flags['batch'] === undefined ? {} : { batch: Number(flags['batch']) }),
  ...(flags['synchronous'] === undefined ? {} : { synchronous: synchronousFlag(flags['synchronous']) }),
  ...(flags['group-commit'] === undefined ? {} : { groupCommit: flags['group-commit'] === 'true' }),
};

const modes: Record<string, (options: RunOptions) => Promise<boolean> | boolean> = {
  seq: modeSeq,
  fanout: modeFanout,
  durable: modeDurable,
  scale: modeScale,
  commits: modeCommits,
  fsync: modeFsync,
  inspect: modeInspect,
  micro: modeMicro,
  'workers-pg': () =>
    modeWorkersPg({ url: postgresUrl(), n: options.n, warmup: options.warmup, workers: Number(flags['workers'] ?? 1) }),
  'queue-pg': () =>
    flags['workers'] === undefined
      ? modeQueuePg({ url: postgresUrl(), n: options.n, warmup: options.warmup })
      : modeQueueWorkersPg({
          url: postgresUrl(),
          n: options.n,
          warmup: options.warmup,
          workers: Number(flags['workers']),
        }),
};

function postgresUrl(): string {
  const url = process.env['INTERLOCK_BENCH_POSTGRES_URL'];
  if (!url) {
    console.error(
      'the PostgreSQL steps need INTERLOCK_BENCH_POSTGRES_URL (pnpm bench starts a server on 127.0.0.1:54351 when it is not set)',
    );
    process.exit(2);
  }
  return url;
}
const run = modes[mode];
if (!run) {
  console.error(`unknown mode ${mode}; one of ${Object.keys(modes).join(', ')}`);
  process.exit(2);
}
try {
  process.exitCode = (await run(options)) ? 0 : 1;
} catch (error) {
  emit({
    kind: 'error',
    engine: 'interlock',
    variant: 'llm-tool-approval',
    saver: options.store,
    store_options: { synchronous: options.synchronous ?? 'full', groupCommit: options.groupCommit ?? false },
    mode,
    error: error instanceof Error ? (error.stack ?? String(error)) : String(error),
  });
  process.exitCode = 1;
}
