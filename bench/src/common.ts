/**
 * The engine-neutral pieces of the "approval round trip" scenario, mirrored line for line
 * from `../shared/bench/peers/lib/common.mjs` (SCENARIO.md v1): the scripted tool
 * arguments, the out-of-band thread index, the tool effect, the nearest-rank percentiles
 * and the RSS sampler. It is a copy, not an import, because the project cannot depend on
 * a directory outside the repository; `pnpm bench` checks that `toolArgsFor` and
 * `summarize` give the same output as the peers' file when that file is present
 * (see `checkCommonMirror` in `mirror-check.ts`). Keep the two in sync.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { performance } from 'node:perf_hooks';
import fs from 'node:fs';
import path from 'node:path';

export const USER_PROMPT = 'please write the report';
export const TOOL_NAME = 'write_file';
export const FINAL_TEXT = 'done';
const FILLER = 'lorem ipsum dolor sit amet ';

export interface WriteFileArguments {
  path: string;
  content: string;
}

/** The scripted tool-call arguments for thread `i` (content is exactly 200 chars). */
export function toolArgsFor(i: number): WriteFileArguments {
  const head = `report ${i}: `;
  let content = head;
  while (content.length < 200) content += FILLER;
  content = content.slice(0, 200);
  return { path: `out/report-${i}.txt`, content };
}

/** Deterministic tool-call id for thread `i`. */
export const toolCallIdFor = (i: number): string => `call_${i}`;

/** The harness wraps every start/resume in `threadCtx.run({ threadIndex }, …)`; the fake model reads it. */
export const threadCtx = new AsyncLocalStorage<{ threadIndex: number }>();
export function currentThreadIndex(): number {
  const store = threadCtx.getStore();
  if (!store || typeof store.threadIndex !== 'number') {
    throw new Error('fake model called outside a thread context (async context lost)');
  }
  return store.threadIndex;
}

export type ScriptedTurnResult =
  { kind: 'text'; text: string } | { kind: 'tool_call'; id: string; name: string; args: WriteFileArguments };

/** After a tool result: "done"; otherwise exactly one write_file call with `toolArgsFor(i)`. */
export function scriptedTurn(lastMessageIsToolResult: boolean): ScriptedTurnResult {
  const i = currentThreadIndex();
  if (lastMessageIsToolResult) return { kind: 'text', text: FINAL_TEXT };
  return { kind: 'tool_call', id: toolCallIdFor(i), name: TOOL_NAME, args: toolArgsFor(i) };
}

/** The tool side effect: an in-memory counter (no disk I/O). */
export const toolEffects = { count: 0, perThread: new Map<number, number>() };
export function runWriteFileEffect(args: WriteFileArguments): string {
  toolEffects.count++;
  const match = /report-(\d+)\.txt$/.exec(args.path);
  const k = match ? Number(match[1]) : -1;
  toolEffects.perThread.set(k, (toolEffects.perThread.get(k) ?? 0) + 1);
  return `wrote ${args.content.length} chars to ${args.path}`;
}
export function resetToolEffects(): void {
  toolEffects.count = 0;
  toolEffects.perThread.clear();
}

export const now = (): number => performance.now();

/** Nearest-rank percentile of an ascending array. */
export function pct(sorted: ArrayLike<number>, p: number): number | null {
  if (sorted.length === 0) return null;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))] ?? null;
}

export interface Summary {
  n: number;
  p50_ms: number | null;
  p90_ms: number | null;
  p99_ms: number | null;
  max_ms: number | null;
  mean_ms: number | null;
}

export function summarize(ms: ArrayLike<number>): Summary {
  const s = Float64Array.from(ms).sort();
  const sum = s.reduce((a, b) => a + b, 0);
  const r = (x: number | null | undefined) => (x == null ? null : Math.round(x * 1000) / 1000);
  return {
    n: s.length,
    p50_ms: r(pct(s, 50)),
    p90_ms: r(pct(s, 90)),
    p99_ms: r(pct(s, 99)),
    max_ms: r(s[s.length - 1]),
    mean_ms: r(sum / s.length),
  };
}

export interface RssSampler {
  sample(): number;
  stop(): number;
}

/** Samples process RSS every `everyMs` ms; `stop()` returns the peak in bytes. */
export function rssSampler(everyMs = 5): RssSampler {
  let peak = process.memoryUsage.rss();
  const timer = setInterval(() => {
    const v = process.memoryUsage.rss();
    if (v > peak) peak = v;
  }, everyMs);
  timer.unref();
  return {
    sample() {
      const v = process.memoryUsage.rss();
      if (v > peak) peak = v;
      return v;
    },
    stop() {
      clearInterval(timer);
      const v = process.memoryUsage.rss();
      if (v > peak) peak = v;
      return peak;
    },
  };
}

export function fileSizes(dbPath: string): Record<string, number> {
  const out: Record<string, number> = {};
  let total = 0;
  for (const suffix of ['', '-wal', '-shm']) {
    const p = dbPath + suffix;
    if (fs.existsSync(p)) {
      const size = fs.statSync(p).size;
      out[path.basename(p)] = size;
      total += size;
    }
  }
  out.total = total;
  return out;
}

export function rmDb(dbPath: string): void {
  for (const suffix of ['', '-wal', '-shm', '-journal']) fs.rmSync(dbPath + suffix, { force: true });
}

/** One JSON object per line on stdout. */
export function emit(record: Record<string, unknown>): void {
  process.stdout.write(JSON.stringify(record) + '\n');
}

export const mb = (bytes: number): number => Math.round(bytes / 1048576);
