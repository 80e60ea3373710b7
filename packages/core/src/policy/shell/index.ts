/**
 * @packageDocumentation
 * The shell-command classifier (F25): parses a command line with tree-sitter-bash and
 * says whether it is safe, must be asked about, is high-risk or is banned.
 * Start with {@link createShellClassifier}.
 */
export { createShellClassifier, type ShellClassifier, type ShellCommandContext } from './shell-classifier.js';
export type { ShellClassification, ShellVerdict } from './shell-classification.js';
export {
  DEFAULT_MAX_DEPTH,
  DEFAULT_MAX_LENGTH,
  DEFAULT_TIME_BUDGET_MS,
  compileShellPolicy,
  type ShellPolicyOptions,
} from './shell-policy-options.js';
export { DEFAULT_SAFE_PROGRAMS, type SafeProgramRule } from './safe-programs.js';
export { HIDDEN_EFFECT_RULE, unseen, type ArgumentProblem, type UnseenEffect } from './hidden-effects.js';
export { DEFAULT_BANNED_RULES } from './banned-rules.js';
export { DEFAULT_HIGH_RISK_RULES } from './high-risk-rules.js';
export type { RuleInvocation, ShellRule, ShellRuleCondition } from './shell-rule.js';
export type { PathKind } from './critical-paths.js';
export { hasFlag, operandsOf, optionsOf, optionValues, subcommandOf } from './argument-predicates.js';
