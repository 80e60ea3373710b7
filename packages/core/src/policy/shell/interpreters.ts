import { hasFlag, operandsOf } from './argument-predicates.js';

/** Shells: what they run can be parsed and classified like the command itself. */
export const SHELLS: ReadonlySet<string> = new Set([
  'sh',
  'bash',
  'zsh',
  'dash',
  'ksh',
  'mksh',
  'ash',
  'yash',
  'rbash',
  'fish',
  'csh',
  'tcsh',
]);

/** Programs that fetch from the network: piping their output into an interpreter is banned. */
export const FETCHERS: ReadonlySet<string> = new Set([
  'curl',
  'wget',
  'fetch',
  'aria2c',
  'http',
  'https',
  'xh',
  'lwp-request',
  'GET',
  'nc',
  'ncat',
  'netcat',
  'socat',
]);

/** Flags that give other interpreters their program inline, so that standard input stays data. */
const INLINE_PROGRAM_FLAGS: ReadonlyMap<string, readonly string[]> = new Map([
  ['python', ['-c', '-m']],
  ['node', ['-e', '--eval', '-p', '--print', '--test']],
  ['nodejs', ['-e', '--eval', '-p', '--print']],
  ['deno', ['eval']],
  ['bun', ['-e', '--eval', '-p', '--print']],
  ['perl', ['-e', '-E']],
  ['ruby', ['-e']],
  ['php', ['-r']],
  ['lua', ['-e']],
  ['luajit', ['-e']],
  ['osascript', ['-e']],
  ['Rscript', ['-e']],
  ['tclsh', []],
  ['wish', []],
  ['pwsh', ['-c', '-Command', '-f', '-File']],
  ['powershell', ['-c', '-Command', '-f', '-File']],
  ['irb', []],
  ['jshell', []],
]);

/** The interpreter family of a program name (`python3.12` is `python`). */
function interpreterFamily(name: string): string | undefined {
  if (INLINE_PROGRAM_FLAGS.has(name)) return name;
  if (name.startsWith('python')) return 'python';
  if (name.startsWith('lua')) return 'lua';
  if (/^(perl|ruby|php)[0-9.]+$/.test(name)) return name.replace(/[0-9.]+$/, '');
  return undefined;
}

/** True for programs that run code given to them (shells, python, node, perl, ruby, …). */
export function isInterpreter(name: string): boolean {
  return SHELLS.has(name) || interpreterFamily(name) !== undefined;
}

/** True when a non-shell interpreter would read the program it runs from standard input. */
export function interpreterReadsStdin(name: string, args: readonly string[]): boolean {
  const family = interpreterFamily(name);
  if (family === undefined) return false;
  if (operandsOf(args).includes('-')) return true;
  const inline = INLINE_PROGRAM_FLAGS.get(family) ?? [];
  if (inline.some((flag) => args.includes(flag)) || hasFlag(args, ...inline.filter((flag) => flag.length === 2)))
    return false;
  return operandsOf(args).length === 0;
}

/** How a shell was asked to run. */
export interface ShellArguments {
  /** Index (in the arguments) of the `-c` script, if any. */
  scriptIndex: number | undefined;
  /** It reads its commands from standard input. */
  readsStdin: boolean;
  /** The script file it runs, if any. */
  scriptFile: string | undefined;
  /** Options beyond the plain ones (`-i`, `-l`, `--rcfile`): it may read startup files. */
  unusualOption: string | undefined;
}

const PLAIN_SHELL_LETTERS = new Set(['c', 'e', 'u', 'x', 'v', 'f', 'o', 's']);
const PLAIN_LONG_OPTIONS = new Set(['--norc', '--noprofile', '--posix']);
const LONG_WITH_VALUE = new Set(['--rcfile', '--init-file']);

/** Reads `sh`/`bash` options: `-c script`, `-s`, a script file, or standard input. */
export function parseShellArguments(args: readonly string[]): ShellArguments {
  let command = false;
  let stdin = false;
  let unusualOption: string | undefined;
  let index = 0;
  for (; index < args.length; index += 1) {
    const arg = args[index] ?? '';
    if (arg === '--' || arg === '-') {
      index += 1;
      break;
    }
    if (!(arg.startsWith('-') || arg.startsWith('+'))) break;
    if (arg.startsWith('--')) {
      if (!PLAIN_LONG_OPTIONS.has(arg)) unusualOption ??= arg;
      if (LONG_WITH_VALUE.has(arg)) index += 1;
      continue;
    }
    for (const letter of arg.slice(1)) {
      if (letter === 'c') command = true;
      if (letter === 's') stdin = true;
      if (letter === 'o' || letter === 'O') index += 1;
      if (!PLAIN_SHELL_LETTERS.has(letter)) unusualOption ??= arg;
    }
  }
  const first = args[index];
  if (command)
    return {
      scriptIndex: first === undefined ? undefined : index,
      readsStdin: false,
      scriptFile: undefined,
      unusualOption,
    };
  if (stdin || first === undefined)
    return { scriptIndex: undefined, readsStdin: true, scriptFile: undefined, unusualOption };
  return { scriptIndex: undefined, readsStdin: false, scriptFile: first, unusualOption };
}
