import type { ChildProcess } from 'node:child_process';
import { spawnProcessGroup } from './process-group.js';

/** A node child process that prints one JSON object per line. */
export interface JsonLineChild {
  readonly process: ChildProcess;
  /** Resolves with the first line (past or future) that `matches`; rejects if the process ends first. */
  line(matches: (line: Record<string, unknown>) => boolean): Promise<Record<string, unknown>>;
  /** SIGKILL to its process group, and waits for the exit. */
  kill(): Promise<void>;
  /** SIGTERM to its process group, and waits for the exit. */
  stop(): Promise<void>;
}

/**
 * Starts `node script ...args` with `env` added to this process's environment, in a process
 * group of its own: `kill` and `stop` signal the child and whatever it started.
 */
export function startJsonLineChild(script: string, args: string[], env: Record<string, string>): JsonLineChild {
  const child = spawnProcessGroup(process.execPath, [script, ...args], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: Record<string, unknown>[] = [];
  const waiters: {
    matches: (line: Record<string, unknown>) => boolean;
    resolve: (line: Record<string, unknown>) => void;
  }[] = [];
  let stderr = '';
  let buffered = '';
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.stderr.on('data', (part: Buffer) => (stderr += part.toString('utf8')));
  child.stdout.on('data', (part: Buffer) => {
    buffered += part.toString('utf8');
    const complete = buffered.split('\n');
    buffered = complete.pop() ?? '';
    for (const text of complete) {
      if (text.trim() === '') continue;
      const line = JSON.parse(text) as Record<string, unknown>;
      lines.push(line);
      for (const waiter of [...waiters]) {
        if (!waiter.matches(line)) continue;
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve(line);
      }
    }
  });
  return {
    process: child,
    line: (matches) =>
      new Promise((resolve, reject) => {
        const found = lines.find(matches);
        if (found !== undefined) {
          resolve(found);
          return;
        }
        waiters.push({ matches, resolve });
        void exited.then(() => reject(new Error(`the child ended before the line came; stderr:\n${stderr}`)));
      }),
    kill: async () => {
      child.kill('SIGKILL');
      await exited;
    },
    stop: async () => {
      child.kill('SIGTERM');
      await exited;
    },
  };
}
