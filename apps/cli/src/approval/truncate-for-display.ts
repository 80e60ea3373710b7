/** How much of a long text to show. */
export interface DisplayLimits {
  maxLines: number;
  maxCharacters: number;
}

/** The limits of a tool result shown for approval: about a screenful. */
export const RESULT_LIMITS: DisplayLimits = { maxLines: 40, maxCharacters: 4000 };

/** What {@link truncateForDisplay} kept, and a note on what it cut (absent when nothing was cut). */
export interface TruncatedText {
  text: string;
  note?: string;
}

/**
 * Keeps the first `maxLines` lines and at most `maxCharacters` characters of a text, and
 * says how much was cut, so a person knows they did not see everything.
 *
 * @example
 * truncateForDisplay('a\nb\nc', { maxLines: 2, maxCharacters: 100 })
 * // { text: 'a\nb', note: '… 1 more line, 2 more characters not shown (3 lines, 5 characters in all)' }
 */
export function truncateForDisplay(text: string, limits: DisplayLimits = RESULT_LIMITS): TruncatedText {
  const lines = text.split('\n');
  let kept = lines.slice(0, limits.maxLines).join('\n');
  if (kept.length > limits.maxCharacters) kept = kept.slice(0, limits.maxCharacters);
  if (kept.length === text.length) return { text };
  const keptLines = kept.split('\n').length;
  const cutLines = lines.length - keptLines;
  const cutCharacters = text.length - kept.length;
  const parts = [
    ...(cutLines > 0 ? [`${count(cutLines)} more ${cutLines === 1 ? 'line' : 'lines'}`] : []),
    `${count(cutCharacters)} more ${cutCharacters === 1 ? 'character' : 'characters'}`,
  ];
  const total = `${count(lines.length)} ${lines.length === 1 ? 'line' : 'lines'}, ${count(text.length)} characters in all`;
  return { text: kept, note: `… ${parts.join(', ')} not shown (${total})` };
}

function count(value: number): string {
  return value.toLocaleString('en-US');
}
