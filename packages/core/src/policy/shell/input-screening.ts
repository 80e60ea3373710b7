import type { AnalysisFindings } from './analysis-findings.js';

/** Characters that can hide or reshape what a person sees in a command line. */
const INVISIBLE = /[\p{Cf}\p{Zs}\p{Zl}\p{Zp}]/u;

/** A C0/C1 control character other than the tab and newline bash uses as separators. */
function isControlCharacter(code: number): boolean {
  if (code === 0x09 || code === 0x0a) return false;
  return code < 0x20 || (code >= 0x7f && code <= 0x9f);
}

/** A space-like or format character other than the ASCII space (NBSP, zero-width, bidi controls, …). */
function isInvisibleCharacter(character: string): boolean {
  return character !== ' ' && INVISIBLE.test(character);
}

/**
 * Reports control characters and non-ASCII spacing or format characters in `text`:
 * they can make the command a person reads differ from the one that runs.
 *
 * @param where - names the text in the reason (`the command`, `an argument`).
 */
export function screenCharacters(text: string, findings: AnalysisFindings, where: string): void {
  let control = false;
  let invisible = false;
  for (const character of text) {
    const code = character.codePointAt(0) ?? 0;
    if (isControlCharacter(code)) control = true;
    else if (code > 0x7f && isInvisibleCharacter(character)) invisible = true;
  }
  if (control) findings.add('ask', 'shell:control-character', `${where} contains a control character`);
  if (invisible) {
    findings.add(
      'ask',
      'shell:invisible-character',
      `${where} contains a non-ASCII space, zero-width or bidi character`,
    );
  }
}
