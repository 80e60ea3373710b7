import { InterlockError } from '../../errors/interlock-error.js';

/** A UTF-16 surrogate without its other half: not valid Unicode, so not valid UTF-8 text. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * True when `text` can sit as-is in a text column of both databases: PostgreSQL's text
 * cannot hold NUL (U+0000), and neither database keeps an unpaired surrogate (SQLite
 * replaces it, PostgreSQL refuses it).
 */
export function isStorableText(text: string): boolean {
  return !text.includes('\u0000') && !LONE_SURROGATE.test(text);
}

/**
 * Returns `text` if it can be stored in a plain text column (ids, names, statuses,
 * timestamps); free text and values go through {@link encodeJson} instead, which escapes
 * what a column cannot hold.
 *
 * @throws InterlockError INVALID_OPTIONS when the text holds NUL or an unpaired surrogate.
 */
export function storableText(text: string, what: string): string {
  if (isStorableText(text)) return text;
  throw new InterlockError(
    'INVALID_OPTIONS',
    `${what} ${JSON.stringify(text)} cannot be stored: identifiers and names may not contain NUL (\\u0000) or unpaired surrogates, which a PostgreSQL text column cannot hold; use plain text`,
    { details: { field: what } },
  );
}

/**
 * Serializes a value to JSON text. JSON.stringify escapes NUL and unpaired surrogates
 * (`\u0000`, `\ud800`), so the text is storable on both databases and parses back to
 * the same string.
 *
 * @throws InterlockError INVALID_OPTIONS when the value is not JSON (undefined, a BigInt, a cycle).
 */
export function encodeJson(value: unknown, what: string): string {
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch (error) {
    throw new InterlockError('INVALID_OPTIONS', `${what} cannot be stored: it is not JSON data (${String(error)})`, {
      cause: error,
    });
  }
  // JSON.stringify returns undefined for undefined, a function or a symbol, whatever its type says.
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- see above
  if (text === undefined) {
    throw new InterlockError('INVALID_OPTIONS', `${what} cannot be stored: it is not JSON data (${typeof value})`);
  }
  return text;
}

/** Like {@link encodeJson}, with `undefined` stored as SQL NULL. */
export function encodeOptionalJson(value: unknown, what: string): string | null {
  return value === undefined ? null : encodeJson(value, what);
}

/**
 * Parses JSON text read from the database.
 *
 * @throws InterlockError INTERNAL when the stored text is not JSON (the row was damaged).
 */
export function decodeJson(text: string, what: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new InterlockError(
      'INTERNAL',
      `the stored ${what} is not valid JSON: the database row was changed outside Interlock`,
      {
        cause: error,
      },
    );
  }
}

/** Parses optional JSON text read from the database: SQL NULL reads back as `undefined`. */
export function decodeOptionalJson(text: string | null, what: string): unknown {
  return text === null ? undefined : decodeJson(text, what);
}
