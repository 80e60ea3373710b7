/**
 * Decides whether a sed invocation only reads: no `-i`, no script file, and scripts
 * without the `w`/`W` (write) and `e` (execute) commands or the `s///w`/`s///e` flags.
 * The script scanner is conservative: anything it does not understand is unsafe.
 */

import { unseen, type ArgumentProblem } from './hidden-effects.js';

const IN_PLACE = 'sed -i edits files in place';
const FLAGS_WITHOUT_VALUE = new Set(['n', 's', 'E', 'r', 'u', 'z']);
const LONG_FLAGS = new Set([
  '--quiet',
  '--silent',
  '--regexp-extended',
  '--separate',
  '--unbuffered',
  '--null-data',
  '--debug',
  '--posix',
  '--sandbox',
]);
const COMMANDS_WITHOUT_ARGUMENT = new Set([
  '=',
  'd',
  'D',
  'g',
  'G',
  'h',
  'H',
  'n',
  'N',
  'p',
  'P',
  'x',
  'z',
  'F',
  '{',
  '}',
]);
/** Commands followed by an optional number (`q5`, `l 70`). */
const COMMANDS_WITH_NUMBER = new Set(['q', 'Q', 'l', 'L']);
/** Commands followed by a label; it is taken to end at `;` even where GNU sed reads further, which only checks more. */
const COMMANDS_WITH_LABEL = new Set([':', 'b', 't', 'T', 'v']);
/** Commands whose text or file name runs to the end of the line. */
const COMMANDS_WITH_TEXT = new Set(['a', 'i', 'c', 'r', 'R']);
const SUBSTITUTE_FLAGS = 'gpiImM0123456789';

/** Collects the scripts of `sed` arguments; returns a reason when the arguments themselves are unsafe. */
function collectScripts(args: readonly string[]): { scripts: string[]; problem?: string } {
  const scripts: string[] = [];
  const operands: string[] = [];
  let inPlace = false;
  for (let index = 0; index < args.length; index += 1) {
    const arg = args[index] ?? '';
    if (arg === '--') {
      operands.push(...args.slice(index + 1));
      break;
    }
    if (arg.startsWith('--')) {
      const [name = '', value] = arg.split(/=(.*)/s);
      if (name === '--expression') scripts.push(value ?? args[++index] ?? '');
      else if (name === '--line-length') index += value === undefined ? 1 : 0;
      else if (name === '--in-place') inPlace = true;
      else if (!LONG_FLAGS.has(name)) return { scripts, problem: `sed ${name} is not known to be read-only` };
      continue;
    }
    if (!arg.startsWith('-') || arg === '-') {
      operands.push(arg);
      continue;
    }
    for (let position = 1; position < arg.length; position += 1) {
      const flag = arg[position] ?? '';
      if (FLAGS_WITHOUT_VALUE.has(flag)) continue;
      if (flag === 'e' || flag === 'l') {
        const value = position + 1 < arg.length ? arg.slice(position + 1) : (args[++index] ?? '');
        if (flag === 'e') scripts.push(value);
        break;
      }
      // -i[SUFFIX]: the rest of the word is the backup suffix. The scripts are still checked.
      if (flag === 'i') {
        inPlace = true;
        break;
      }
      return { scripts, problem: `sed -${flag} is not known to be read-only` };
    }
  }
  if (scripts.length === 0 && operands[0] !== undefined) scripts.push(operands[0]);
  return inPlace ? { scripts, problem: IN_PLACE } : { scripts };
}

/** Skips a delimited section (regex or replacement) starting after its opening delimiter; returns the index after the closing one. */
function skipDelimited(script: string, start: number, delimiter: string): number {
  for (let index = start; index < script.length; index += 1) {
    const character = script[index];
    if (character === '\\') index += 1;
    else if (character === delimiter) return index + 1;
  }
  return -1;
}

/** Skips an address (`12`, `$`, `/re/`, `\%re%`, `first~step`, `+N`); returns the index after it. */
function skipAddress(script: string, start: number): number {
  let index = start;
  const character = script[index];
  if (character === '/') return skipDelimited(script, index + 1, '/');
  if (character === '\\') return skipDelimited(script, index + 2, script[index + 1] ?? '');
  while (index < script.length && /[0-9$~+]/.test(script[index] ?? '')) index += 1;
  return index;
}

function skipToLineEnd(script: string, start: number): number {
  const end = script.indexOf('\n', start);
  return end < 0 ? script.length : end + 1;
}

/** Why one sed script is not read-only, or undefined. */
function checkSedScript(script: string): string | undefined {
  let index = 0;
  while (index < script.length) {
    const character = script[index] ?? '';
    if (' \t\n;'.includes(character)) {
      index += 1;
      continue;
    }
    if (character === '#') {
      index = skipToLineEnd(script, index);
      continue;
    }
    index = skipAddress(script, index);
    if (index < 0) return 'sed script has an unterminated address';
    if (script[index] === ',') index = skipAddress(script, index + 1);
    if (index < 0) return 'sed script has an unterminated address';
    while (script[index] === ' ' || script[index] === '!') index += 1;
    const command = script[index] ?? '';
    index += 1;
    if (command === 's' || command === 'y') {
      const delimiter = script[index] ?? '';
      index = skipDelimited(script, index + 1, delimiter);
      if (index >= 0) index = skipDelimited(script, index, delimiter);
      if (index < 0) return `sed ${command} command is unterminated`;
      if (command === 'y') continue;
      while (SUBSTITUTE_FLAGS.includes(script[index] ?? ' ')) index += 1;
      const flag = script[index];
      if (flag === 'w' || flag === 'e') return `sed s///${flag} writes files or runs commands`;
    } else if (command === 'w' || command === 'W' || command === 'e') {
      return `sed ${command} command writes files or runs commands`;
    } else if (COMMANDS_WITH_TEXT.has(command)) {
      index = skipToLineEnd(script, index);
    } else if (COMMANDS_WITH_LABEL.has(command)) {
      index = skipLabel(script, index);
    } else if (COMMANDS_WITH_NUMBER.has(command)) {
      while (script[index] === ' ' || /[0-9]/.test(script[index] ?? '')) index += 1;
    } else if (!COMMANDS_WITHOUT_ARGUMENT.has(command)) {
      return `sed command ${JSON.stringify(command)} is not known to be read-only`;
    }
  }
  return undefined;
}

/** A label after `b`/`t`/`T` ends at `;` or a newline. */
function skipLabel(script: string, start: number): number {
  let index = start;
  while (index < script.length && script[index] !== ';' && script[index] !== '\n' && script[index] !== '}') index += 1;
  return index;
}

/**
 * Why a sed invocation is not provably read-only, or undefined when it is. `-i` edits the
 * files it names (a change the rules see); `e`, `w`, a script file and anything not
 * understood run programs or write files they cannot see (issue 24).
 */
export function checkSedArguments(args: readonly string[]): ArgumentProblem | undefined {
  const { scripts, problem } = collectScripts(args);
  if (problem !== undefined && problem !== IN_PLACE) return unseen(problem);
  for (const script of scripts) {
    const scriptProblem = checkSedScript(script);
    if (scriptProblem) return unseen(scriptProblem);
  }
  return problem;
}
