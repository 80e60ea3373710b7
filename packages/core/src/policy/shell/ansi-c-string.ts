const SIMPLE_ESCAPES: Readonly<Record<string, string>> = {
  a: '\x07',
  b: '\b',
  e: '\x1b',
  E: '\x1b',
  f: '\f',
  n: '\n',
  r: '\r',
  t: '\t',
  v: '\v',
  '\\': '\\',
  "'": "'",
  '"': '"',
  '?': '?',
};

const HEX = '0123456789abcdefABCDEF';
const OCTAL = '01234567';

/** Reads up to `max` digits of `alphabet` from `source` at `start`. */
function digits(source: string, start: number, max: number, alphabet: string): string {
  let end = start;
  while (end < source.length && end - start < max && alphabet.includes(source[end] ?? '')) end += 1;
  return source.slice(start, end);
}

/**
 * Decodes the body of a bash `$'…'` string (`\n`, `\xHH`, `\uHHHH`, `\NNN`, `\cX`, …),
 * so that what the word really holds (control characters included) can be checked.
 */
export function decodeAnsiCString(body: string): string {
  let result = '';
  let index = 0;
  while (index < body.length) {
    const character = body[index] ?? '';
    const next = body[index + 1];
    if (character !== '\\' || next === undefined) {
      result += character;
      index += 1;
      continue;
    }
    const simple = SIMPLE_ESCAPES[next];
    if (simple !== undefined) {
      result += simple;
      index += 2;
    } else if (next === 'x' || next === 'u' || next === 'U') {
      const hex = digits(body, index + 2, next === 'x' ? 2 : next === 'u' ? 4 : 8, HEX);
      result += hex ? String.fromCodePoint(Math.min(Number.parseInt(hex, 16), 0x10ffff)) : `\\${next}`;
      index += 2 + hex.length;
    } else if (OCTAL.includes(next)) {
      const octal = digits(body, index + 1, 3, OCTAL);
      result += String.fromCodePoint(Number.parseInt(octal, 8) & 0xff);
      index += 1 + octal.length;
    } else if (next === 'c' && body[index + 2] !== undefined) {
      result += String.fromCodePoint((body.codePointAt(index + 2) ?? 0) & 0x1f);
      index += 3;
    } else {
      result += character + next;
      index += 2;
    }
  }
  return result;
}
