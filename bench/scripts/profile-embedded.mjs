#!/usr/bin/env node
/**
 * Issue 18: CPU per approval round trip on the embedded stores, and where it goes.
 *
 *   cd bench && node --expose-gc scripts/profile-embedded.mjs --store memory|sqlite \
 *     [--synchronous full|normal] [--n 1000] [--warmup 50] [--profile 1] [--interval 250] [--out /tmp/prof18]
 *
 * Uses the built harness (dist/scenario.js: the same workflow, model, tool, start and approve
 * as `run.js seq`). After WARMUP round trips on a throw-away store it runs N sequential round
 * trips on a fresh store and measures, for the loop only: process.cpuUsage() (user + system),
 * wall time, event-loop utilisation. With --profile 1 it also records a V8 CPU profile of the
 * loop only (node:inspector, sampling every --interval µs) and writes <out>/<name>.cpuprofile
 * and <out>/<name>.summary.json: self time by function, self time by layer, inclusive time by
 * layer (a sample counts once for every layer on its stack) and inclusive time by function.
 * CPU figures under the profiler are inflated by the sampling; take CPU per round trip from a
 * run with --profile 0 and the shares from the profile.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Session } from 'node:inspector/promises';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const dist = path.resolve(here, '..', 'dist');
function round(x, d = 3) {
  return Math.round(x * 10 ** d) / 10 ** d;
}
const { createEngine, startThread, approveThread, verifyAll } = await import(path.join(dist, 'scenario.js'));
const { resetToolEffects, rmDb } = await import(path.join(dist, 'common.js'));

const flags = {};
const argv = process.argv.slice(2);
for (let i = 0; i < argv.length; i += 2) flags[argv[i].replace(/^--/, '')] = argv[i + 1];
const store = flags.store === 'sqlite' ? 'sqlite' : 'memory';
const synchronous = flags.synchronous === 'normal' ? 'normal' : 'full';
const n = Number(flags.n ?? 1000);
const warmupN = Number(flags.warmup ?? 50);
const profile = flags.profile === '1';
const interval = Number(flags.interval ?? 250);
const out = path.resolve(flags.out ?? path.join(os.tmpdir(), 'interlock-prof18'));
fs.mkdirSync(out, { recursive: true });
if (flags.summarize) {
  // Re-summarize a profile written before: --summarize <file.cpuprofile> --n <round trips>
  const summary = summarize(JSON.parse(fs.readFileSync(flags.summarize, 'utf8')), n);
  fs.writeFileSync(flags.summarize.replace(/\.cpuprofile$/, '.summary.json'), JSON.stringify(summary, null, 2) + '\n');
  process.exit(0);
}
const name = `${store}${store === 'sqlite' ? `-${synchronous}` : ''}-n${n}`;
const sqliteOptions = store === 'sqlite' ? { synchronous } : {};

async function fresh(file) {
  if (store === 'sqlite') rmDb(file);
  return createEngine(store, file, sqliteOptions);
}

// Warm-up on a throw-away store (excluded), as run.js does.
{
  const file = path.join(out, `${name}-warmup.db`);
  const engine = await fresh(file);
  for (let i = 0; i < warmupN; i++) {
    await startThread(engine, 1_000_000 + i);
    await approveThread(engine, 1_000_000 + i);
  }
  await engine.interlock.close();
  if (store === 'sqlite') rmDb(file);
  resetToolEffects();
}

const file = path.join(out, `${name}.db`);
const engine = await fresh(file);
globalThis.gc?.();
let session;
if (profile) {
  session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval });
  await session.post('Profiler.start');
}
const elu0 = performance.eventLoopUtilization();
const cpu0 = process.cpuUsage();
const t0 = performance.now();
for (let i = 0; i < n; i++) {
  await startThread(engine, i);
  await approveThread(engine, i);
}
const wall = performance.now() - t0;
const cpu = process.cpuUsage(cpu0);
const elu = performance.eventLoopUtilization(elu0);
let cpuprofile;
if (session) {
  ({ profile: cpuprofile } = await session.post('Profiler.stop'));
  session.disconnect();
}
const verified = await verifyAll(engine, n);
await engine.interlock.close();
if (store === 'sqlite') rmDb(file);

const record = {
  kind: 'cpu_per_round_trip',
  store,
  ...(store === 'sqlite' ? { synchronous } : {}),
  n,
  warmup: warmupN,
  profiled: profile,
  wall_ms: round(wall, 1),
  threads_per_sec: round((n / wall) * 1000, 1),
  cpu_user_ms_per_round_trip: round(cpu.user / 1000 / n),
  cpu_system_ms_per_round_trip: round(cpu.system / 1000 / n),
  cpu_ms_per_round_trip: round((cpu.user + cpu.system) / 1000 / n),
  event_loop_utilization: round(elu.utilization),
  loadavg_1m: round(os.loadavg()[0], 2),
  verified_ok: verified.ok,
};
console.log(JSON.stringify(record));

if (cpuprofile) {
  fs.writeFileSync(path.join(out, `${name}.cpuprofile`), JSON.stringify(cpuprofile));
  const summary = { ...record, ...summarize(cpuprofile, n) };
  fs.writeFileSync(path.join(out, `${name}.summary.json`), JSON.stringify(summary, null, 2) + '\n');
  process.stderr.write(`wrote ${path.join(out, `${name}.summary.json`)}\n`);
}

/** The layer a frame belongs to, from its file (or, for native frames, its name); undefined = inherit from the caller. */
function layerOf(url, fn) {
  if (url === '') {
    if (fn === '(garbage collector)') return 'GC';
    if (fn === '(program)') return '(program: V8/native, no JS frame)';
    if (fn === '(idle)') return '(idle)';
    if (fn === 'stringify' || fn === 'parse') return 'JSON encode/decode (native)';
    return undefined; // other natives (better-sqlite3 run/get/all, crypto digest, Map/Array builtins): the caller's layer
  }
  const core = /packages\/core\/dist\/(.*)$/.exec(url);
  if (core) {
    const f = core[1];
    if (f.startsWith('persistence/sqlite/')) return 'store: sqlite (core JS)';
    if (f.startsWith('persistence/memory/')) return 'store: memory';
    if (f.startsWith('persistence/')) return 'store: shared (records, sql helpers)';
    if (f.startsWith('audit/')) return 'audit (hash chain)';
    if (f.startsWith('policy/')) return 'policy';
    if (f.startsWith('tools/') || f.startsWith('engine/executors/tool-node')) return 'tool-call pipeline';
    if (f.startsWith('events/')) return 'event bus';
    if (f.startsWith('interaction/')) return 'interaction gateway';
    if (f.startsWith('llm/')) return 'llm / model provider';
    if (f.startsWith('json/')) return 'json (strict parse)';
    if (f.startsWith('coordinators/')) return 'engine: coordinators';
    if (f.startsWith('engine/') || f.startsWith('workflow/') || f.startsWith('expressions/'))
      return 'engine: runner/graph';
    return `core: ${f.split('/')[0]}`;
  }
  const pkg = /node_modules\/(?:\.pnpm\/[^/]+\/node_modules\/)?((?:@[^/]+\/)?[^/]+)\//.exec(url);
  if (pkg) {
    const p = pkg[1];
    if (p === 'better-sqlite3') return 'better-sqlite3 (JS wrapper)';
    if (p === 'rxjs') return 'rxjs';
    if (p === 'zod') return 'zod';
    return `pkg: ${p}`;
  }
  if (url.includes('/bench/')) return 'bench harness';
  if (/node:internal\/crypto|node:crypto/.test(url)) return 'crypto (hashing)';
  if (/async_hooks|async_local_storage|task_queues|promise|timers/.test(url)) return 'node: async/timers plumbing';
  if (url.startsWith('node:')) return `node: ${url.replace(/^node:(internal\/)?/, '')}`;
  return url;
}

