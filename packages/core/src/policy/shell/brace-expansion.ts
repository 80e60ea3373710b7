/** More words than this and the expansion is cut short (rules only need to see what runs). */
const MAX_WORDS = 64;

/** Finds the first `{…}` with a top-level comma or `..`; returns its bounds and alternatives. */
function firstGroup(text: string): { start: number; end: number; alternatives: string[] } | undefined {
  for (let start = text.indexOf('{'); start >= 0; start = text.indexOf('{', start + 1)) {
    let depth = 0;
    const commas: number[] = [];
    for (let index = start; index < text.length; index += 1) {
      const character = text[index];
      if (character === '{') depth += 1;
      else if (character === ',' && depth === 1) commas.push(index);
      else if (character === '}' && (depth -= 1) === 0) {
        const inside = text.slice(start + 1, index);
        if (commas.length > 0) {
          const bounds = [start, ...commas, index];
          return {
            start,
            end: index,
            alternatives: bounds.slice(0, -1).map((from, at) => text.slice(from + 1, bounds[at + 1])),
          };
        }
        const range = expandRange(inside);
        if (range) return { start, end: index, alternatives: range };
        break;
      }
    }
  }
  return undefined;
}

/** `1..3` → 1 2 3, `a..c` → a b c (bash sequence expressions without a step). */
function expandRange(inside: string): string[] | undefined {
  const [from, to, ...rest] = inside.split('..');
  if (from === undefined || to === undefined || rest.length > 0) return undefined;
  const numeric = /^-?[0-9]+$/;
  if (numeric.test(from) && numeric.test(to)) {
    const first = Number(from);
    const last = Number(to);
    const step = first <= last ? 1 : -1;
    const count = Math.min(Math.abs(last - first) + 1, MAX_WORDS);
    return Array.from({ length: count }, (_, index) => String(first + index * step));
  }
  if (from.length === 1 && to.length === 1) {
    const first = from.charCodeAt(0);
    const last = to.charCodeAt(0);
    const step = first <= last ? 1 : -1;
    const count = Math.min(Math.abs(last - first) + 1, MAX_WORDS);
    return Array.from({ length: count }, (_, index) => String.fromCharCode(first + index * step));
  }
  return undefined;
}

/**
 * Expands bash brace expressions in a word's text (`{rm,-rf,/}` → `rm`, `-rf`, `/`;
 * `/{usr,etc}` → `/usr`, `/etc`), so that rules see what would run. Text without a
 * brace expression comes back as the only word.
 */
export function expandBraces(text: string, limit = MAX_WORDS): string[] {
  const group = firstGroup(text);
  if (!group) return [text];
  const prefix = text.slice(0, group.start);
  const suffix = text.slice(group.end + 1);
  const words: string[] = [];
  // The cap is checked before each alternative is expanded, and passed down: the work is
  // linear in the number of groups, never the product of their sizes.
  for (const alternative of group.alternatives) {
    if (words.length >= limit) break;
    words.push(...expandBraces(`${prefix}${alternative}${suffix}`, limit - words.length));
  }
  return words;
}
