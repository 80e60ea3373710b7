import { describe, expect, it } from 'vitest';
import { capturedCli, optionsIn } from './__fixtures__/captured-cli.js';

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

const cli = capturedCli();

/** The options a command's `--help` lists in its "Options:" section. */
async function documentedOptions(command: string): Promise<string[]> {
  return [...optionsIn(await cli.help(command))].map((option) => option.slice('--'.length));
}

/** Whether the command accepts `--option` (given a value, before `--help`). */
async function accepts(command: string, option: string): Promise<boolean> {
  return (await cli.run([command, `--${option}`, 'value', '--help'])).code === 0;
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
