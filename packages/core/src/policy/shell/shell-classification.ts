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
}

/** Verdicts from the least to the most severe. */
const SEVERITY: Readonly<Record<ShellVerdict, number>> = { safe: 0, ask: 1, 'high-risk': 2, banned: 3 };

/** Orders two verdicts: positive when `left` is more severe than `right`. */
export function compareVerdicts(left: ShellVerdict, right: ShellVerdict): number {
  return SEVERITY[left] - SEVERITY[right];
}
