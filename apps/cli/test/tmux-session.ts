import { execFile, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { TEST_STORE_ENVIRONMENT } from './test-store.js';

const run = promisify(execFile);

/** Fails with a clear message when tmux is not installed: the terminal tests need it (CI installs it). */
export function assertTmuxInstalled(): void {
  const probe = spawnSync('tmux', ['-V'], { encoding: 'utf8' });
  if (probe.error !== undefined || probe.status !== 0) {
    throw new Error(
      `tmux is required for the terminal (pty) tests and was not found (${probe.error?.message ?? probe.stderr}). ` +
        'Install it, e.g. `apt-get install tmux`.',
    );
  }
}

/**
 * A real pseudo-terminal: a detached tmux session on its own server, whose socket lives in
 * a temporary directory, so tests never touch the user's tmux and leave nothing behind. The command's exit code is printed as `[exit code N]` and the pane
 * stays open, so the screen can still be read after the command ends.
 */
export class TmuxSession {
  private readonly directory = mkdtempSync(join(tmpdir(), 'interlock-tmux-'));
  private readonly socket = join(this.directory, 'tmux.sock');

  private constructor() {}

  /**
   * Starts `command` (a shell command line) in a 120×40 terminal in `directory`, with
   * `environment` set (default: the test file's own store).
   */
  static async start(
    command: string,
    directory: string,
    environment: Readonly<Record<string, string>> = TEST_STORE_ENVIRONMENT,
  ): Promise<TmuxSession> {
    const session = new TmuxSession();
    const variables = Object.entries(environment).flatMap(([name, value]) => ['-e', `${name}=${value}`]);
    await session.tmux(
      'new-session',
      '-d',
      '-s',
      'main',
      '-x',
      '120',
      '-y',
      '40',
      '-c',
      directory,
      ...variables,
      `sh -c '${command}; echo "[exit code $?]"; sleep 600'`,
    );
    return session;
  }

  /** Types keys, in tmux's names: `Enter`, `Down`, `C-c`, or literal text. */
  async sendKeys(...keys: string[]): Promise<void> {
    await this.tmux('send-keys', '-t', 'main', ...keys);
  }

  /** The screen and its scrollback, wrapped lines joined. */
  async screen(): Promise<string> {
    const { stdout } = await this.tmux('capture-pane', '-p', '-J', '-S', '-500', '-t', 'main');
    return stdout;
  }

  /**
   * Polls the screen until `expected` holds, and returns it; fails with the last screen
   * seen when the deadline passes.
   */
  async waitFor(expected: string | ((screen: string) => boolean), timeoutMilliseconds = 10_000): Promise<string> {
    const holds = typeof expected === 'string' ? (screen: string) => screen.includes(expected) : expected;
    const deadline = Date.now() + timeoutMilliseconds;
    let screen = '';
    while (Date.now() < deadline) {
      screen = await this.screen();
      if (holds(screen)) return screen;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const what = typeof expected === 'string' ? JSON.stringify(expected) : 'the expected screen';
    throw new Error(`waited ${timeoutMilliseconds} ms for ${what}; the screen was:\n${screen}`);
  }

  /** Ends the session and its tmux server, and removes the socket. */
  async kill(): Promise<void> {
    await this.tmux('kill-server').catch(() => undefined);
    rmSync(this.directory, { recursive: true, force: true });
  }

  private tmux(...args: string[]): Promise<{ stdout: string; stderr: string }> {
    return run('tmux', ['-S', this.socket, '-f', '/dev/null', ...args], { encoding: 'utf8' });
  }
}
