import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, runBuiltCli, type CliRun } from './built-cli.js';

// F63: the receipts of the calls that ran are kept with the audit and verify with it, in the
// store and in a saved copy, offline; `interlock receipts` prints, rotates and retires the keys.

let directory: string;
let workspace: string | undefined;
const cli = (args: string[], stdin = '', environment: NodeJS.ProcessEnv = {}): Promise<CliRun> =>
  runBuiltCli(
    args,
    stdin,
    60_000,
    { INTERLOCK_STORE: undefined, INTERLOCK_RECEIPT_KEY: undefined, ...environment },
    directory,
  );

interface Exported {
  entries: { threadId: string; outcome: string }[];
  receipts: { token: string }[];
  keys: { keys: { kid: string }[] };
}

let exported: Exported;
beforeAll(async () => {
  assertBuilt();
  directory = await mkdtemp(join(tmpdir(), 'interlock-receipts-'));
  // The coding-agent demo: reads run on a rule, one write a person approves, one they reject.
  const demo = await cli(['demo', 'coding-agent'], 'y\nn: not today\n');
  workspace = /^Workspace: (\S+)/m.exec(demo.stdout)?.[1];
  expect(demo.exitCode, demo.stderr).toBe(0);
  exported = JSON.parse((await cli(['audit', '--json'])).stdout) as Exported;
}, 60_000);
afterAll(async () => {
  await rm(directory, { recursive: true, force: true });
  if (workspace !== undefined) await rm(workspace, { recursive: true, force: true });
});

async function verifyCopy(copy: unknown, jwks?: unknown): Promise<CliRun> {
  const path = join(directory, `copy-${Math.random().toString(36).slice(2)}.json`);
  await writeFile(path, JSON.stringify(copy));
  if (jwks === undefined) return cli(['audit', '--verify', '--file', path]);
  const keys = join(directory, `jwks-${Math.random().toString(36).slice(2)}.json`);
  await writeFile(keys, JSON.stringify(jwks));
  return cli(['audit', '--verify', '--file', path, '--jwks', keys]);
}

describe('receipts in the audit (F63)', () => {
  it('keeps a receipt for each call that ran, and --verify checks them in the store', async () => {
    const allowed = exported.entries.filter((entry) => entry.outcome === 'allow').length;
    expect(exported.receipts.length).toBe(allowed);
    expect(exported.receipts.length).toBeGreaterThan(0);
    const run = await cli(['audit', '--verify']);
    expect(run.exitCode, run.stderr).toBe(0);
    expect(run.stdout).toContain(`receipts verified (${String(exported.receipts.length)} receipt`);
  });

  it('verifies a saved copy offline, and not against keys that did not sign its receipts', async () => {
    const whole = await verifyCopy(exported);
    expect(whole.exitCode, whole.stdout).toBe(0);
    const keys = (await cli(['receipts', 'keys'])).stdout;
    expect((await verifyCopy(exported, JSON.parse(keys))).exitCode).toBe(0);
    const stranger = JSON.parse((await cli(['receipts', 'generate'])).stdout) as Record<string, unknown>;
    const { d: _secret, ...publicHalf } = stranger;
    const wrong = await verifyCopy(exported, { keys: [publicHalf] });
    expect(wrong.exitCode).toBe(1);
    expect(wrong.stdout).toContain('receipts BROKEN');
    // A receipt whose entry was cut from the copy names nothing the trail holds.
    const denied = exported.entries.filter((entry) => entry.outcome === 'deny');
    const cut = await verifyCopy({ ...exported, entries: denied, evidence: { heads: [] } });
    expect(cut.exitCode).toBe(1);
  });
});

describe('interlock receipts (F63)', () => {
  it('prints the JWKS, rotates with the old key kept for its receipts, and retires a key', async () => {
    const before = JSON.parse((await cli(['receipts', 'keys'])).stdout) as Exported['keys'];
    expect(before.keys).toHaveLength(1);
    expect(JSON.stringify(before)).not.toContain('"d"');
    const rotated = await cli(['receipts', 'rotate']);
    expect(rotated.exitCode, rotated.stderr).toBe(0);
    const after = JSON.parse((await cli(['receipts', 'keys'])).stdout) as Exported['keys'];
    expect(after.keys.map((key) => key.kid)).toContain(before.keys[0]?.kid);
    expect(after.keys).toHaveLength(2);
    // The receipts signed before the rotation still verify with the audit.
    expect((await cli(['audit', '--verify'])).exitCode).toBe(0);
    const newest = after.keys.find((key) => key.kid !== before.keys[0]?.kid)?.kid ?? '';
    expect((await cli(['receipts', 'retire', newest])).exitCode).toBe(0);
    expect((await cli(['receipts', 'retire', 'no-such-key'])).exitCode).toBe(1);
  });

  it('signs with the key INTERLOCK_RECEIPT_KEY gives, and refuses a wrong command line', async () => {
    const given = (await cli(['receipts', 'generate'])).stdout.trim();
    const kid = (JSON.parse(given) as { kid: string }).kid;
    const keys = JSON.parse(
      (await cli(['receipts', 'keys'], '', { INTERLOCK_RECEIPT_KEY: given })).stdout,
    ) as Exported['keys'];
    expect(keys.keys.map((key) => key.kid)).toContain(kid);
    expect((await cli(['receipts'])).exitCode).toBe(2);
    expect((await cli(['receipts', 'retire'])).exitCode).toBe(2);
    expect((await cli(['receipts', 'generate', '--store', 'memory'])).exitCode).toBe(2);
    expect((await cli(['audit', '--jwks', 'keys.json'])).exitCode).toBe(2);
    const bad = await cli(['receipts', 'keys'], '', { INTERLOCK_RECEIPT_KEY: 'not a key' });
    expect(bad.exitCode).toBe(1);
    expect(bad.stderr).toContain('INTERLOCK_RECEIPT_KEY');
    expect(bad.stderr).not.toContain('not a key');
  });
});
