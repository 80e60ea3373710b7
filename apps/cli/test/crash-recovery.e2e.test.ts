import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { until } from '@interlock/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, runBuiltCli, type CliRun } from './built-cli.js';

// F40, issue 37: a call killed after its effect and before it finished is asked about with
// its own three answers — done, retry, failed — on every surface of the CLI; approve is
// never taken as retry, and the call runs again only on retry. The session of docs/cli.md,
// "A call whose outcome is unknown".

/** Each run works in a directory of its own, on the default store there (.interlock/interlock.db). */
const directories: string[] = [];
const workspaces: string[] = [];

function cli(directory: string, args: string[], stdin = ''): Promise<CliRun> {
  return runBuiltCli(args, stdin, 60_000, { INTERLOCK_STORE: undefined }, directory);
}

/** A demo killed right after `ls -la` ran (its second tool effect), its thread left with the call started. */
async function crashedDemo(): Promise<{ directory: string; threadId: string }> {
  const directory = await mkdtemp(join(tmpdir(), 'interlock-recovery-'));
  directories.push(directory);
  const run = await runBuiltCli(
    ['demo', 'coding-agent'],
    'y\ny\n',
    60_000,
    { INTERLOCK_STORE: undefined, INTERLOCK_CRASH_AT: 'tool:effect-done:2' },
    directory,
  );
  const threadId = /^Thread (\S+) of workflow "coding-agent" started/m.exec(run.stdout)?.[1];
  const workspace = /^Workspace: (\S+)/m.exec(run.stdout)?.[1];
  if (workspace !== undefined) workspaces.push(workspace);
  if (threadId === undefined || run.stdout.includes('✔ completed'))
    throw new Error(`the demo was not killed mid-call:\n${run.stdout}\n${run.stderr}`);
  expect(run.stdout).toContain('bash(ls -la) ▶ running');
  return { directory, threadId };
}

/** Resumes the thread once the killed process's claim on it ran out (15 s after its last renewal). */
function resumeWhenFree(directory: string, threadId: string, stdin: string): Promise<CliRun> {
  return until(
    'the killed process’s claim on the thread to end',
    () => cli(directory, ['resume', threadId], stdin),
    (run) => !run.stderr.includes('THREAD_BUSY'),
    { timeoutMs: 60_000, intervalMs: 1_000 },
  );
}

async function pendingRecovery(directory: string): Promise<{ interactionId: string; stage: string }> {
  const listed = await cli(directory, ['pending', '--json']);
  const [request] = JSON.parse(listed.stdout) as { interactionId: string; toolApproval?: { stage: string } }[];
  if (request === undefined) throw new Error(`nothing waits:\n${listed.stdout}\n${listed.stderr}`);
  return { interactionId: request.interactionId, stage: request.toolApproval?.stage ?? '' };
}

let crashed: { directory: string; threadId: string }[] = [];
beforeAll(async () => {
  assertBuilt();
  crashed = await Promise.all([crashedDemo(), crashedDemo(), crashedDemo()]);
}, 120_000);
afterAll(async () => {
  await Promise.all(
    [...directories, ...workspaces].map((directory) => rm(directory, { recursive: true, force: true })),
  );
});

describe('the question about a call killed after its effect (F40, issue 37)', () => {
  it('is asked with done, retry and failed; approve is refused everywhere, and done goes on without running it again', async () => {
    const [{ directory, threadId }] = crashed as [{ directory: string; threadId: string }];
    const resumed = await resumeWhenFree(directory, threadId, 'approve\ny\n');
    expect(resumed.exitCode).toBe(3);
    expect(resumed.stdout).toContain('stage recovery: the call started before the process stopped');
    expect(resumed.stdout).toContain('answer: done | retry | failed[: reason]');
    expect(resumed.stderr).toContain('"approve" is not an answer');
    expect(resumed.stderr).toContain('"y" is not an answer');
    expect(resumed.stderr).toMatch(/answer done \(it ran\), retry \(run it again\) or failed/);
    expect(resumed.stdout).toContain('--resolution done|retry|failed');

    const { interactionId, stage } = await pendingRecovery(directory);
    expect(stage).toBe('recovery');
    const pending = await cli(directory, ['pending']);
    expect(pending.stdout).toContain('stage recovery');
    expect(pending.stdout).toContain(`interlock respond ${interactionId} --resolution done|retry|failed`);

    for (const words of [['approve'], ['reject'], ['answer', 'done'], ['edit', '{"command":"ls"}']]) {
      const refused = await cli(directory, ['respond', interactionId, ...words]);
      expect(refused.exitCode, words.join(' ')).toBe(1);
      expect(refused.stderr).toMatch(/stage recovery.*--resolution done \(it ran: go on\), retry .*failed/);
    }
    expect((await pendingRecovery(directory)).interactionId).toBe(interactionId);

    const done = await cli(directory, ['respond', interactionId, '--resolution', 'done']);
    expect(done.exitCode).toBe(0);
    expect(done.stdout).toContain('done: it ran, the thread goes on');
    expect(done.stdout).toContain('bash(ls -la) ✔ SUCCESS: A person confirmed the call ran');
    expect(done.stdout).not.toContain('bash(ls -la) ▶ running');
    expect(done.stdout).toContain('✔ completed');
    const audit = await cli(directory, ['audit', '--json', '--thread', threadId]);
    const entries = (JSON.parse(audit.stdout) as { entries: { stage: string; reason: string }[] }).entries;
    expect(entries.filter((entry) => entry.stage === 'recovery').map((entry) => entry.reason)).toEqual([
      'done: a person said it ran',
    ]);
  });

  it('runs the call again on retry, answered in the terminal prompt', async () => {
    const [, { directory, threadId }] = crashed as [unknown, { directory: string; threadId: string }];
    const resumed = await resumeWhenFree(directory, threadId, 'retry\n');
    expect(resumed.exitCode).toBe(0);
    expect(resumed.stdout).toContain('> retry\n  → retry: it runs again');
    expect(resumed.stdout).toContain('bash(ls -la) ▶ running');
    expect(resumed.stdout).toMatch(/bash\(ls -la\) ✔ SUCCESS: .*total/);
  });

  it('reports the call failed on --resolution failed, with the reason, and never runs it again', async () => {
    const [, , { directory, threadId }] = crashed as [unknown, unknown, { directory: string; threadId: string }];
    expect((await resumeWhenFree(directory, threadId, '')).exitCode).toBe(3);
    const { interactionId } = await pendingRecovery(directory);
    const failed = await cli(directory, [
      'respond',
      interactionId,
      '--resolution',
      'failed',
      '--reason',
      'the disk was full',
    ]);
    expect(failed.exitCode).toBe(0);
    expect(failed.stdout).toContain('failed: it is reported failed: the disk was full');
    expect(failed.stdout).toMatch(/bash\(ls -la\) ✘ [A-Z_]+: .*the disk was full/);
    expect(failed.stdout).not.toContain('bash(ls -la) ▶ running');
  });
});
