import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { spawnProcessGroup, stopProcessGroup } from './process-group.js';
import { until } from './until.js';

/** The pids of `pid`'s children, as Linux lists them. */
function childrenOf(pid: number): number[] {
  return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
}

function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/*
 * Issue 40: a test that stopped the shell it started left the shell's child (a server) running
 * for 50 minutes after CI. A process a test starts leads a group, and stopping it stops the group.
 */
describe('spawnProcessGroup', () => {
  it('stops a shell and the program it runs, not the shell alone', async () => {
    const shell = spawnProcessGroup('bash', ['-c', 'sleep 600; echo done'], { stdio: 'ignore' });
    const [program = 0] = await until(
      'the shell to start its program',
      async () => childrenOf(shell.pid ?? 0),
      (pids) => pids.length === 1,
    );
    await stopProcessGroup(shell);
    const stopped = await until(
      'the program to end',
      async () => !running(program),
      (gone) => gone,
    );
    expect(stopped).toBe(true);
  });

  it('still stops what the leader started after the leader itself has exited', async () => {
    const leader = spawnProcessGroup('bash', ['-c', 'sleep 600 & echo $!'], { stdio: ['ignore', 'pipe', 'ignore'] });
    let printed = '';
    leader.stdout.on('data', (chunk: Buffer) => (printed += chunk.toString()));
    await new Promise((resolve) => leader.once('exit', resolve));
    const orphan = Number(printed.trim());
    expect(running(orphan)).toBe(true);
    leader.kill('SIGKILL');
    const stopped = await until(
      'the orphan to end',
      async () => !running(orphan),
      (gone) => gone,
    );
    expect(stopped).toBe(true);
  });
});
