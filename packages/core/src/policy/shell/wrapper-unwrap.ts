import { literalWord, type ShellWord } from './shell-word.js';
import type { WrapperSpec } from './wrapper-specs.js';

/** What a wrapper's arguments say it runs. */
export interface UnwrappedCommand {
  /** The wrapped command, program first, if any. */
  command: ShellWord[] | undefined;
  /** Variables assigned with `NAME=value` before the command. */
  assignments: string[];
  /** Shell scripts the wrapper runs (`su -c '…'`, `ssh host …`). */
  scripts: ShellWord[];
  /** An option that makes the wrapper do more than run the command. */
  unsafeOption: string | undefined;
  /** The wrapper only looks the command up (`command -v`). */
  lookupOnly: boolean;
  /** Why the options could not be read; `rest` is then tried word by word as the command. */
  problem: string | undefined;
  /** The words from where the command may start. */
  rest: ShellWord[];
  /** The `xargs -I` placeholder. */
  replaceToken: string | undefined;
}

type OptionKind = 'flag' | 'value' | 'script' | 'lookup' | 'optional' | 'unknown';

function kindOf(spec: WrapperSpec, name: string): OptionKind {
  if (spec.scriptOptions?.includes(name)) return 'script';
  if (spec.valueOptions?.includes(name)) return 'value';
  if (spec.lookupOptions?.includes(name)) return 'lookup';
  if (spec.flags?.includes(name)) return 'flag';
  if (spec.optionalValueOptions?.includes(name)) return 'optional';
  return 'unknown';
}

const REPLACE_OPTIONS = new Set(['-I', '-i', '--replace']);

/** Records what one option means; returns false when it is unknown. */
function record(spec: WrapperSpec, name: string, value: ShellWord | undefined, result: UnwrappedCommand): boolean {
  const kind = kindOf(spec, name);
  if (kind === 'unknown') return false;
  if (spec.unsafeOptions?.includes(name)) result.unsafeOption = name;
  if (kind === 'lookup') result.lookupOnly = true;
  if (kind === 'script' && value) result.scripts.push(value);
  if (REPLACE_OPTIONS.has(name) && spec.stdinArguments) result.replaceToken = value?.text || '{}';
  return true;
}

/** Reads the option at `index`; returns the index after it (and its value), or -1 when it is unknown. */
function readOption(spec: WrapperSpec, words: readonly ShellWord[], index: number, result: UnwrappedCommand): number {
  const text = words[index]?.text ?? '';
  if (text.startsWith('--')) {
    const equals = text.indexOf('=');
    const name = equals < 0 ? text : text.slice(0, equals);
    const takesValue = ['value', 'script'].includes(kindOf(spec, name));
    const value = equals >= 0 ? literalWord(text.slice(equals + 1)) : takesValue ? words[index + 1] : undefined;
    if (!record(spec, name, value, result)) return -1;
    return index + (takesValue && equals < 0 ? 2 : 1);
  }
  if (spec.numericOptions && /^-\d+$/.test(text)) return index + 1;
  for (let position = 1; position < text.length; position += 1) {
    const name = `-${text[position] ?? ''}`;
    const attached = text.slice(position + 1);
    const kind = kindOf(spec, name);
    if (kind === 'value' || kind === 'script' || kind === 'optional') {
      const value = attached ? literalWord(attached) : kind === 'optional' ? undefined : words[index + 1];
      if (!record(spec, name, value, result)) return -1;
      return index + (attached || kind === 'optional' ? 1 : 2);
    }
    if (!record(spec, name, undefined, result)) return -1;
  }
  return index + 1;
}

function isAssignment(word: ShellWord | undefined): boolean {
  if (!word?.exact) return false;
  const equals = word.text.indexOf('=');
  return equals > 0 && /^[A-Za-z_][A-Za-z0-9_]*$/.test(word.text.slice(0, equals));
}

/** Joins words into one script text (`ssh host rm -rf /` runs `rm -rf /` through the remote shell). */
function joinWords(words: readonly ShellWord[]): ShellWord {
  const text = words.map((word) => word.text).join(' ');
  return words.every((word) => word.exact) ? literalWord(text) : { ...literalWord(text), exact: false };
}

/** Reads a wrapper's arguments (`words`, without the wrapper's own name) by its spec. */
export function unwrapCommand(spec: WrapperSpec, words: readonly ShellWord[]): UnwrappedCommand {
  const result: UnwrappedCommand = {
    command: undefined,
    assignments: [],
    scripts: [],
    unsafeOption: undefined,
    lookupOnly: false,
    problem: undefined,
    rest: [...words],
    replaceToken: undefined,
  };
  if (spec.opaque) {
    result.problem = 'its options are not known';
    return result;
  }
  let index = 0;
  while (index < words.length) {
    const word = words[index];
    if (!word?.exact) {
      result.problem = `the option ${word?.text ?? ''} is only known when it runs`;
      result.rest = words.slice(index);
      return result;
    }
    if (word.text === '--') {
      index += 1;
      break;
    }
    if (word.text === '-' && spec.flags?.includes('-')) {
      index += 1;
      continue;
    }
    if (!word.text.startsWith('-') || word.text === '-') break;
    const next = readOption(spec, words, index, result);
    if (next < 0) {
      result.problem = `${word.text} is not a known option`;
      result.rest = words.slice(index + 1);
      return result;
    }
    index = next;
  }
  index += Math.min(spec.leadingOperands ?? 0, words.length - index);
  while (spec.assignments && isAssignment(words[index])) {
    result.assignments.push(words[index]?.text.split('=')[0] ?? '');
    index += 1;
  }
  const remaining = words.slice(index);
  result.rest = remaining;
  if (spec.noCommand) return result;
  if (spec.commandIsScript) {
    if (remaining.length > 0) result.scripts.push(joinWords(remaining));
    return result;
  }
  if (remaining.length > 0) result.command = remaining;
  else if (spec.defaultCommand) result.command = [literalWord(spec.defaultCommand)];
  return result;
}
