import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** The built CLI (`pnpm build`), from src/ and from dist/ alike. */
const CLI = fileURLToPath(new URL('../../../apps/cli/bin/interlock.js', import.meta.url));

/** What one `interlock` command came to. */
export interface CliOutcome {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs the built `interlock` command (apps/cli, `pnpm build`) as a person at another
 * terminal does, on the SQLite store `store`: its exit code and what it printed.
 */
export function interlockCli(store: string, args: string[]): Promise<CliOutcome> {
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
