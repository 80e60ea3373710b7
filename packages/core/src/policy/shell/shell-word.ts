import type { Node } from 'web-tree-sitter';
import { decodeAnsiCString } from './ansi-c-string.js';

/** The value of one shell word (a program name or an argument) as far as it is known before it runs. */
export interface ShellWord {
  /** The value once quotes and escapes are removed; expansions keep their source text (`$HOME`, `$(…)`). */
  text: string;
  /** True when the value is fully known: no expansion, substitution or brace expansion. */
  exact: boolean;
  /** True when every unknown part is a plain parameter expansion (`$NAME`, `${NAME}`, `"$NAME"`). */
  plainExpansionsOnly: boolean;
  /** True when the only unknown is a brace expression (`{a,b}`, `{1..3}`): `expandBraces` gives the words. */
  braceExpansion: boolean;
  /** True when an unquoted `*`, `?` or `[` makes the word a glob. */
  glob: boolean;
  /** True when a substitution inside the word runs a network fetcher (set by the tree visitor). */
  fetchesRemote: boolean;
}

/** A run of characters and how the shell treats it. */
interface Part {
  text: string;
  quoted: boolean;
  dynamic?: 'plain' | 'other';
}

/** Makes a word from known text (for words the analysis derives, like `xargs` input). */
export function literalWord(text: string): ShellWord {
  return { text, exact: true, plainExpansionsOnly: true, braceExpansion: false, glob: false, fetchesRemote: false };
}

/** Evaluates a word node statically: quotes and escapes removed, expansions left unknown. */
export function evaluateWord(node: Node): ShellWord {
  const parts = partsOf(node);
  const text = parts.map((part) => part.text).join('');
  const dynamicParts = parts.filter((part) => part.dynamic !== undefined);
  const brace = hasBraceExpansion(parts);
  return {
    text,
    exact: dynamicParts.length === 0 && !brace,
    plainExpansionsOnly: !brace && dynamicParts.every((part) => part.dynamic === 'plain'),
    braceExpansion: brace && dynamicParts.length === 0,
    glob: parts.some((part) => !part.quoted && part.dynamic === undefined && /[*?[]/.test(part.text)),
    fetchesRemote: false,
  };
}

function partsOf(node: Node): Part[] {
  switch (node.type) {
    case 'word':
      return unquotedParts(node.text);
    case 'number':
      return [{ text: node.text, quoted: false }];
    case 'raw_string':
      return [{ text: node.text.slice(1, -1), quoted: true }];
    case 'ansi_c_string':
      return [{ text: decodeAnsiCString(node.text.slice(2, -1)), quoted: true }];
    case 'string':
      return doubleQuotedParts(node);
    case 'translated_string':
    case 'concatenation':
      return node.children.flatMap(partsOf);
    case 'simple_expansion':
      return [{ text: node.text, quoted: false, dynamic: 'plain' }];
    case 'expansion':
      return [{ text: node.text, quoted: false, dynamic: isPlainExpansion(node) ? 'plain' : 'other' }];
    default:
      return [{ text: node.text, quoted: false, dynamic: 'other' }];
  }
}

/** `${NAME}` with nothing else: no operator, index, indirection or transformation. */
export function isPlainExpansion(node: Node): boolean {
  const types = node.children.map((child) => child.type);
  return (
    types.length === 3 &&
    types[0] === '${' &&
    (types[1] === 'variable_name' || types[1] === 'special_variable_name') &&
    types[2] === '}'
  );
}

/** An unquoted word: a backslash quotes the next character, backslash-newline disappears. */
function unquotedParts(source: string): Part[] {
  const parts: Part[] = [];
  let plain = '';
  for (let index = 0; index < source.length; index += 1) {
    const character = source[index] ?? '';
    if (character !== '\\') {
      plain += character;
      continue;
    }
    const next = source[index + 1];
    index += 1;
    if (next === undefined || next === '\n') continue;
    if (plain) parts.push({ text: plain, quoted: false });
    plain = '';
    parts.push({ text: next, quoted: true });
  }
  if (plain) parts.push({ text: plain, quoted: false });
  return parts;
}

/** Inside double quotes a backslash only escapes `$`, `` ` ``, `"`, `\` and newline. */
function doubleQuotedParts(node: Node): Part[] {
  const children = node.children;
  const parts: Part[] = [];
  children.forEach((child, index) => {
    const isDelimiter = child.type === '"' && (index === 0 || index === children.length - 1);
    if (isDelimiter) return;
    if (child.type === 'string_content') parts.push({ text: unescapeDoubleQuoted(child.text), quoted: true });
    else if (!child.isNamed) parts.push({ text: child.text, quoted: true });
    else parts.push(...partsOf(child).map((part) => ({ ...part, quoted: true })));
  });
  return parts;
}

function unescapeDoubleQuoted(source: string): string {
  let result = '';
  for (let index = 0; index < source.length; index += 1) {
    const character = source[index] ?? '';
    const next = source[index + 1];
    if (character === '\\' && next !== undefined && '$`"\\\n'.includes(next)) {
      if (next !== '\n') result += next;
      index += 1;
    } else {
      result += character;
    }
  }
  return result;
}

/**
 * True when unquoted braces hold a comma or `..` (`{a,b}`, `{1..3}`): bash turns the word
 * into several words, so its text is not its value. `{}` (as in `find -exec`) is not one.
 */
function hasBraceExpansion(parts: readonly Part[]): boolean {
  const shape = parts.map((part) => (part.quoted || part.dynamic ? 'x'.repeat(part.text.length) : part.text)).join('');
  let open = -1;
  for (let index = 0; index < shape.length; index += 1) {
    if (shape[index] === '{') open = index;
    else if (shape[index] === '}' && open >= 0) {
      const inside = shape.slice(open + 1, index);
      if (inside.includes(',') || inside.includes('..')) return true;
      open = -1;
    }
  }
  return false;
}
