// Makes invisible and direction-changing characters visible, so an approver sees the exact
// arguments a tool gets: "invoice\u202Efdp.exe" shows as invoice⟨U+202E⟩fdp.exe.
// The exports' types are in invisible-characters.d.ts (the tests read them too); each
// `@type {typeof import('./invisible-characters.js').…}` checks an export against them.

/** @typedef {import('./invisible-characters.js').RevealedPart} RevealedPart */

/* global document */

/**
 * Code point ranges that render as nothing, or reorder the text around them. Newlines and tabs stay as they are.
 * @type {ReadonlyArray<readonly [number, number]>}
 */
const INVISIBLE_RANGES = [
  [0x0000, 0x0008],
  [0x000b, 0x001f],
  [0x007f, 0x009f],
  [0x00ad, 0x00ad],
  [0x034f, 0x034f],
  [0x061c, 0x061c],
  [0x115f, 0x1160],
  [0x17b4, 0x17b5],
  [0x180b, 0x180f],
  [0x200b, 0x200f],
  [0x2028, 0x202e],
  [0x2060, 0x206f],
  [0x3164, 0x3164],
  [0xfe00, 0xfe0f],
  [0xfeff, 0xfeff],
  [0xffa0, 0xffa0],
  [0xfff9, 0xfffb],
  [0xe0000, 0xe007f],
  [0xe0100, 0xe01ef],
];

/**
 * Whether a character (one code point) is invisible or changes the direction of text.
 * @type {typeof import('./invisible-characters.js').isInvisible}
 */
export function isInvisible(character) {
  // An empty string has no code point, and is not invisible.
  const code = character.codePointAt(0) ?? -1;
  return INVISIBLE_RANGES.some(([low, high]) => code >= low && code <= high);
}

/**
 * The name shown for a code point: U+202E.
 * @type {typeof import('./invisible-characters.js').codePointLabel}
 */
export function codePointLabel(character) {
  return `U+${/** @type {number} */ (character.codePointAt(0)).toString(16).toUpperCase().padStart(4, '0')}`;
}

/**
 * Runs of spaces, tabs and newlines long enough to push what follows out of sight
 * (`ls` + 200 spaces + `; rm -rf ~`) show as one counted marker: at least this many
 * spaces and tabs, or this many newlines. The terminal uses the same bounds.
 * @type {typeof import('./invisible-characters.js').LONG_BLANK_RUN}
 */
export const LONG_BLANK_RUN = { blanks: 24, newlines: 5 };
const BLANK_RUN = /[ \t\n]+/g;

/**
 * "200 spaces", "3 newlines, 40 spaces": what a blank run holds, counted.
 * @type {typeof import('./invisible-characters.js').blankRunLabel}
 */
export function blankRunLabel(run) {
  /** @param {string} character */
  const count = (character) => run.split(character).length - 1;
  /** @type {Array<[number, string]>} */
  const counts = [
    [count('\n'), 'newline'],
    [count(' '), 'space'],
    [count('\t'), 'tab'],
  ];
  return counts
    .filter(([n]) => n > 0)
    .map(([n, name]) => `${n} ${name}${n === 1 ? '' : 's'}`)
    .join(', ');
}

/** @param {string} run */
function isLongBlankRun(run) {
  const newlines = run.split('\n').length - 1;
  return newlines >= LONG_BLANK_RUN.newlines || run.length - newlines >= LONG_BLANK_RUN.blanks;
}

/**
 * Splits text into plain runs, invisible characters and long blank runs.
 * @type {typeof import('./invisible-characters.js').revealInvisible}
 */
export function revealInvisible(text) {
  /** @type {RevealedPart[]} */
  const parts = [];
  let from = 0;
  for (const match of text.matchAll(BLANK_RUN)) {
    if (!isLongBlankRun(match[0])) continue;
    parts.push(...revealCharacters(text.slice(from, match.index)));
    parts.push({ blanks: match[0], label: blankRunLabel(match[0]) });
    from = match.index + match[0].length;
  }
  parts.push(...revealCharacters(text.slice(from)));
  return parts;
}

/**
 * @param {string} text
 * @returns {RevealedPart[]}
 */
function revealCharacters(text) {
  /** @type {RevealedPart[]} */
  const parts = [];
  let run = '';
  for (const character of text) {
    if (!isInvisible(character)) {
      run += character;
      continue;
    }
    if (run !== '') parts.push({ text: run });
    run = '';
    parts.push({ invisible: character, label: codePointLabel(character) });
  }
  if (run !== '') parts.push({ text: run });
  return parts;
}

/**
 * How many invisible characters the text holds.
 * @type {typeof import('./invisible-characters.js').countInvisible}
 */
export function countInvisible(text) {
  return revealInvisible(text).filter((part) => 'invisible' in part).length;
}

/**
 * How many long blank runs the text holds.
 * @type {typeof import('./invisible-characters.js').countBlankRuns}
 */
export function countBlankRuns(text) {
  return revealInvisible(text).filter((part) => 'blanks' in part).length;
}

/**
 * Renders text into `element`, each invisible character as a red ⟨U+XXXX⟩ marker and each long blank run as ⟨200 spaces⟩.
 * @type {typeof import('./invisible-characters.js').renderRevealed}
 */
export function renderRevealed(element, text) {
  element.replaceChildren();
  for (const part of revealInvisible(text)) {
    if ('text' in part) {
      element.append(document.createTextNode(part.text));
      continue;
    }
    const marker = document.createElement('span');
    marker.className = 'blanks' in part ? 'blank-run' : 'invisible-char';
    marker.title = 'blanks' in part ? `a run of ${part.label}` : `invisible character ${part.label}`;
    marker.textContent = `⟨${part.label}⟩`;
    element.append(marker);
  }
}