/** Native frames called from these layers get a layer of their own (the C side of the call). */
function nativeLayer(fn, parentLayer) {
  if (
    (parentLayer === 'better-sqlite3 (JS wrapper)' ||
      parentLayer === 'store: sqlite (core JS)' ||
      parentLayer === 'store: shared (records, sql helpers)') &&
    /^(run|get|all|iterate|exec|prepare|pragma|transaction|raw|pluck|bind)$/.test(fn)
  )
    return 'better-sqlite3 statements (native, SQLite C)';
  if (parentLayer === 'crypto (hashing)') return 'crypto (hashing)';
  return undefined;
}

function summarize(p, rounds) {
  const byId = new Map(p.nodes.map((node) => [node.id, node]));
  const parent = new Map();
  for (const node of p.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const layerCache = new Map();
  const resolvedLayer = (id) => {
    if (layerCache.has(id)) return layerCache.get(id);
    const node = byId.get(id);
    const { url, functionName } = node.callFrame;
    let layer = layerOf(url, functionName);
    if (layer === undefined) {
      const up = parent.get(id);
      const parentLayer = up === undefined ? '(root)' : resolvedLayer(up);
      layer = nativeLayer(functionName, parentLayer) ?? parentLayer;
    }
    layerCache.set(id, layer);
    return layer;
  };
  const label = (node) => {
    const { functionName, url, lineNumber } = node.callFrame;
    const file = url
      .replace(/^.*packages\/core\/dist\//, 'core/')
      .replace(/^.*node_modules\/(?:\.pnpm\/[^/]+\/node_modules\/)?/, '')
      .replace(/^file:\/\/.*\/bench\//, 'bench/');
    return `${functionName || '(anonymous)'}${url ? ` ${file}:${lineNumber + 1}` : ''}`;
  };
  const selfUs = new Map();
  for (let i = 0; i < p.samples.length; i++)
    selfUs.set(p.samples[i], (selfUs.get(p.samples[i]) ?? 0) + (p.timeDeltas[i] ?? 0));
  let total = 0;
  let idle = 0;
  const selfFn = new Map();
  const selfLayer = new Map();
  const inclLayer = new Map();
  const inclFn = new Map();
  for (const [id, us] of selfUs) {
    const node = byId.get(id);
    total += us;
    if (node.callFrame.functionName === '(idle)') idle += us;
    const fn = label(node);
    selfFn.set(fn, (selfFn.get(fn) ?? 0) + us);
    const layer = resolvedLayer(id);
    selfLayer.set(layer, (selfLayer.get(layer) ?? 0) + us);
    const layers = new Set();
    const fns = new Set();
    for (let at = id; at !== undefined; at = parent.get(at)) {
      layers.add(resolvedLayer(at));
      fns.add(label(byId.get(at)));
    }
    for (const l of layers) inclLayer.set(l, (inclLayer.get(l) ?? 0) + us);
    for (const f of fns) inclFn.set(f, (inclFn.get(f) ?? 0) + us);
  }
  const busy = total - idle;
  // One bucket per sample, by the first rule that matches (stack markers first, then the leaf's layer).
  const bucketUs = new Map();
  for (const [id, us] of selfUs) {
    const node = byId.get(id);
    if (node.callFrame.functionName === '(idle)') continue;
    const stack = [];
    for (let at = id; at !== undefined; at = parent.get(at)) stack.push(byId.get(at).callFrame);
    const has = (re, fn) => stack.some((f) => re.test(f.url) && (fn === undefined || fn.test(f.functionName)));
    const leaf = node.callFrame;
    const leafLayer = resolvedLayer(id);
    let bucket;
    if (has(/persistence\/sqlite\/sqlite-connection\.js$/, /^commit$/))
      bucket = 'SQLite COMMIT (WAL append + fsync), inclusive';
    else if (leafLayer === 'better-sqlite3 statements (native, SQLite C)')
      bucket = 'SQLite statements other than COMMIT (native)';
    else if (has(/node:crypto|node:internal\/crypto/)) bucket = 'sha256 hashing (createHash/update/digest)';
    else if (has(/policy\/canonical-arguments\.js$/)) bucket = 'canonical JSON of arguments (policy)';
    else if (/persistence\/sql\/stored-text\.js$/.test(leaf.url) || leafLayer === 'JSON encode/decode (native)')
      bucket = 'JSON encode/decode of stored rows (stored-text.js; JSON builtins are inlined into it)';
    else if (leafLayer === 'zod' || has(/node_modules\/.*zod\//)) bucket = 'zod parsing';
    else if (leafLayer === 'rxjs' || leafLayer === 'event bus') bucket = 'event bus / rxjs';
    else if (leafLayer.startsWith('store') || leafLayer.startsWith('better-sqlite3'))
      bucket = 'store JS (row mapping, statement glue, savepoints)';
    else if (leafLayer.startsWith('engine')) bucket = 'engine / coordinators';
    else bucket = leafLayer;
    bucketUs.set(bucket, (bucketUs.get(bucket) ?? 0) + us);
  }
  const rank = (map, top) =>
    [...map]
      .filter(([k]) => k !== '(idle)' && k !== '(root)' && k !== '(root) ')
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([key, us]) => ({
        key,
        ms_per_round_trip: round(us / 1000 / rounds, 4),
        percent_of_busy: round((us / busy) * 100, 1),
      }));
  return {
    profile_interval_us: interval,
    profile_samples: p.samples.length,
    profile_ms: round(total / 1000, 1),
    profile_busy_ms: round(busy / 1000, 1),
    profile_busy_ms_per_round_trip: round(busy / 1000 / rounds, 4),
    buckets: rank(bucketUs, 40),
    self_by_layer: rank(selfLayer, 40),
    inclusive_by_layer: rank(inclLayer, 40),
    self_by_function: rank(selfFn, 50),
    inclusive_by_function: rank(inclFn, 80),
  };
}
