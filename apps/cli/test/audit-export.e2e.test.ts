import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { demoAudit } from './demo-audit.js';

// F45, issue 37: an exported audit trail carries the chains' heads and anchors, and a copy
// with entries cut from its end, or without them, does not verify.

interface Exported {
  entries: { sequence: number; threadId: string }[];
  evidence: { heads: { threadId: string; threadSequence: number }[]; anchors?: unknown[] };
}

const demo = demoAudit<Exported>('audit-export');
const { cli, verifyCopy } = demo;

describe('an exported audit trail (F45, issue 37)', () => {
  it('carries the head of each thread with its entries, and verifies as saved', async () => {
    expect(demo.exported.entries).toHaveLength(4);
    expect(demo.exported.evidence.heads).toEqual([
      expect.objectContaining({ threadId: demo.exported.entries[0]?.threadId, threadSequence: 4 }),
    ]);
    const whole = await verifyCopy(demo.exported);
    expect(whole.exitCode, whole.stderr).toBe(0);
    expect(whole.stdout).toContain('hash chain intact (4 entries)');
  });

  it('does not verify with its last entry removed', async () => {
    const cut = await verifyCopy({ ...demo.exported, entries: demo.exported.entries.slice(0, -1) });
    expect(cut.exitCode).toBe(1);
    expect(cut.stdout).toMatch(/hash chain BROKEN .*entries were removed from its end/);
  });

  it('does not verify without its heads and anchors', async () => {
    const { evidence: _evidence, ...bare } = demo.exported;
    const run = await verifyCopy({ ...bare, entries: demo.exported.entries.slice(0, -1) });
    expect(run.exitCode).toBe(1);
    expect(run.stdout).toContain('the copy has no "evidence"');
  });

  it('exports one thread with its head, which verifies, and cut does not', async () => {
    const threadId = demo.exported.entries[0]?.threadId ?? '';
    const one = JSON.parse((await cli(['audit', '--json', '--thread', threadId])).stdout) as Exported;
    expect(one.evidence.heads.map((head) => head.threadId)).toEqual([threadId]);
    expect((await verifyCopy(one)).exitCode).toBe(0);
    expect((await verifyCopy({ ...one, entries: one.entries.slice(0, -1) })).exitCode).toBe(1);
  });

  it('refuses --file with --store, and a file that is not a copy, as usage errors', async () => {
    expect((await cli(['audit', '--verify', '--file', 'x.json', '--store', 'memory'])).exitCode).toBe(2);
    const path = join(demo.directory, 'not-json.txt');
    await writeFile(path, 'hello');
    expect((await cli(['audit', '--verify', '--file', path])).exitCode).toBe(2);
  });
});
