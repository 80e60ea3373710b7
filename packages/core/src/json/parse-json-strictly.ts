import { InterlockError } from '../errors/interlock-error.js';

/** How deep a JSON text may nest before it is refused unread. */
export const MAX_JSON_DEPTH = 64;

/**
 * Parses JSON text a person or a program sent, refusing what readers could take two ways:
 * an object with the same key twice (`{"action":"reject","action":"approve"}` — JSON.parse
 * keeps the last, a proxy or a log reader may keep the first), a `__proto__` key (which
 * code copying the value could turn into a prototype), and nesting deeper than `maxDepth`,
 * which is checked by one flat scan before anything recurses.
 *
 * @throws InterlockError JSON_INVALID with `details.problem` `syntax`, `duplicate-key`, `prototype-key` or `too-deep`.
 *
 * @example
 * parseJsonStrictly('{"a":1}');          // { a: 1 }
 * parseJsonStrictly('{"a":1,"a":2}');    // throws JSON_INVALID (duplicate-key)
 */
export function parseJsonStrictly(text: string, maxDepth = MAX_JSON_DEPTH): unknown {
  const scan = scanJson(text, maxDepth);
  if (scan.tooDeep) throw invalid('too-deep', `the JSON nests deeper than ${maxDepth} levels: send a flatter value`);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw invalid('syntax', `the text is not JSON (${(error as Error).message})`);
  }
  if (scan.duplicate === '__proto__')
    throw invalid('prototype-key', 'the key "__proto__" is not accepted: rename it', { key: '__proto__' });
  if (scan.duplicate !== undefined) {
    throw invalid(
      'duplicate-key',
      `the key ${JSON.stringify(scan.duplicate)} appears twice in one object: send each key once`,
      { key: scan.duplicate },
    );
  }
  return value;
}

function invalid(
  problem: 'syntax' | 'duplicate-key' | 'prototype-key' | 'too-deep',
  message: string,
  extra: Record<string, unknown> = {},
): InterlockError {
  return new InterlockError('JSON_INVALID', message, { details: { problem, ...extra } });
}

/**
 * One pass over the text: the deepest nesting (stopping past `maxDepth`) and the first key
 * an object holds twice, or a `__proto__` key (keys compared decoded, so `"a"` and `"\u0061"` are the same key).
 * Meaningful on valid JSON; on invalid text JSON.parse reports the syntax error.
 */
function scanJson(text: string, maxDepth: number): { tooDeep: boolean; duplicate?: string } {
  const open: (Set<string> | undefined)[] = []; // a key set per open object, undefined per array
  let expectKey = false;
  let duplicate: string | undefined;
  for (let index = 0; index < text.length; index += 1) {
    switch (text[index]) {
      case '{':
      case '[':
        open.push(text[index] === '{' ? new Set() : undefined);
        if (open.length > maxDepth) return { tooDeep: true };
        expectKey = text[index] === '{';
        break;
      case '}':
      case ']':
        open.pop();
        expectKey = false;
        break;
      case ',':
        expectKey = open[open.length - 1] !== undefined;
        break;
      case '"': {
        let end = index + 1;
        while (end < text.length && text[end] !== '"') end += text[end] === '\\' ? 2 : 1;
        const keys = open[open.length - 1];
        if (expectKey && keys !== undefined && duplicate === undefined) {
          const key = decodedString(text.slice(index, end + 1));
          if (key !== undefined && (keys.has(key) || key === '__proto__')) duplicate = key;
          if (key !== undefined) keys.add(key);
        }
        expectKey = false;
        index = end;
        break;
      }
    }
  }
  return duplicate === undefined ? { tooDeep: false } : { tooDeep: false, duplicate };
}

function decodedString(literal: string): string | undefined {
  try {
    return JSON.parse(literal) as string;
  } catch {
    return undefined;
  }
}
