import { beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, BUILT_CLI } from './built-cli.js';
import { TEST_STORE_ENVIRONMENT } from './test-store.js';
import { spawnProcessGroup } from '@interlock/core/testing';

/*
 * A reader that stops early (`interlock explain … | head`) closes the pipe before the command
 * has printed everything: the command ends quietly with its own exit code (issue 28).
 */

beforeAll(() => assertBuilt());

/** Runs `interlock <args> | true` in bash: `true` exits without reading. The CLI's exit code and stderr. */
function intoClosedPipe(args: string[]): Promise<{ exitCode: number; stderr: string }> {
  const quoted = args.map((arg) => `'${arg.replaceAll("'", "'\\''")}'`).join(' ');
  return new Promise((resolve, reject) => {
    const child = spawnProcessGroup(
      'bash',
      ['-c', `"${process.execPath}" "${BUILT_CLI}" ${quoted} | true; exit \${PIPESTATUS[0]}`],
      {
        env: { ...process.env, NO_COLOR: '1', ...TEST_STORE_ENVIRONMENT },
        stdio: ['ignore', 'ignore', 'pipe'],
      },
    );
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (exitCode) => resolve({ exitCode: exitCode ?? -1, stderr }));
  });
}

describe('output into a pipe the reader closed (issue 28)', () => {
  it.each([
    [['explain', 'bash', '{"command":"rm -rf /"}']],
    [['explain', 'bash', '{"command":"ls"}', '--json']],
    [['run', '--help']],
  ])('interlock %j | true ends with exit 0 and no EPIPE error', async (args) => {
    const { exitCode, stderr } = await intoClosedPipe(args);
    expect(stderr).not.toMatch(/EPIPE|Error/);
    expect(exitCode).toBe(0);
  });
});
