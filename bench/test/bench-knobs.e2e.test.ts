import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { spawnProcessGroup } from '@interlock/core/testing';

const BENCH_DIRECTORY = fileURLToPath(new URL('..', import.meta.url));
const SOURCE_DIRECTORY = path.join(BENCH_DIRECTORY, 'src');
const DEFAULT_RESULTS = path.join(BENCH_DIRECTORY, 'results');
const BUILT_MAIN = path.join(BENCH_DIRECTORY, 'dist', 'main.js');
const TURBO_JSON = path.join(BENCH_DIRECTORY, '..', 'turbo.json');

/**
 * Set by the bench for the processes it starts itself (workers-pg.ts hands them to
 * pg-worker.ts), never by the person running `pnpm bench`: turbo need not pass them.
 */
const SET_BY_THE_BENCH = new Set(['BENCH_PG_URL', 'BENCH_PG_SCHEMA']);

/** Every environment variable the bench's sources read: `process.env['X']`, `process.env.X`, main.ts's `env('X', …)`. */
function environmentReads(): Map<string, string[]> {
  const reads = new Map<string, string[]>();
  const patterns = [
    /process\.env\[['"]([A-Z0-9_]+)['"]\]/g,
    /process\.env\.([A-Z0-9_]+)/g,
    /\benv\(['"]([A-Z0-9_]+)['"]/g,
  ];
  for (const file of readdirSync(SOURCE_DIRECTORY)) {
    if (!file.endsWith('.ts') || file.endsWith('.test.ts')) continue;
    const text = readFileSync(path.join(SOURCE_DIRECTORY, file), 'utf8');
    for (const pattern of patterns) {
      for (const match of text.matchAll(pattern)) {
        const name = match[1];
        if (name === undefined) continue;
        reads.set(name, [...new Set([...(reads.get(name) ?? []), file])]);
      }
    }
  }
  return reads;
}

/** The variables turbo passes to the `bench` task (turbo 2 runs tasks in strict env mode: nothing else reaches them). */
function passThroughEnv(): string[] {
  const turbo = JSON.parse(readFileSync(TURBO_JSON, 'utf8')) as {
    tasks?: Record<string, { passThroughEnv?: string[] }>;
  };
  return turbo.tasks?.['bench']?.passThroughEnv ?? [];
}

/** Each file of a directory tree with its size and modification time, to prove a run left it alone. */
function snapshot(directory: string): Record<string, string> {
  const entries: Record<string, string> = {};
  if (!existsSync(directory)) return entries;
  for (const name of readdirSync(directory, { recursive: true, encoding: 'utf8' })) {
    const stats = statSync(path.join(directory, name));
    if (stats.isFile()) entries[name] = `${stats.size}:${stats.mtimeMs}`;
  }
  return entries;
}

function runBench(environment: Record<string, string>): Promise<{ exitCode: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawnProcessGroup(process.execPath, [BUILT_MAIN], {
      cwd: BENCH_DIRECTORY,
      env: { ...process.env, ...environment },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.on('error', reject);
    child.on('close', (exitCode) => resolve({ exitCode, stderr }));
  });
}

let temporary: string | undefined;

afterEach(() => {
  if (temporary !== undefined) rmSync(temporary, { recursive: true, force: true });
  temporary = undefined;
});

describe('pnpm bench knobs (issue 15)', () => {
  it('passes every environment variable the bench reads through turbo, and lists none it does not read', () => {
    const reads = environmentReads();
    const passed = passThroughEnv();
    const knobs = [...reads.keys()].filter((name) => !SET_BY_THE_BENCH.has(name));
    // A sanity check on the scan itself: main.ts's knobs are found.
    expect(knobs).toEqual(expect.arrayContaining(['N', 'ONLY', 'RESULTS_DIR', 'PEERS_DIR']));
    const notPassed = knobs
      .filter((name) => !passed.includes(name))
      .map((name) => `${name} (read in ${reads.get(name)?.join(', ')})`);
    expect(notPassed, 'add these to tasks.bench.passThroughEnv in turbo.json').toEqual([]);
    expect(
      passed.filter((name) => !reads.has(name)),
      'turbo.json passes knobs the bench no longer reads',
    ).toEqual([]);
  });

  it('writes a run under RESULTS_DIR and leaves bench/results alone', async () => {
    if (!existsSync(BUILT_MAIN)) {
      throw new Error(
        `${BUILT_MAIN} does not exist: build first with \`pnpm --filter @interlock/bench build\` (root \`pnpm test\` builds everything)`,
      );
    }
    temporary = mkdtempSync(path.join(tmpdir(), 'interlock-bench-'));
    const resultsDirectory = path.join(temporary, 'results');
    const before = snapshot(DEFAULT_RESULTS);

    // `inspect` is the quickest step that writes a file of its own (one thread, a few seconds).
    const run = await runBench({
      RESULTS_DIR: resultsDirectory,
      ONLY: 'inspect',
      PEERS_DIR: path.join(temporary, 'no-peers'),
    });

    expect(run.exitCode, run.stderr).toBe(0);
    const written = readdirSync(resultsDirectory);
    expect(written).toEqual(
      expect.arrayContaining(['interlock.jsonl', 'interlock.json', 'summary.md', 'interlock-inspect.json']),
    );
    const steps = readFileSync(path.join(resultsDirectory, 'interlock.jsonl'), 'utf8')
      .split('\n')
      .filter((line) => line.trim() !== '')
      .map((line) => (JSON.parse(line) as { step?: string }).step);
    expect(steps).toEqual(['mirror', 'inspect']);
    expect(snapshot(DEFAULT_RESULTS)).toEqual(before);
  }, 60_000);
});
