/**
 * Characters that change how text reads without being seen: direction overrides and
 * isolates (U+202A–U+202E, U+2066–U+2069), zero-width characters, the byte-order mark, the
 * tag characters (U+E0000–U+E007F) and other format characters. The web page marks them the
 * same way.
 */
const INVISIBLE = /[\p{Cf}\u2028\u2029]/gu;

/**
 * Shows every invisible or direction-changing character as a visible `⟨U+202E⟩` marker, so a
 * tool's arguments read on a messaging platform exactly as the tool gets them.
 *
 * @example
 * showInvisibles('ok\u202Egnp.exe');   // 'ok⟨U+202E⟩gnp.exe'
 */
export function showInvisibles(text: string): string {
  return text.replace(INVISIBLE, (character) => {
    const code = character.codePointAt(0) ?? 0;
    return `⟨U+${code.toString(16).toUpperCase().padStart(4, '0')}⟩`;
  });
}

/**
 * A call's arguments as indented JSON for a message, invisible characters marked, cut to
 * `limit` characters (with a note that it was cut: the person sees that there is more).
 */
export function argumentsForDisplay(parameters: Record<string, unknown>, limit = 2_500): string {
  const text = showInvisibles(JSON.stringify(parameters, null, 2));
  if (text.length <= limit) return text;
  return `${text.slice(0, limit)}\n… (${text.length - limit} more characters: see the inbox for all of it)`;
}

/** `text` cut to `limit` characters, with an ellipsis when cut. */
export function clip(text: string, limit: number): string {
  return text.length <= limit ? text : `${text.slice(0, Math.max(0, limit - 1))}…`;
}
