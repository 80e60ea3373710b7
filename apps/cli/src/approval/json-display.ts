import type { TerminalStyle } from '../terminal-style.js';
import { splitVisible } from './visible-text.js';

/** The colour of each kind of JSON token. */
type Paint = (text: string) => string;

const KEPT_IN_STRINGS: readonly string[] = [];

/**
 * Shows a value as indented JSON for a person: keys cyan, strings green, numbers yellow,
 * booleans and null magenta (when colour is on), and every invisible or bidirectional
 * character inside keys and strings as a red `⟨U+XXXX⟩` marker. Newlines, tabs and quotes
 * in strings are escaped as JSON escapes them, so a multi-line value stays one token.
 *
 * The output is for reading, not for parsing: markers are not JSON escapes.
 *
 * @example
 * displayJson({ command: 'ls\u200B -la' }, createTerminalStyle(false))
 * // '{\n  "command": "ls⟨U+200B⟩ -la"\n}'
 */
export function displayJson(value: unknown, style: TerminalStyle, indent = ''): string {
  if (value === null) return style.magenta('null');
  if (typeof value === 'string') return displayString(value, style, style.green);
  if (typeof value === 'number') return style.yellow(Number.isFinite(value) ? String(value) : 'null');
  if (typeof value === 'boolean') return style.magenta(String(value));
  if (typeof value === 'bigint') return style.yellow(value.toString());
  if (Array.isArray(value)) {
    if (value.length === 0) return '[]';
    const inner = `${indent}  `;
    const items = value.map(
      (item: unknown) => `${inner}${displayJson(item === undefined ? null : item, style, inner)}`,
    );
    return `[\n${items.join(',\n')}\n${indent}]`;
  }
  if (typeof value === 'object') {
    const entries = Object.entries(value).filter(([, item]) => item !== undefined && typeof item !== 'function');
    if (entries.length === 0) return '{}';
    const inner = `${indent}  `;
    const lines = entries.map(
      ([key, item]) => `${inner}${displayString(key, style, style.cyan)}: ${displayJson(item, style, inner)}`,
    );
    return `{\n${lines.join(',\n')}\n${indent}}`;
  }
  // undefined, a function or a symbol: not JSON, shown as its type.
  return style.dim(typeof value);
}

/** A JSON string literal with its invisible characters as markers. */
export function displayString(text: string, style: TerminalStyle, paint: Paint): string {
  const body = splitVisible(text, { keep: KEPT_IN_STRINGS }).map((segment) => {
    if (!segment.marker) return paint(escapeJsonText(segment.text));
    const escape = JSON_ESCAPES[segment.text];
    return escape === undefined ? style.red(style.bold(segment.text)) : paint(escape);
  });
  return paint('"') + body.join('') + paint('"');
}

/** Newline, tab and carriage return read better as their JSON escapes than as markers. */
const JSON_ESCAPES: Readonly<Record<string, string>> = { '⟨U+000A⟩': '\\n', '⟨U+0009⟩': '\\t', '⟨U+000D⟩': '\\r' };

/** Escapes what JSON escapes in visible text: the quote and the backslash. */
function escapeJsonText(text: string): string {
  return text.replace(/["\\]/g, (character) => `\\${character}`);
}
