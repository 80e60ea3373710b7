import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ExitCode } from './exit-code.js';
import { COMMAND_LINES, runCli } from './run-cli.js';

/*
 * Issue 37: the docs say what the program does. Each of these fails when a command, a flag,
 * an exit code or a requirement id is documented but missing from the program, or is in the
 * program but missing from the docs: the top-level --help, the CLI's README, docs/cli.md
 * (docs/mcp.md for `interlock mcp`), and docs/requirements.md.
 */

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');
const README = 'apps/cli/README.md';
const CLI_DOC = 'docs/cli.md';

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

async function helpOf(...command: string[]): Promise<string> {
  written = '';
  expect(await runCli([...command, '--help'])).toBe(ExitCode.completed);
  return written;
}

/** The lines of a markdown section, from its heading to the next heading of its level or above. */
function section(markdown: string, heading: string): string {
  const start = markdown.indexOf(`${heading}\n`);
  if (start < 0) throw new Error(`no section "${heading}"`);
  const level = /^#+/.exec(heading)?.[0] ?? '#';
  const rest = markdown.slice(start + heading.length + 1);
  const end = rest.search(new RegExp(`^#{1,${level.length}} `, 'm'));
  return end < 0 ? rest : rest.slice(0, end);
}

/** The command lines a text names as `interlock <command>` (and `<subcommand>` for config, mcp and receipts), at the start of a table cell or usage line. */
function commandLinesIn(text: string): Set<string> {
  const found = new Set<string>();
  for (const match of text.matchAll(/(?:^\s*|\|\s*`)interlock ([a-z]+)(?: ([a-z]+))?/gm)) {
    const [, command = '', sub] = match;
    found.add(
      command === 'config' || command === 'mcp' || command === 'receipts' ? `${command} ${sub ?? ''}`.trim() : command,
    );
  }
  found.delete('help');
  return found;
}

/** The exit codes a table (`| 0 | …`) or a help's "Exit codes:" section lists. */
function exitCodesIn(text: string): number[] {
  return [...text.matchAll(/^(?:\|\s*|\s{2})(\d{1,3})\s{2,}|^\|\s*(\d{1,3})\s*\|/gm)]
    .map((match) => Number(match[1] ?? match[2]))
    .sort((a, b) => a - b);
}

/** The `--flags` a text mentions. */
function flagsIn(text: string): Set<string> {
  return new Set([...text.matchAll(/(?<![\w-])--[a-z][a-z-]*[a-z]/g)].map((match) => match[0]));
}

/** The `--flags` a help's "Options:" sections list: what the command accepts (help-matches-options.test.ts holds them equal). */
function optionsIn(help: string): Set<string> {
  const options = new Set<string>();
  for (const match of help.matchAll(/\nOptions:\n([\s\S]*?)(?:\n\n|$)/g))
    for (const line of (match[1] ?? '').split('\n')) {
      const option = /^\s+(?:-\w, )?(--[a-z][a-z-]*)/.exec(line)?.[1];
      if (option !== undefined) options.add(option);
    }
  return options;
}

const PROGRAM_CODES = [...new Set(Object.values(ExitCode))].sort((a, b) => a - b);

describe('the docs and the program agree (issue 37)', () => {
  it('lists every command the program takes, and no other, in --help, the README and docs/cli.md', async () => {
    const program = new Set(COMMAND_LINES);
    const usage = /Usage:\n([\s\S]*?)\n\n/.exec(await helpOf())?.[1] ?? '';
    expect(commandLinesIn(usage), 'interlock --help').toEqual(program);
    expect(commandLinesIn(section(read(README), '## Commands')), README).toEqual(program);
    expect(commandLinesIn(section(read(CLI_DOC), '## Commands and exit codes')), CLI_DOC).toEqual(program);
  });

  it('lists every exit code the program uses, and no other, in --help, the README and docs/cli.md', async () => {
    const help = /\nExit codes:\n([\s\S]*?)(?:\n\n|$)/.exec(await helpOf())?.[1] ?? '';
    expect(exitCodesIn(help), 'interlock --help').toEqual(PROGRAM_CODES);
    expect(exitCodesIn(section(read(README), '## Exit codes')), README).toEqual(PROGRAM_CODES);
    expect(exitCodesIn(section(read(CLI_DOC), '## Commands and exit codes')), CLI_DOC).toEqual(PROGRAM_CODES);
  });

  it('documents every option a command accepts, and names no flag the program does not know', async () => {
    const helps = [await helpOf()];
    for (const line of COMMAND_LINES) helps.push(await helpOf(...line.split(' ')));
    const accepted = new Set(helps.flatMap((help) => [...optionsIn(help)]));
    const known = new Set([...helps.flatMap((help) => [...flagsIn(help)]), '--help', '--version']);
    const docs = [README, CLI_DOC, 'docs/mcp.md'].map(read).join('\n');
    const documented = flagsIn(docs);
    expect(
      [...accepted].filter((flag) => !documented.has(flag)),
      'accepted but not documented',
    ).toEqual([]);
    expect(
      [...documented].filter((flag) => !known.has(flag)),
      'documented but unknown to the program',
    ).toEqual([]);
  });
});

describe('docs/requirements.md (issue 37)', () => {
  const page = read('docs/requirements.md');
  const listed = [...page.matchAll(/^- \*\*F(\d+)\*\*/gm)].map((match) => Number(match[1]));

  it('lists F1 to its last id once each, and says so in its title', () => {
    const last = Math.max(...listed);
    expect(listed).toEqual(Array.from({ length: last }, (_, index) => index + 1));
    expect(page.split('\n')[0]).toBe(`# Requirements (F1–F${last})`);
  });

  it('lists every id the code cites', () => {
    const cited = new Set<number>();
    const visit = (directory: string): void => {
      for (const name of readdirSync(join(ROOT, directory))) {
        if (name === 'node_modules' || name === 'dist' || name.startsWith('.')) continue;
        const path = join(directory, name);
        if (statSync(join(ROOT, path)).isDirectory()) visit(path);
        else if (name.endsWith('.ts'))
          for (const match of read(path).matchAll(/\bF(\d{1,2})\b/g)) cited.add(Number(match[1]));
      }
    };
    for (const directory of ['packages', 'apps', 'bench']) visit(directory);
    expect([...cited].filter((id) => !listed.includes(id)).map((id) => `F${id}`)).toEqual([]);
  });
});
