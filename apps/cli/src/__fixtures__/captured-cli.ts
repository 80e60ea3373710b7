import { afterEach, beforeEach, expect, vi } from 'vitest';
import { ExitCode } from '../exit-code.js';
import { runCli } from '../run-cli.js';

/**
 * Runs the program in this process with what it writes to stdout and stderr captured
 * (for each test, restored after it): `run` gives the exit code and what it wrote, `help`
 * what `interlock <command> --help` printed, once it succeeded.
 */
export function capturedCli() {
  let written = '';
  beforeEach(() => {
    written = '';
    const capture = (chunk: string | Uint8Array): boolean => {
      written += String(chunk);
      return true;
    };
    vi.spyOn(process.stdout, 'write').mockImplementation(capture);
    vi.spyOn(process.stderr, 'write').mockImplementation(capture);
  });
  afterEach(() => {
    vi.restoreAllMocks();
  });

  async function run(args: string[]): Promise<{ code: number; written: string }> {
    written = '';
    const code = await runCli(args);
    return { code, written };
  }

  return {
    run,
    async help(...command: string[]): Promise<string> {
      const { code, written: help } = await run([...command, '--help']);
      expect(code).toBe(ExitCode.completed);
      return help;
    },
  };
}

/** The `--flags` a help's "Options:" sections list: what the command accepts (help-matches-options.test.ts holds them equal). */
export function optionsIn(help: string): Set<string> {
  const options = new Set<string>();
  for (const match of help.matchAll(/\nOptions:\n([\s\S]*?)(?:\n\n|$)/g))
    for (const line of (match[1] ?? '').split('\n')) {
      const option = /^\s+(?:-\w, )?(--[a-z][a-z-]*)/.exec(line)?.[1];
      if (option !== undefined) options.add(option);
    }
  return options;
}
