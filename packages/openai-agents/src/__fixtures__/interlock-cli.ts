import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const CLI = fileURLToPath(new URL('../../../../apps/cli/bin/interlock.js', import.meta.url));

/**
 * Runs the built `interlock` command (apps/cli, `pnpm build`) as a person at another
 * terminal does, on the SQLite store `store`: its exit code and what it printed.
 */
export function interlockCli(store: string, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [CLI, ...args, '--store', `sqlite:${store}`],
      { env: { ...process.env, NO_COLOR: '1' } },
      (error, stdout, stderr) => {
        const code = error === null ? 0 : typeof error.code === 'number' ? error.code : 1;
        resolve({ code, stdout, stderr });
      },
    );
  });
}
