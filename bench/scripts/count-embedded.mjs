#!/usr/bin/env node
/**
 * Issue 18: counts per approval round trip (load-independent, unlike CPU time on a shared box).
 *
 *   cd bench && node --expose-gc scripts/count-embedded.mjs --store memory|sqlite [--synchronous normal|full] [--n 200] [--warmup 20]
 *
 * After WARMUP round trips on a throw-away store, N sequential round trips on a fresh store
 * (the same start / approve as `run.js seq`), counting per round trip: store method calls,
 * SQL statements (sqlite: every Statement#run/get/all, BEGIN/COMMIT/SAVEPOINT included),
 * crypto.createHash calls and the bytes fed to them, JSON.stringify / JSON.parse calls and
 * their bytes, structuredClone calls, events published on the run's bus (subscribed through
 * the thread handles is not possible from outside: counted as Date#toISOString calls, which
 * every event and record stamp makes), AbortController creations and timers. Wrappers add
 * cost: never time this.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const dist = path.resolve(here, '..', 'dist');
const { createEngine, startThread, approveThread, requireFromCore } = await import(path.join(dist, 'scenario.js'));
const { resetToolEffects, rmDb } = await import(path.join(dist, 'common.js'));
const { labelStoreMethods } = await import(path.join(dist, 'sqlite-probe.js'));

const flags = {};
const argv = process.argv.slice(2);
for (let i = 0; i < argv.length; i += 2) flags[argv[i].replace(/^--/, '')] = argv[i + 1];
const store = flags.store === 'sqlite' ? 'sqlite' : 'memory';
const n = Number(flags.n ?? 200);
const warmupN = Number(flags.warmup ?? 20);
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'interlock-count-'));

let on = false;
const counts = new Map();
const add = (key, by = 1) => {
  if (on) counts.set(key, (counts.get(key) ?? 0) + by);
};
const wrap = (object, name, key, measure) => {
  const original = object[name];
  object[name] = function (...args) {
    if (on) {
      add(`${key} calls`);
      if (measure) add(`${key} bytes`, measure(args, this));
    }
    return original.apply(this, args);
  };
};

// JSON and structuredClone
const stringify = JSON.stringify;
JSON.stringify = function (...args) {
  const out = stringify.apply(this, args);
  if (on) {
    add('JSON.stringify calls');
    add('JSON.stringify bytes', typeof out === 'string' ? out.length : 0);
  }
  return out;
};
wrap(JSON, 'parse', 'JSON.parse', (args) => (typeof args[0] === 'string' ? args[0].length : 0));
wrap(globalThis, 'structuredClone', 'structuredClone');
// Hashing: createHash and what is hashed
const createHash = crypto.createHash;
crypto.createHash = function (...args) {
  const hash = createHash.apply(this, args);
  if (on) {
    add(`createHash(${args[0]}) calls`);
    const update = hash.update;
    hash.update = function (data, ...rest) {
      add('hash bytes', typeof data === 'string' ? Buffer.byteLength(data) : (data?.length ?? 0));
      return update.call(this, data, ...rest);
    };
  }
  return hash;
};
syncBuiltinESMExports(); // core imports { createHash } from 'node:crypto'
wrap(Date.prototype, 'toISOString', 'Date#toISOString');
wrap(globalThis, 'setTimeout', 'setTimeout');
wrap(globalThis, 'setImmediate', 'setImmediate');
wrap(globalThis, 'setInterval', 'setInterval');
const AC = globalThis.AbortController;
globalThis.AbortController = class extends AC {
  constructor() {
    super();
    add('new AbortController');
  }
};
// SQL statements (the better-sqlite3 that core loads)
if (store === 'sqlite') {
  const Database = requireFromCore('better-sqlite3');
  const probeDb = new Database(':memory:');
  const statementProto = Object.getPrototypeOf(probeDb.prepare('SELECT 1'));
  probeDb.close();
  for (const method of ['run', 'get', 'all', 'iterate']) {
    const original = statementProto[method];
    statementProto[method] = function (...args) {
      if (!on) return original.apply(this, args);
      const head = this.source.trim().split(/\s+/)[0].toUpperCase();
      add('SQL statements');
      add(`SQL ${head}`);
      const t = process.hrtime.bigint();
      try {
        return original.apply(this, args);
      } finally {
        add(`SQL ${head} µs (wall, inside better-sqlite3)`, Number(process.hrtime.bigint() - t) / 1000);
      }
    };
  }
  wrap(Database.prototype, 'prepare', 'Database#prepare');
}

const sqliteOptions = store === 'sqlite' ? { synchronous: flags.synchronous === 'full' ? 'full' : 'normal' } : {};
async function fresh(file) {
  if (store === 'sqlite') rmDb(file);
  return createEngine(store, file, sqliteOptions);
}
{
  const file = path.join(dir, 'warmup.db');
  const engine = await fresh(file);
  for (let i = 0; i < warmupN; i++) {
    await startThread(engine, 1_000_000 + i);
    await approveThread(engine, 1_000_000 + i);
  }
  await engine.interlock.close();
  resetToolEffects();
}
const engine = await fresh(path.join(dir, 'count.db'));
const calls = labelStoreMethods(engine.store);
calls.clear();
on = true;
for (let i = 0; i < n; i++) {
  await startThread(engine, i);
  await approveThread(engine, i);
}
await new Promise((resolve) => setImmediate(resolve));
on = false;
await engine.interlock.close();
fs.rmSync(dir, { recursive: true, force: true });
const per = (x) => Math.round((x / n) * 100) / 100;
console.log(
  JSON.stringify(
    {
      kind: 'counts_per_round_trip',
      store,
      n,
      counts: Object.fromEntries([...counts].sort((a, b) => a[0].localeCompare(b[0])).map(([k, v]) => [k, per(v)])),
      store_calls: Object.fromEntries([...calls].sort((a, b) => b[1] - a[1]).map(([k, v]) => [k, per(v)])),
    },
    null,
    1,
  ),
);
