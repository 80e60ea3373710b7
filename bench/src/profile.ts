/**
 * `PROFILE=1 pnpm bench` (or `node dist/profile.js`): the sequential SQLite round trip under
 * `node --cpu-prof`; self time by function and by file/package, written to
 * results/interlock-profile.json (the .cpuprofile itself stays in the OS temp directory).
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
}
interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

/** Where a frame's code lives: a package name, "interlock-core", "bench", "node:…", or a category. */
function ownerOf(url: string, name: string): string {
  if (url === '') return name.startsWith('(') ? name : '(native)';
  if (url.startsWith('node:')) return url;
  const pnpm = /node_modules\/\.pnpm\/[^/]+\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url);
  if (pnpm) return pnpm[1] ?? url;
  const plain = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url);
  if (plain) return plain[1] ?? url;
  const core = /packages\/core\/dist\/(.*)$/.exec(url);
  if (core) return `@interlock/core`;
  if (url.includes('/bench/dist/')) return 'bench';
  return url;
}

function shortFile(url: string): string {
  const core = /packages\/core\/dist\/(.*)$/.exec(url);
  if (core) return `core/${core[1] ?? ''}`;
  const pkg = /node_modules\/(?:\.pnpm\/[^/]+\/node_modules\/)?((?:@[^/]+\/)?[^/]+\/.*)$/.exec(url);
  if (pkg) return pkg[1] ?? url;
  return url.replace(/^file:\/\/\/work\/main\//, '');
}

export function summarizeProfile(profile: CpuProfile, top = 40): Record<string, unknown> {
  const selfUs = new Map<number, number>();
  for (let i = 0; i < profile.samples.length; i++) {
    const id = profile.samples[i] as number;
    selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
  }
  const total = [...selfUs.values()].reduce((a, b) => a + b, 0);
  const byFunction = new Map<string, number>();
  const byFile = new Map<string, number>();
  const byOwner = new Map<string, number>();
  for (const node of profile.nodes) {
    const us = selfUs.get(node.id) ?? 0;
    if (us === 0) continue;
    const { functionName, url, lineNumber } = node.callFrame;
    const name = functionName || '(anonymous)';
    const fn = `${name} ${url ? `${shortFile(url)}:${lineNumber + 1}` : ''}`.trim();
    byFunction.set(fn, (byFunction.get(fn) ?? 0) + us);
    const file = url ? shortFile(url) : name;
    byFile.set(file, (byFile.get(file) ?? 0) + us);
    const owner = ownerOf(url, name);
    byOwner.set(owner, (byOwner.get(owner) ?? 0) + us);
  }
  const rank = (map: Map<string, number>) =>
    [...map.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([key, us]) => ({ key, self_ms: Math.round(us / 1000), percent: Math.round((us / total) * 1000) / 10 }));
  return {
    total_ms: Math.round(total / 1000),
    by_owner: rank(byOwner),
    by_file: rank(byFile),
    by_function: rank(byFunction),
  };
}

export async function profileSequential(distDir: string, resultsDir: string, n: string, warmup: string): Promise<void> {
  const profileDir = fs.mkdtempSync(path.join(os.tmpdir(), 'interlock-cpuprof-'));
  process.stderr.write(`## interlock-profile (cpu profile in ${profileDir})\n`);
  const run = spawnSync(
    process.execPath,
    [
      '--expose-gc',
      '--cpu-prof',
      '--cpu-prof-dir',
      profileDir,
      path.join(distDir, 'run.js'),
      'seq',
      '--store',
      'sqlite',
      '--n',
      n,
      '--warmup',
      warmup,
      '--results',
      resultsDir,
    ],
    { encoding: 'utf8' },
  );
  const file = fs.readdirSync(profileDir).find((name) => name.endsWith('.cpuprofile'));
  if (!file) {
    process.stderr.write(`no profile written: ${run.stderr}\n`);
    return;
  }
  const profile = JSON.parse(fs.readFileSync(path.join(profileDir, file), 'utf8')) as CpuProfile;
  const sequential = run.stdout.split('\n').find((line) => line.includes('"kind":"sequential"'));
  const summary = {
    kind: 'cpu_profile',
    engine: 'interlock',
    run: `seq --store sqlite --n ${n} --warmup ${warmup} (whole process, warm-up included)`,
    sequential_under_profiler: sequential ? (JSON.parse(sequential) as Record<string, unknown>) : null,
    cpuprofile: path.join(profileDir, file),
    ...summarizeProfile(profile),
  };
  fs.writeFileSync(path.join(resultsDir, 'interlock-profile.json'), JSON.stringify(summary, null, 2) + '\n');
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const here = path.dirname(fileURLToPath(import.meta.url));
  await profileSequential(
    here,
    path.resolve(here, '..', 'results'),
    process.env['N'] ?? '1000',
    process.env['WARMUP'] ?? '50',
  );
}
