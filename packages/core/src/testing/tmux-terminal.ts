import { execFile, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { until } from './until.js';

const run = promisify(execFile);

/** Fails, saying how to install it, when tmux is not on this machine: the terminal tests need it. */
export function assertTmux(): void {
  const probe = spawnSync('tmux', ['-V'], { encoding: 'utf8' });
  if (probe.error !== undefined || probe.status !== 0)
    throw new Error(
      `tmux is required for the terminal tests and was not found (${probe.error?.message ?? probe.stderr}): ` +
        'install it, e.g. `apt-get install tmux`.',
    );
}

/**
 * A real terminal (a pseudo-terminal, 120×40): a detached tmux session on a server of its
 * own, whose socket is in a temporary directory, so tests never touch the user's tmux and
 * leave nothing behind. The command's exit code is printed as `[exit code N]` and the pane
 * stays open, so the screen can still be read after the command ended.
 */
export class TmuxTerminal {
  private readonly directory = mkdtempSync(join(tmpdir(), 'interlock-tmux-'));
  private readonly socket = join(this.directory, 'tmux.sock');

  private constructor() {}

  /** Starts `command` (a shell command line) in `directory`, with `environment` set. */
  static async start(
    command: string,
    directory: string,
    environment: Readonly<Record<string, string>> = {},
  ): Promise<TmuxTerminal> {
    const terminal = new TmuxTerminal();
    const variables = Object.entries(environment).flatMap(([name, value]) => ['-e', `${name}=${value}`]);
    // tmux 3.3 gives a new session's command the PATH of the client that made it, whatever
    // `-e PATH=…` says: the client runs with the environment too.
    await terminal.tmuxWith(
      { ...process.env, ...environment },
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
    return terminal;
  }

  /** Types keys, in tmux's names (`Enter`, `Down`, `C-c`), or literal text. */
  async sendKeys(...keys: string[]): Promise<void> {
    await this.tmux('send-keys', '-t', 'main', ...keys);
  }

  /** The screen and its scrollback, wrapped lines joined. */
  async screen(): Promise<string> {
    return (await this.tmux('capture-pane', '-p', '-J', '-S', '-500', '-t', 'main')).stdout;
  }

  /**
   * The screen once it holds `expected` (text, or a test of the screen); fails with the last
   * screen seen after `timeoutMs`, a limit only a hang reaches.
   */
  async waitFor(expected: string | ((screen: string) => boolean), timeoutMs = 30_000): Promise<string> {
    const holds = typeof expected === 'string' ? (screen: string) => screen.includes(expected) : expected;
    const what = typeof expected === 'string' ? JSON.stringify(expected) : 'the screen awaited';
    let last = '';
    try {
      return await until(`the terminal to show ${what}`, async () => (last = await this.screen()), holds, {
        timeoutMs,
        intervalMs: 100,
      });
    } catch (error) {
      // A tmux that failed is said as it is; a screen that never showed it, with the screen.
      if (!(error instanceof Error) || !error.message.startsWith('timed out')) throw error;
      throw new Error(`waited ${String(timeoutMs)} ms for ${what}; the screen was:\n${last}`, { cause: error });
    }
  }

  /** Ends the session and its tmux server, and removes the socket. */
  async kill(): Promise<void> {
    await this.tmux('kill-server').catch(() => undefined);
    rmSync(this.directory, { recursive: true, force: true });
  }

  private tmux(...args: string[]): Promise<{ stdout: string; stderr: string }> {
    return this.tmuxWith(process.env, ...args);
  }

  private tmuxWith(env: NodeJS.ProcessEnv, ...args: string[]): Promise<{ stdout: string; stderr: string }> {
    return run('tmux', ['-S', this.socket, '-f', '/dev/null', ...args], { encoding: 'utf8', env });
  }
}
