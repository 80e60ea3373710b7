import {
  ANALYSED_ASK_RULES,
  compareVerdicts,
  type ShellClassification,
  type ShellVerdict,
} from './shell-classification.js';

/** At most this many reasons are returned: a pathological command must not make a huge answer. */
const MAX_REASONS = 10;

/** One thing the analysis noticed. */
export interface Finding {
  verdict: Exclude<ShellVerdict, 'safe'>;
  rule: string;
  reason: string;
}

/**
 * Collects findings and program names while a command is analysed, and folds them into
 * one classification: the most severe finding wins across the whole tree.
 */
export class AnalysisFindings {
  readonly #findings: Finding[] = [];
  readonly #programs: string[] = [];

  /** Records a finding. */
  add(verdict: Finding['verdict'], rule: string, reason: string): void {
    this.#findings.push({ verdict, rule, reason });
  }

  /** Records a program found in the command. */
  addProgram(name: string): void {
    this.#programs.push(name);
  }

  /** Copies the findings of another collector (programs are not copied). */
  merge(other: AnalysisFindings, keep: (finding: Finding) => boolean = () => true): void {
    for (const finding of other.#findings) if (keep(finding)) this.#findings.push(finding);
  }

  /** The most severe verdict so far. */
  get verdict(): ShellVerdict {
    return this.#mostSevere()?.verdict ?? 'safe';
  }

  /** Folds the findings into the classification. */
  toClassification(): ShellClassification {
    const worst = this.#mostSevere();
    if (worst === undefined) {
      return { verdict: 'safe', rule: 'shell:safe', reasons: [], programs: [...this.#programs], analysed: true };
    }
    const ordered = [...this.#findings].sort((left, right) => compareVerdicts(right.verdict, left.verdict));
    return {
      verdict: worst.verdict,
      rule: worst.rule,
      reasons: [...new Set(ordered.map((finding) => finding.reason))].slice(0, MAX_REASONS),
      programs: [...this.#programs],
      analysed: this.#findings.every((finding) => finding.verdict !== 'ask' || ANALYSED_ASK_RULES.has(finding.rule)),
    };
  }

  #mostSevere(): Finding | undefined {
    let worst: Finding | undefined;
    for (const finding of this.#findings) {
      if (worst === undefined || compareVerdicts(finding.verdict, worst.verdict) > 0) worst = finding;
    }
    return worst;
  }
}
