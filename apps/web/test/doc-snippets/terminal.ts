import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { until } from '@interlock/core/testing';

const run = promisify(execFile);

/**
 * A real terminal for a snippet that shows one (tmux, 120×40, on a server of its own whose
 * socket is in a temporary directory): the command's exit code is printed as
 * `[exit code N]`, and the screen stays readable after it ended.
 */
export class Terminal {
  private readonly directory = mkdtempSync(join(tmpdir(), 'interlock-doc-terminal-'));
  private readonly socket = join(this.directory, 'tmux.sock');

  private constructor() {}

  /** Starts `command` (a shell line) in `directory`, with `environment` set. */
  static async start(command: string, directory: string, environment: Record<string, string>): Promise<Terminal> {
    const terminal = new Terminal();
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

  /** Types keys, in tmux's names (`Enter`, `Down`), or text after `-l`. */
  async sendKeys(...keys: string[]): Promise<void> {
    await this.tmux('send-keys', '-t', 'main', ...keys);
  }

  /** The screen and its scrollback, wrapped lines joined. */
  async screen(): Promise<string> {
    return (await this.tmux('capture-pane', '-p', '-J', '-S', '-500', '-t', 'main')).stdout;
  }

  /** The screen once it holds `expected` (text, or a test of the screen). */
  waitFor(expected: string | ((screen: string) => boolean), timeoutMs = 30_000): Promise<string> {
    const holds = typeof expected === 'string' ? (screen: string) => screen.includes(expected) : expected;
    return until(
      `the terminal to show ${typeof expected === 'string' ? expected : 'the screen awaited'}`,
      () => this.screen(),
      holds,
      {
        timeoutMs,
        intervalMs: 100,
      },
    );
  }

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

/** Fails, saying how to install it, when tmux is not on this machine. */
export async function assertTmux(): Promise<void> {
  await run('tmux', ['-V']).catch(() => {
    throw new Error('tmux is not installed: apt-get install tmux (the terminal snippets run in it)');
  });
}
