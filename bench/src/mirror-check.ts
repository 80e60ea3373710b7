/** Checks that common.ts still gives the peers' lib/common.mjs results (when that file is present). */
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { summarize, toolArgsFor, toolCallIdFor } from './common.js';

interface PeersCommon {
  toolArgsFor(i: number): unknown;
  toolCallIdFor(i: number): string;
  summarize(ms: number[]): unknown;
}

export async function checkCommonMirror(peersDir: string): Promise<Record<string, unknown>> {
  const file = path.join(peersDir, 'lib', 'common.mjs');
  const record: Record<string, unknown> = { kind: 'mirror_check', engine: 'interlock', peers_common: file };
  if (!fs.existsSync(file)) return { ...record, available: false, pass: null };
  const peers = (await import(pathToFileURL(file).href)) as PeersCommon;
  const indices = [0, 1, 7, 42, 999, 1000, 123456, 1_000_049];
  const sameArguments = indices.every(
    (i) =>
      JSON.stringify(peers.toolArgsFor(i)) === JSON.stringify(toolArgsFor(i)) &&
      peers.toolCallIdFor(i) === toolCallIdFor(i),
  );
  let seed = 7;
  const samples = Array.from({ length: 1001 }, () => ((seed = (seed * 16807) % 2147483647) / 2147483647) * 20);
  const sameSummary = [samples, samples.slice(0, 1), samples.slice(0, 99), samples.slice(0, 100)].every(
    (sample) => JSON.stringify(peers.summarize(sample)) === JSON.stringify(summarize(sample)),
  );
  return {
    ...record,
    available: true,
    same_tool_args: sameArguments,
    same_summarize: sameSummary,
    pass: sameArguments && sameSummary,
  };
}
