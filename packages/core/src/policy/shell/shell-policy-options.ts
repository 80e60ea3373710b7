import { InterlockError } from '../../errors/interlock-error.js';
import { isInterpreter, SHELLS } from './interpreters.js';
import { DEFAULT_BANNED_RULES } from './banned-rules.js';
import { DEFAULT_HIGH_RISK_RULES } from './high-risk-rules.js';
import { DEFAULT_SAFE_PROGRAMS, type SafeProgramRule } from './safe-programs.js';
import type { ShellRule } from './shell-rule.js';

import type { CompiledPolicy } from './compiled-policy.js';

export type { CompiledPolicy } from './compiled-policy.js';

/** Inputs longer than this are refused without being parsed: they cannot be checked in bounded time. */
export const DEFAULT_MAX_LENGTH = 10_000;

/** Trees (nested scripts included) deeper than this ask. */
export const DEFAULT_MAX_DEPTH = 64;

/** How long one classification may take before it stops and asks, in milliseconds of CPU time. */
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
  /**
   * More safe programs: a name or a rule with an argument check. An entry means "this
   * program's ordinary use is safe": wrappers on it still have their command checked, a
   * built-in rule of the same program keeps its check (the entry's applies too), and
   * shells, interpreters, `env` and privilege wrappers are refused (INVALID_OPTIONS).
   */
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
  if (!Number.isSafeInteger(value) || value <= 0)
    throw new RangeError(`shell.${name} must be a positive whole number, got ${String(value)}`);
  return value;
}

/** Programs whose "ordinary use" is running any other code or as anyone: a safe-list entry for one would make the rules meaningless. */
const NEVER_SAFE = new Set([
  'env',
  'eval',
  'exec',
  'source',
  '.',
  'trap',
  'sudo',
  'su',
  'doas',
  'pkexec',
  'runuser',
  'chroot',
  'busybox',
  'toybox',
]);

/**
 * Why `program` cannot be put on the safe list, or undefined. `env`, `eval`, privilege
 * wrappers and anything that is not a plain program name are refused at load; shells and
 * interpreters are refused unless the entry checks their arguments.
 */
export function safeListRefusal(program: string, checked = false): string | undefined {
  if (!/^[A-Za-z0-9_][A-Za-z0-9_.+-]*$/.test(program))
    return `"${program}" is not a program name (no paths, patterns or spaces)`;
  if (NEVER_SAFE.has(program)) return `${program} runs any other command (or as another user)`;
  // A shell or an interpreter may be listed with a check of its arguments (`python -V`), never bare.
  if (checked) return undefined;
  if (SHELLS.has(program))
    return `${program} is a shell: it runs any command given to it (list it with a check of its arguments, if at all)`;
  if (isInterpreter(program))
    return `${program} runs any code given to it (list it with a check of its arguments, if at all)`;
  return undefined;
}

/**
 * A safe-list entry on top of a built-in rule of the same program: both checks apply. An
 * entry can narrow what a built-in rule allows, never widen it (`find` stays without
 * `-exec`, `rg` without `--pre`).
 */
function combine(builtin: SafeProgramRule | undefined, entry: SafeProgramRule): SafeProgramRule {
  const builtinCheck = builtin?.check;
  const entryCheck = entry.check;
  if (builtinCheck === undefined || builtin?.replaceable === true) return entry;
  return {
    program: entry.program,
    check: (args) => builtinCheck(args) ?? entryCheck?.(args),
    ...(builtin?.inertArguments === true && entry.inertArguments !== false ? { inertArguments: true } : {}),
  };
}

/**
 * Resolves options into the policy the analysis uses.
 *
 * @throws RangeError when `maxLength`, `maxDepth` or `timeBudgetMs` is not a positive integer;
 * InterlockError INVALID_OPTIONS for a safe-list entry that would make the rules meaningless.
 */
export function compileShellPolicy(options: ShellPolicyOptions = {}): CompiledPolicy {
  const disabled = new Set(options.disabledRules ?? []);
  const safePrograms = new Map<string, SafeProgramRule>(DEFAULT_SAFE_PROGRAMS.map((rule) => [rule.program, rule]));
  for (const name of options.removeSafePrograms ?? []) safePrograms.delete(name);
  const builtins = new Map(DEFAULT_SAFE_PROGRAMS.map((rule) => [rule.program, rule]));
  for (const [index, entry] of (options.safePrograms ?? []).entries()) {
    const rule = typeof entry === 'string' ? { program: entry } : entry;
    const refusal = safeListRefusal(rule.program, rule.check !== undefined);
    if (refusal !== undefined) {
      throw new InterlockError(
        'INVALID_OPTIONS',
        `shell.safePrograms[${index}]: ${refusal}; it cannot be on the safe list: remove the entry (a command through it asks a person, and no allow rule opens it)`,
      );
    }
    safePrograms.set(rule.program, combine(builtins.get(rule.program), rule));
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
