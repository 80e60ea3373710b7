import { hasFlag, operandsOf } from './argument-predicates.js';
import type { PathKind } from './critical-paths.js';

/** One program run, as a rule sees it. */
export interface RuleInvocation {
  /** The program's base name (`/bin/rm` and `\rm` are both `rm`). */
  readonly program: string;
  /** Its arguments, quotes and escapes removed; expansions keep their source text (`$HOME`). */
  readonly args: readonly string[];
  /** What a path argument points at, resolved against the working directories seen so far. */
  pathKind(path: string): PathKind;
}

/** A declarative condition (usable from configuration files); every field given must hold. */
export interface ShellRuleCondition {
  /** The first operand (non-option argument) is one of these. */
  readonly subcommands?: readonly string[];
  /** One of these flags is present: `-f` also matches in `-rf`, `--force` also matches `--force=x`. */
  readonly flags?: readonly string[];
  /** One argument equals one of these. */
  readonly arguments?: readonly string[];
}

/**
 * A banned or high-risk pattern: a program and a predicate over its arguments.
 *
 * @example
 * ```ts
 * const terraformDestroy: ShellRule = {
 *   id: 'terraform-destroy',
 *   programs: ['terraform'],
 *   reason: 'terraform destroy removes the managed infrastructure',
 *   when: { subcommands: ['destroy'] },
 * };
 * ```
 */
export interface ShellRule {
  /** Stable id, reported as `shell:banned:<id>` or `shell:high-risk:<id>`. */
  readonly id: string;
  /** Program base names; an entry ending in `*` matches by prefix (`mkfs*` matches `mkfs.ext4`). */
  readonly programs: readonly string[];
  /** Why it matters, shown to the person deciding. */
  readonly reason: string;
  /** A declarative condition; with neither `when` nor `matches` the rule matches every run of the programs. */
  readonly when?: ShellRuleCondition;
  /** A predicate over the run; when given together with `when`, both must hold. */
  readonly matches?: (invocation: RuleInvocation) => boolean;
}

/** True when `name` is one of `patterns` (a trailing `*` matches by prefix). */
export function matchesProgram(patterns: readonly string[], name: string): boolean {
  return patterns.some((pattern) => (pattern.endsWith('*') ? name.startsWith(pattern.slice(0, -1)) : pattern === name));
}

function conditionHolds(condition: ShellRuleCondition, args: readonly string[]): boolean {
  const subcommand = operandsOf(args)[0];
  if (condition.subcommands && (subcommand === undefined || !condition.subcommands.includes(subcommand))) return false;
  if (condition.flags && !hasFlag(args, ...condition.flags)) return false;
  if (condition.arguments && !args.some((arg) => condition.arguments?.includes(arg))) return false;
  return true;
}

/** True when `rule` matches this run. */
export function ruleMatches(rule: ShellRule, invocation: RuleInvocation): boolean {
  if (!matchesProgram(rule.programs, invocation.program)) return false;
  if (rule.when && !conditionHolds(rule.when, invocation.args)) return false;
  return rule.matches ? rule.matches(invocation) : true;
}
