/**
 * Decides whether an awk invocation only reads and prints. awk can run commands
 * (`system()`, `"cmd" | getline`, `print | "cmd"`), write files (`print > "f"`) and load
 * code (`@load`, `-f`, `-l`), so any program text with `system`, `|`, `>` or `@` outside
 * string literals is not provably safe — comparisons with `>` included, on purpose.
 */

import { unseen, type ArgumentProblem } from './hidden-effects.js';

const SHORT_WITH_VALUE = new Set(['F', 'v']);
const SHORT_FLAGS = new Set(['b', 'c', 'M', 'n', 'N', 'P', 'r', 's', 'S', 't']);
const LONG_WITH_VALUE = new Set(['--field-separator', '--assign']);
const LONG_FLAGS = new Set([
  '--traditional',
  '--posix',
  '--re-interval',
  '--characters-as-bytes',
  '--use-lc-numeric',
  '--bignum',
  '--non-decimal-data',
  '--no-optimize',
  '--sandbox',
]);

/** Removes string literals so that `print "a | b"` is not mistaken for a pipe. */
function withoutStrings(program: string): string {
  let result = '';
  let inString = false;
  for (let index = 0; index < program.length; index += 1) {
    const character = program[index] ?? '';
    if (inString) {
      if (character === '\\') index += 1;
      else if (character === '"') inString = false;
    } else if (character === '"') {
      inString = true;
      result += '""';
    } else {
      result += character;
    }
  }
  return result;
}

/** Why an awk program is not provably safe, or undefined. */
function checkAwkProgram(program: string): string | undefined {
  const code = withoutStrings(program);
  if (/\bsystem\b/.test(code)) return 'awk system() runs commands';
  if (code.includes('|')) return 'awk pipes run commands';
  if (code.includes('>')) return 'awk > may write files';
  if (code.includes('@')) return 'awk @load / @include load code';
  return undefined;
}

/** The value written into the option itself (`--source=x`, `-ex`), if any. */
function inlineValue(arg: string): string | undefined {
  if (arg.startsWith('--')) return arg.includes('=') ? arg.slice(arg.indexOf('=') + 1) : undefined;
  return arg.length > 2 ? arg.slice(2) : undefined;
}

/** Collects the program texts; returns a reason when an option is unsafe. */
function collectPrograms(args: readonly string[]): { programs: string[]; problem?: string } {
  const programs: string[] = [];
  let operandIndex = -1;
  for (let index = 0; index < args.length; index += 1) {
    const arg = args[index] ?? '';
    if (arg === '--' || !arg.startsWith('-') || arg === '-') {
      operandIndex = arg === '--' ? index + 1 : index;
      break;
    }
    const name = arg.startsWith('--') ? (arg.split('=')[0] ?? arg) : arg.slice(0, 2);
    if (name === '-e' || name === '--source') {
      const inline = inlineValue(arg);
      if (inline === undefined) index += 1;
      programs.push(inline ?? args[index] ?? '');
    } else if (LONG_WITH_VALUE.has(name)) {
      if (!arg.includes('=')) index += 1;
    } else if (arg.startsWith('--')) {
      if (!LONG_FLAGS.has(name)) return { programs, problem: `awk ${name} is not known to be safe` };
    } else if (SHORT_WITH_VALUE.has(arg[1] ?? '')) {
      if (arg.length === 2) index += 1;
    } else {
      // Code points, not graphemes, are right here: anything but an ASCII flag letter fails the check.
      // eslint-disable-next-line @typescript-eslint/no-misused-spread -- see above
      const flags = [...arg.slice(1)];
      if (!flags.every((flag) => SHORT_FLAGS.has(flag)))
        return { programs, problem: `awk ${arg} is not known to be safe` };
    }
  }
  if (programs.length === 0) {
    const program = operandIndex >= 0 ? args[operandIndex] : undefined;
    if (program === undefined) return { programs, problem: 'awk without a program text' };
    programs.push(program);
  }
  return { programs };
}

/**
 * Why an awk invocation is not provably safe, or undefined when it is. Every reason hides
 * something from the rules — a command run by `system()` or a pipe, a file written by
 * `>`, code loaded from a file — so each asks in every mode (issue 24).
 */
export function checkAwkArguments(args: readonly string[]): ArgumentProblem | undefined {
  const { programs, problem } = collectPrograms(args);
  if (problem) return unseen(problem);
  for (const program of programs) {
    const programProblem = checkAwkProgram(program);
    if (programProblem) return unseen(programProblem);
  }
  return undefined;
}
