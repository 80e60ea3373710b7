import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, BUILT_CLI } from './built-cli.js';
import { cliIn, createWorkingDirectory, EXAMPLES, jsonOf, type Detached } from './cross-process.js';
import { until, spawnProcessGroup } from '@interlock/core/testing';

beforeAll(assertBuilt);

const directories: string[] = [];
afterAll(async () => {
  await Promise.all(directories.map((directory) => rm(directory, { recursive: true, force: true })));
});

/**
 * The built `interlock worker <args>` in `directory`, on its default store: what it printed
 * so far (stdout and stderr), and its exit code once it exited.
 */
function startWorker(directory: string, args: string[]) {
  const worker = spawnProcessGroup(process.execPath, [BUILT_CLI, 'worker', ...args], {
    cwd: directory,
    env: { ...process.env, INTERLOCK_STORE: '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  worker.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  worker.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  const exited = new Promise<number | null>((resolve) => worker.on('close', resolve));
  return { worker, printed: () => output, exited };
}

describe('interlock worker (issue 12)', () => {
  it('times out and continues a thread whose process exited when its approval deadline passes: the model is told the calls were refused', async () => {
    const directory = await createWorkingDirectory('interlock-worker-');
    directories.push(directory);
    await mkdir(join(directory, 'workspace'));
    const definition = await readFile(EXAMPLES.codingAgent, 'utf8');
    await writeFile(
      join(directory, 'agent.toml'),
      definition
        .replace('approvalTimeout = "5m"', 'approvalTimeout = "2s"')
        .replace('version = "1"', 'version = "1-deadline-2s"'),
    );
    const started = await cliIn(directory, ['run', 'agent.toml', '--detach', '--json', '--workspace', 'workspace']);
    expect(started.exitCode, started.stderr).toBe(3);
    const { threadId } = jsonOf<Detached>(started);

    const { worker, printed, exited } = startWorker(directory, ['agent.toml', '--workspace', 'workspace']);
    try {
      await until(
        'the worker to complete the thread',
        printed,
        (printed) => printed.includes(`thread ${threadId}: completed`),
        60_000,
      );
    } finally {
      worker.kill('SIGTERM');
    }
    expect(await exited).toBe(0);
    expect(printed()).toContain('Worker ready: serving coding-agent on sqlite:.interlock/interlock.db');

    const threads = jsonOf<Array<{ threadId: string; status: string }>>(await cliIn(directory, ['threads', '--json']));
    expect(threads).toEqual([expect.objectContaining({ threadId, status: 'completed' })]);
    const trail = await cliIn(directory, ['audit', '--json']);
    expect(jsonOf<{ entries: Array<{ decidedBy: string }> }>(trail).entries.map((entry) => entry.decidedBy)).toContain(
      'interaction:timeout',
    );
  }, 60_000);

  it('withdraws its offer when it stops on SIGTERM: an answer given after that is taken forward where it is given (issue 37)', async () => {
    const directory = await createWorkingDirectory('interlock-worker-stop-');
    directories.push(directory);
    const started = await cliIn(directory, ['run', 'ask.toml', '--detach', '--json']);
    expect(started.exitCode, started.stderr).toBe(3);
    const { threadId, pendingInteractionIds } = jsonOf<Detached>(started);

    const { worker, printed, exited } = startWorker(directory, ['ask.toml']);
    try {
      await until('the worker to be ready', printed, (printed) => printed.includes('Worker ready'), 30_000);
    } finally {
      worker.kill('SIGTERM');
    }
    expect(await exited).toBe(0);

    // Right after it exited (its offer would have run 15 s more): this process takes the thread.
    const answered = await cliIn(directory, ['respond', pendingInteractionIds[0] ?? '', 'answer', 'yes', '--json']);
    expect(answered.exitCode, answered.stdout + answered.stderr).toBe(0);
    expect(jsonOf<{ continuation: string; status: string }>(answered)).toMatchObject({
      continuation: 'continued',
      status: 'completed',
    });
    const threads = jsonOf<Array<{ threadId: string; status: string }>>(await cliIn(directory, ['threads', '--json']));
    expect(threads).toEqual([expect.objectContaining({ threadId, status: 'completed' })]);
  }, 60_000);

  it('answers /healthz and /readyz on --health-port while it serves (F60)', async () => {
    const directory = await createWorkingDirectory('interlock-worker-health-');
    directories.push(directory);
    await mkdir(join(directory, 'workspace'));
    await writeFile(join(directory, 'agent.toml'), await readFile(EXAMPLES.codingAgent, 'utf8'));
    const { worker, printed, exited } = startWorker(directory, [
      'agent.toml',
      '--workspace',
      'workspace',
      '--health-port',
      '0',
    ]);
    try {
      const health = await new Promise<string>((resolve, reject) => {
        const seen = () => {
          const url = /Health: (http:\/\/127\.0\.0\.1:\d+)\/healthz/.exec(printed())?.[1];
          if (url !== undefined) resolve(url);
        };
        worker.stdout.on('data', seen);
        worker.on('close', () => reject(new Error(`the worker exited; it printed:\n${printed()}`)));
      });
      expect((await fetch(`${health}/healthz`)).status).toBe(200);
      const ready = await fetch(`${health}/readyz`);
      expect(ready.status).toBe(200);
      expect(await ready.json()).toMatchObject({
        status: 'ready',
        checks: [
          { name: 'store', ok: true },
          { name: 'migrations', ok: true },
          { name: 'jobQueue', ok: true },
        ],
      });
    } finally {
      worker.kill('SIGTERM');
    }
    expect(await exited).toBe(0);
  }, 60_000);
});
