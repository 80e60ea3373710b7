import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { runCli } from './run-cli.js';

const COMMANDS = [
  'run',
  'demo',
  'threads',
  'pending',
  'respond',
  'resume',
  'audit',
  'explain',
  'validate',
  'worker',
  'mcp',
  'receipts',
] as const;

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

/** The options a command's `--help` lists in its "Options:" section. */
async function documentedOptions(command: string): Promise<string[]> {
  written = '';
  expect(await runCli([command, '--help'])).toBe(0);
  const section = /\nOptions:\n([\s\S]*?)(?:\n\n|$)/.exec(written)?.[1] ?? '';
  return section.split('\n').flatMap((line) => /^\s+(?:-\w, )?--([a-z][a-z-]*)/.exec(line)?.[1] ?? []);
}

/** Whether the command accepts `--option` (given a value, before `--help`). */
async function accepts(command: string, option: string): Promise<boolean> {
  written = '';
  const code = await runCli([command, `--${option}`, 'value', '--help']);
  return code === 0;
}

describe("every command's --help lists exactly the options it accepts (issue 5)", () => {
  it.each(COMMANDS)('interlock %s', async (command) => {
    const documented = await documentedOptions(command);
    expect(documented).toContain('help');
    for (const option of documented) expect(await accepts(command, option), `--${option} is documented`).toBe(true);

    const everyOption = new Set<string>();
    for (const other of COMMANDS) for (const option of await documentedOptions(other)) everyOption.add(option);
    const undocumented: string[] = [];
    for (const option of everyOption)
      if (!documented.includes(option) && (await accepts(command, option))) undocumented.push(option);
    expect(undocumented, 'accepted but not in --help').toEqual([]);
  });
});
