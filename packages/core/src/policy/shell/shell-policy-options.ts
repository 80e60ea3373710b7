import type { CompiledPolicy } from './analysis-context.js';
import { DEFAULT_BANNED_RULES } from './banned-rules.js';
import { DEFAULT_HIGH_RISK_RULES } from './high-risk-rules.js';
import { DEFAULT_SAFE_PROGRAMS, type SafeProgramRule } from './safe-programs.js';
import type { ShellRule } from './shell-rule.js';

/** Inputs longer than this are refused without being parsed: they cannot be checked in bounded time. */
export const DEFAULT_MAX_LENGTH = 10_000;

/** Trees (nested scripts included) deeper than this ask. */
export const DEFAULT_MAX_DEPTH = 64;

/** How long one classification may take before it stops and asks, in milliseconds. */
export const DEFAULT_TIME_BUDGET_MS = 200;

/**
 * How the shell classifier is configured. Every list extends the defaults
 * ({@link DEFAULT_SAFE_PROGRAMS}, {@link DEFAULT_BANNED_RULES}, {@link DEFAULT_HIGH_RISK_RULES}).
 *
 * @example
 * ```ts
 * const classifier = await createShellClassifier({
 *   safePrograms: ['make', { program: 'pnpm', check: (args) => (args[0] === 'test' ? undefined : 'only pnpm test') }],
 *   extraBanned: [{ id: 'terraform-destroy', programs: ['terraform'], reason: 'destroys infrastructure', when: { subcommands: ['destroy'] } }],
 *   disabledRules: ['shell:high-risk:kill'],
 * });
 * ```
 */
export interface ShellPolicyOptions {
  /** More safe programs: a name (any arguments) or a rule with an argument check. Replaces a default rule of the same program. */
  safePrograms?: readonly (string | SafeProgramRule)[];
  /** Default safe programs to remove (by name). */
  removeSafePrograms?: readonly string[];
  /** More banned patterns, reported as `shell:banned:<id>`. */
  extraBanned?: readonly ShellRule[];
  /** More high-risk patterns, reported as `shell:high-risk:<id>`. */
  extraHighRisk?: readonly ShellRule[];
  /** Default rules to turn off, by full id (`shell:high-risk:kill`). Structural rules (fork bomb, download-exec) stay. */
  disabledRules?: readonly string[];
  /** Longest input parsed; longer inputs are refused (`shell:too-long`). Default {@link DEFAULT_MAX_LENGTH}. */
  maxLength?: number;
  /** Deepest tree analysed; deeper ones ask (`shell:too-deep`). Default {@link DEFAULT_MAX_DEPTH}. */
  maxDepth?: number;
  /** How long one classification may take; past it the command asks (`shell:too-complex`). Default {@link DEFAULT_TIME_BUDGET_MS}. */
  timeBudgetMs?: number;
}

function enabled(rules: readonly ShellRule[], prefix: string, disabled: ReadonlySet<string>): ShellRule[] {
  return rules.filter((rule) => !disabled.has(`${prefix}${rule.id}`));
}

function positiveOr(value: number | undefined, fallback: number, name: string): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value <= 0) throw new RangeError(`${name} must be a positive integer, got ${value}`);
  return value;
}

/**
 * Resolves options into the policy the analysis uses.
 *
 * @throws RangeError when `maxLength` or `maxDepth` is not a positive integer.
 */
export function compileShellPolicy(options: ShellPolicyOptions = {}): CompiledPolicy {
  const disabled = new Set(options.disabledRules ?? []);
  const safePrograms = new Map<string, SafeProgramRule>(DEFAULT_SAFE_PROGRAMS.map((rule) => [rule.program, rule]));
  for (const name of options.removeSafePrograms ?? []) safePrograms.delete(name);
  for (const entry of options.safePrograms ?? []) {
    const rule = typeof entry === 'string' ? { program: entry } : entry;
    safePrograms.set(rule.program, rule);
  }
  return {
    banned: [...enabled(DEFAULT_BANNED_RULES, 'shell:banned:', disabled), ...(options.extraBanned ?? [])],
    highRisk: [...enabled(DEFAULT_HIGH_RISK_RULES, 'shell:high-risk:', disabled), ...(options.extraHighRisk ?? [])],
    safePrograms,
    maxLength: positiveOr(options.maxLength, DEFAULT_MAX_LENGTH, 'maxLength'),
    maxDepth: positiveOr(options.maxDepth, DEFAULT_MAX_DEPTH, 'maxDepth'),
    timeBudgetMs: positiveOr(options.timeBudgetMs, DEFAULT_TIME_BUDGET_MS, 'timeBudgetMs'),
  };
}
