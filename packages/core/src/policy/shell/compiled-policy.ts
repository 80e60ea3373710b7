import type { SafeProgramRule } from './safe-programs.js';
import type { ShellRule } from './shell-rule.js';

/** The options in force, resolved once when the classifier is created. */
export interface CompiledPolicy {
  readonly banned: readonly ShellRule[];
  readonly highRisk: readonly ShellRule[];
  readonly safePrograms: ReadonlyMap<string, SafeProgramRule>;
  readonly maxLength: number;
  readonly maxDepth: number;
  /** How long one classification may take, in milliseconds, before it stops and asks. */
  readonly timeBudgetMs: number;
}
