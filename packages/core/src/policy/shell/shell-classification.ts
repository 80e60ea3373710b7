/**
 * What the shell rules say of one command line.
 *
 * - `safe`: provably harmless; may be auto-approved (the approval pipeline still applies its other rules).
 * - `ask`: cannot be proven safe; a person must decide.
 * - `high-risk`: always asks, even in yolo mode, and is never covered by a remembered approval.
 * - `banned`: denied in every mode, even if a person approves.
 */
export type ShellVerdict = 'safe' | 'ask' | 'high-risk' | 'banned';

/** The classifier's answer for one command line. */
export interface ShellClassification {
  /** The most severe verdict found anywhere in the command (banned > high-risk > ask > safe). */
  verdict: ShellVerdict;
  /**
   * The rule behind the verdict: the first finding of the most severe kind, e.g.
   * `shell:banned:rm-root`, `shell:high-risk:force-push`, `shell:unparsed`,
   * `shell:command-substitution`, or `shell:safe`. The ids are listed in this folder's README.md.
   */
  rule: string;
  /** The reasons found, most severe first, without duplicates (at most ten). */
  reasons: string[];
  /** The programs found, in source order (wrapped and nested commands included, by base name). */
  programs: string[];
  /**
   * True when every part of the command was read and the only reasons to ask are that it is
   * not proven read-only — a program off the safe list (`mkdir`, `npm test`), arguments that
   * may write (`git commit`), a redirection. yolo runs those (seed 002). False when something
   * could not be analysed (substitutions, eval, interpreters, names built at run time…):
   * that asks in every mode.
   */
  analysed: boolean;
}

/** The `ask` rules of a command the classifier read completely: not read-only, but nothing hidden. */
export const ANALYSED_ASK_RULES: ReadonlySet<string> = new Set([
  'shell:unknown-program',
  'shell:unsafe-arguments',
  'shell:redirect',
  'shell:background',
]);

/** Verdicts from the least to the most severe. */
const SEVERITY: Readonly<Record<ShellVerdict, number>> = { safe: 0, ask: 1, 'high-risk': 2, banned: 3 };

/** Orders two verdicts: positive when `left` is more severe than `right`. */
export function compareVerdicts(left: ShellVerdict, right: ShellVerdict): number {
  return SEVERITY[left] - SEVERITY[right];
}
