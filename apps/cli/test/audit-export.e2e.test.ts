import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, runBuiltCli, type CliRun } from './built-cli.js';

// F45, issue 37: an exported audit trail carries the chains' heads and anchors, and a copy
// with entries cut from its end, or without them, does not verify.

let directory: string;
let workspace: string | undefined;
const cli = (args: string[], stdin = ''): Promise<CliRun> =>
  runBuiltCli(args, stdin, 60_000, { INTERLOCK_STORE: undefined }, directory);

interface Exported {
  entries: { sequence: number; threadId: string }[];
  evidence: { heads: { threadId: string; threadSequence: number }[]; anchors?: unknown[] };
}

let exported: Exported;
beforeAll(async () => {
  assertBuilt();
  directory = await mkdtemp(join(tmpdir(), 'interlock-audit-export-'));
  const demo = await cli(['demo', 'coding-agent'], 'y\nn: not today\n');
  workspace = /^Workspace: (\S+)/m.exec(demo.stdout)?.[1];
  expect(demo.exitCode, demo.stderr).toBe(0);
  exported = JSON.parse((await cli(['audit', '--json'])).stdout) as Exported;
}, 60_000);
afterAll(async () => {
  await rm(directory, { recursive: true, force: true });
  if (workspace !== undefined) await rm(workspace, { recursive: true, force: true });
});

async function verifyCopy(copy: unknown): Promise<CliRun> {
  const path = join(directory, `copy-${Math.random().toString(36).slice(2)}.json`);
  await writeFile(path, JSON.stringify(copy));
  return cli(['audit', '--verify', '--file', path]);
}

describe('an exported audit trail (F45, issue 37)', () => {
  it('carries the head of each thread with its entries, and verifies as saved', async () => {
    expect(exported.entries).toHaveLength(4);
    expect(exported.evidence.heads).toEqual([
      expect.objectContaining({ threadId: exported.entries[0]?.threadId, threadSequence: 4 }),
    ]);
    const whole = await verifyCopy(exported);
    expect(whole.exitCode, whole.stderr).toBe(0);
    expect(whole.stdout).toContain('hash chain intact (4 entries)');
  });

  it('does not verify with its last entry removed', async () => {
    const cut = await verifyCopy({ ...exported, entries: exported.entries.slice(0, -1) });
    expect(cut.exitCode).toBe(1);
    expect(cut.stdout).toMatch(/hash chain BROKEN .*entries were removed from its end/);
  });

  it('does not verify without its heads and anchors', async () => {
    const { evidence: _evidence, ...bare } = exported;
    const run = await verifyCopy({ ...bare, entries: exported.entries.slice(0, -1) });
    expect(run.exitCode).toBe(1);
    expect(run.stdout).toContain('the copy has no "evidence"');
  });

  it('exports one thread with its head, which verifies, and cut does not', async () => {
    const threadId = exported.entries[0]?.threadId ?? '';
    const one = JSON.parse((await cli(['audit', '--json', '--thread', threadId])).stdout) as Exported;
    expect(one.evidence.heads.map((head) => head.threadId)).toEqual([threadId]);
    expect((await verifyCopy(one)).exitCode).toBe(0);
    expect((await verifyCopy({ ...one, entries: one.entries.slice(0, -1) })).exitCode).toBe(1);
  });

  it('refuses --file with --store, and a file that is not a copy, as usage errors', async () => {
    expect((await cli(['audit', '--verify', '--file', 'x.json', '--store', 'memory'])).exitCode).toBe(2);
    const path = join(directory, 'not-json.txt');
    await writeFile(path, 'hello');
    expect((await cli(['audit', '--verify', '--file', path])).exitCode).toBe(2);
  });
});
