import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { TEST_STORE_ENVIRONMENT } from './test-store.js';
import { spawnProcessGroup } from '@interlock/core/testing';

/** The repository root: the end-to-end tests run the CLI from here, as a user would. */
export const REPOSITORY_ROOT = fileURLToPath(new URL('../../../', import.meta.url));

/** The built bin. The end-to-end tests run it, not the sources. */
export const BUILT_CLI = fileURLToPath(new URL('../dist/main.js', import.meta.url));

/** Fails with the command to run when the CLI has not been built. */
export function assertBuilt(): void {
  if (!existsSync(BUILT_CLI)) {
    throw new Error(
      `${BUILT_CLI} does not exist: build first with ` +
        '`pnpm --filter @interlock/sdk-types build && pnpm --filter @interlock/core build && pnpm --filter @interlock/cli build` (root `pnpm test` does it)',
    );
  }
}

/** How a run of the CLI ended. */
export interface CliRun {
  exitCode: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs the built CLI in `directory` (default: the repository root) with `stdin` piped in
 * (then closed), and resolves when it exits. Rejects if it runs longer than
 * `timeoutMilliseconds`, with what it printed so far. `environment` is added to this
 * process's environment and the test file's own store (a value of `undefined` removes a
 * variable: `{ INTERLOCK_STORE: undefined }` runs on the default store of `directory`).
 */
export function runBuiltCli(
  args: string[],
  stdin = '',
  timeoutMilliseconds = 60_000,
  environment: NodeJS.ProcessEnv = {},
  directory = REPOSITORY_ROOT,
): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawnProcessGroup(process.execPath, [BUILT_CLI, ...args], {
      cwd: directory,
      env: { ...process.env, NO_COLOR: '1', ...TEST_STORE_ENVIRONMENT, ...environment },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(
        new Error(
          `interlock ${args.join(' ')} did not exit within ${timeoutMilliseconds} ms.\nstdout:\n${stdout}\nstderr:\n${stderr}`,
        ),
      );
    }, timeoutMilliseconds);
    child.on('error', reject);
    child.on('close', (exitCode) => {
      clearTimeout(timer);
      resolve({ exitCode, stdout, stderr });
    });
    child.stdin.end(stdin);
  });
}
