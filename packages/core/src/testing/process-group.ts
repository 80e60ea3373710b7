import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';

/** The groups started by this process that have not been seen to end. */
const groups = new Set<number>();
let sweepInstalled = false;

/**
 * Starts `command` as the leader of a process group of its own, so that stopping it stops
 * everything it started too (a shell and the server it ran, a CLI and the tools it spawned).
 * `kill(signal)` on the returned child signals the whole group, even after the leader has
 * exited while something it started still runs. When this process exits, every group it
 * started that may still be running is killed (SIGKILL). Use it for every process a test
 * starts and does not wait for synchronously.
 */
export const spawnProcessGroup = ((command: string, args: readonly string[] = [], options: SpawnOptions = {}) => {
  installSweep();
  const child = spawn(command, args, { ...options, detached: true });
  const group = child.pid;
  if (group === undefined) return child;
  groups.add(group);
  const killLeader = child.kill.bind(child);
  child.kill = (signal: NodeJS.Signals | number = 'SIGTERM'): boolean => {
    try {
      process.kill(-group, signal);
      return true;
    } catch {
      // No process is left in the group: at most the leader, not yet reaped.
      groups.delete(group);
      return killLeader(signal);
    }
  };
  return child;
}) as typeof spawn;

/**
 * Stops a child started by {@link spawnProcessGroup}, with everything it started: `signal`
 * (SIGTERM by default) to its group, then waits until the leader has exited.
 */
export async function stopProcessGroup(child: ChildProcess, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  const exited =
    child.exitCode !== null || child.signalCode !== null
      ? Promise.resolve()
      : new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill(signal);
  await exited;
}

function installSweep(): void {
  if (sweepInstalled) return;
  sweepInstalled = true;
  process.once('exit', () => {
    for (const group of groups) {
      try {
        process.kill(-group, 'SIGKILL');
      } catch {
        // Already gone.
      }
    }
  });
}
