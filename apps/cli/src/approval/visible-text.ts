/**
 * Characters a person cannot see, or that reorder what they see, in text a model wrote:
 * controls (C0 but newline and tab, DEL, C1), format characters (zero-width spaces and
 * joiners, bidirectional controls such as U+202E, U+2066–U+2069, U+061C, U+200E/F, the
 * byte-order mark, tag characters), line and paragraph separators, spaces other than
 * U+0020 (no-break, em, ideographic…), Hangul fillers and the supplementary variation
 * selectors. An approval prompt must show exactly what will run, so each becomes a marker.
 */
const INVISIBLE_CATEGORIES = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Zs}]/u;
/** Hangul fillers: letters by category, blank on screen. */
const FILLERS = new Set([0x115f, 0x1160, 0x3164, 0xffa0]);
/** Variation selectors 17–256: invisible, and used to smuggle text. */
const SUPPLEMENTARY_VARIATION_SELECTORS = { first: 0xe0100, last: 0xe01ef };

/** One piece of displayed text: plain text, or the marker that stands for an invisible character or a long blank run. */
export interface VisibleSegment {
  text: string;
  /** True for a marker such as `⟨U+200B⟩` or `⟨200 spaces⟩`. */
  marker: boolean;
}

/**
 * Runs of spaces, tabs and newlines long enough to push what follows off the screen or
 * out of sight (`ls` + 200 spaces + `; rm -rf ~`) are shown as one counted marker: a run
 * with at least this many spaces and tabs, or this many newlines.
 */
export const LONG_BLANK_RUN = { blanks: 24, newlines: 5 } as const;
const BLANK_RUN = /[ \t\n]+/g;

/** `⟨200 spaces⟩`, `⟨3 newlines, 40 spaces⟩`: what a long blank run holds, counted. */
export function blankRunMarker(run: string): string {
  const count = (character: string) => run.split(character).length - 1;
  const parts = [
    [count('\n'), 'newline'],
    [count(' '), 'space'],
    [count('\t'), 'tab'],
  ] as const;
  const described = parts.filter(([n]) => n > 0).map(([n, name]) => `${n} ${name}${n === 1 ? '' : 's'}`);
  return `⟨${described.join(', ')}⟩`;
}

function isLongBlankRun(run: string): boolean {
  const newlines = run.split('\n').length - 1;
  return newlines >= LONG_BLANK_RUN.newlines || run.length - newlines >= LONG_BLANK_RUN.blanks;
}

/** Which characters stay as they are: newline and tab by default (they show as layout). */
export interface VisibleTextOptions {
  keep?: readonly string[];
}

const DEFAULT_KEEP: readonly string[] = ['\n', '\t'];

/** The marker for one code point, e.g. `⟨U+200B⟩` or `⟨U+0007⟩` (at least four hex digits). */
export function codePointMarker(codePoint: number): string {
  return `⟨U+${codePoint.toString(16).toUpperCase().padStart(4, '0')}⟩`;
}

/** True when `character` (one code point) would be hidden or would reorder the text around it. */
export function isInvisible(character: string): boolean {
  if (character === ' ') return false;
  const codePoint = character.codePointAt(0) ?? 0;
  if (FILLERS.has(codePoint)) return true;
  if (codePoint >= SUPPLEMENTARY_VARIATION_SELECTORS.first && codePoint <= SUPPLEMENTARY_VARIATION_SELECTORS.last)
    return true;
  return INVISIBLE_CATEGORIES.test(character);
}

/**
 * Splits text into plain runs and markers for its invisible characters and its long blank
 * runs ({@link LONG_BLANK_RUN}), so a caller can colour the markers.
 *
 * @example
 * splitVisible('a\u200Bb') // [{ text: 'a', marker: false }, { text: '⟨U+200B⟩', marker: true }, { text: 'b', marker: false }]
 */
export function splitVisible(text: string, options: VisibleTextOptions = {}): VisibleSegment[] {
  const segments: VisibleSegment[] = [];
  let from = 0;
  for (const match of text.matchAll(BLANK_RUN)) {
    if (!isLongBlankRun(match[0])) continue;
    segments.push(...splitInvisible(text.slice(from, match.index), options));
    segments.push({ text: blankRunMarker(match[0]), marker: true });
    from = match.index + match[0].length;
  }
  segments.push(...splitInvisible(text.slice(from), options));
  return segments;
}

function splitInvisible(text: string, options: VisibleTextOptions): VisibleSegment[] {
  const keep = options.keep ?? DEFAULT_KEEP;
  const segments: VisibleSegment[] = [];
  let plain = '';
  for (const character of text) {
    if (!keep.includes(character) && isInvisible(character)) {
      if (plain !== '') segments.push({ text: plain, marker: false });
      plain = '';
      segments.push({ text: codePointMarker(character.codePointAt(0) ?? 0), marker: true });
    } else {
      plain += character;
    }
  }
  if (plain !== '') segments.push({ text: plain, marker: false });
  return segments;
}

/**
 * Replaces every invisible or bidirectional character with a visible marker, and every
 * long blank run with its count.
 *
 * @example
 * makeVisible('rm\u00A0-rf') // 'rm⟨U+00A0⟩-rf'
 * makeVisible('abc\u202Edef') // 'abc⟨U+202E⟩def'
 * makeVisible(`ls${' '.repeat(200)}; rm -rf ~`) // 'ls⟨200 spaces⟩; rm -rf ~'
 */
export function makeVisible(text: string, options: VisibleTextOptions = {}): string {
  return splitVisible(text, options)
    .map((segment) => segment.text)
    .join('');
}

/** True when the text holds at least one invisible character {@link makeVisible} would replace. */
export function hasInvisible(text: string, options: VisibleTextOptions = {}): boolean {
  return splitInvisible(text, options).some((segment) => segment.marker);
}

/** True when the text holds a blank run {@link makeVisible} would show counted. */
export function hasLongBlankRun(text: string): boolean {
  return Array.from(text.matchAll(BLANK_RUN)).some((match) => isLongBlankRun(match[0]));
}

/**
 * Escapes invisible characters of JSON text as `\uXXXX`, so the JSON stays valid and means
 * the same, but a person editing it sees every character (used for the `$EDITOR` file).
 * Newlines and tabs only occur between tokens in `JSON.stringify` output and are kept.
 */
export function escapeInvisibleInJson(json: string): string {
  let escaped = '';
  for (const character of json) {
    if (character === '\n' || character === '\t' || !isInvisible(character)) {
      escaped += character;
      continue;
    }
    for (let index = 0; index < character.length; index += 1) {
      escaped += `\\u${character.charCodeAt(index).toString(16).toUpperCase().padStart(4, '0')}`;
    }
  }
  return escaped;
}
