import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { until } from '@interlock/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, BUILT_CLI, runBuiltCli } from './built-cli.js';
import { assertTmux, startTerminal, type TmuxTerminal } from './tmux-session.js';

// F40, issue 37: in a real terminal, the question about a call whose outcome is unknown
// offers done, retry and failed — not Approve — and done goes on without running it again.

let directory: string;
let session: TmuxTerminal | undefined;
const workspaces: string[] = [];
beforeAll(async () => {
  assertTmux();
  assertBuilt();
  directory = await mkdtemp(join(tmpdir(), 'interlock-recovery-pty-'));
});
afterAll(async () => {
  await session?.kill();
  await Promise.all([directory, ...workspaces].map((path) => rm(path, { recursive: true, force: true })));
});

const store = () => ({ INTERLOCK_STORE: `sqlite:${join(directory, '.interlock', 'interlock.db')}` });

describe('the recovery question in a terminal (F40, issue 37)', () => {
  it('offers Done, Retry and Failed, and Done goes on without running the call again', async () => {
    const crashed = await runBuiltCli(
      ['demo', 'coding-agent'],
      'y\ny\n',
      60_000,
      { ...store(), INTERLOCK_CRASH_AT: 'tool:effect-done:2' },
      directory,
    );
    const threadId = /^Thread (\S+) of workflow/m.exec(crashed.stdout)?.[1] ?? '';
    const workspace = /^Workspace: (\S+)/m.exec(crashed.stdout)?.[1];
    if (workspace !== undefined) workspaces.push(workspace);
    expect(crashed.stdout).toContain('bash(ls -la) ▶ running');
    // Without a terminal, resume (once the killed process's claim ran out) leaves the question pending.
    const left = await until(
      'the killed process’s claim to end',
      () => runBuiltCli(['resume', threadId], '', 60_000, store(), directory),
      (run) => !run.stderr.includes('THREAD_BUSY'),
      { timeoutMs: 60_000, intervalMs: 1_000 },
    );
    expect(left.exitCode).toBe(3);

    session = await startTerminal(`"${process.execPath}" "${BUILT_CLI}" resume ${threadId}`, directory, store());
    const asked = await session.waitFor((screen) => screen.includes('❯ Done: it ran'), 20_000);
    expect(asked).toContain('stage recovery: the call started before the process stopped');
    expect(asked).toContain('Retry: run it again');
    expect(asked).toContain('Failed: report to the model that it failed');
    expect(asked).not.toContain('Approve');
    await session.sendKeys('Enter');
    const done = await session.waitFor((screen) => /\[exit code \d+\]/.test(screen), 20_000);
    expect(done).toContain('[exit code 0]');
    expect(done).toContain('bash(ls -la) ✔ SUCCESS: A person confirmed the call ran');
    expect(done.slice(done.indexOf('resumed'))).not.toContain('bash(ls -la) ▶ running');
  }, 120_000);
});
