import type { AnalysisContext } from './analysis-context.js';
import { expandBraces } from './brace-expansion.js';
import { classifyPath, strictestPathKind } from './critical-paths.js';
import { reachedThroughLinks } from './reached-paths.js';
import { HIDDEN_EFFECT_RULE } from './hidden-effects.js';
import { ruleMatches, type RuleInvocation, type ShellRule } from './shell-rule.js';
import type { ShellWord } from './shell-word.js';

/** Directories a safe-listed program may be run from by absolute path. */
const SYSTEM_BIN_DIRECTORIES = new Set([
  '/bin',
  '/usr/bin',
  '/usr/local/bin',
  '/sbin',
  '/usr/sbin',
  '/usr/local/sbin',
  '/opt/homebrew/bin',
  '/run/current-system/sw/bin',
]);

/** A program name as written, reduced to the base name rules and lists use. */
export interface ProgramName {
  /** `/usr/bin/rm` → `rm`. */
  name: string;
  /** `bare` (found on PATH), `system` (absolute path in a system bin directory) or `other` (a local file). */
  location: 'bare' | 'system' | 'other';
}

/** Reduces a program path to its base name and tells where it is run from. */
export function programNameOf(text: string): ProgramName {
  const slash = text.lastIndexOf('/');
  if (slash < 0) return { name: text, location: 'bare' };
  const directory = text.slice(0, slash) || '/';
  return { name: text.slice(slash + 1), location: SYSTEM_BIN_DIRECTORIES.has(directory) ? 'system' : 'other' };
}

function reportMatches(
  rules: readonly ShellRule[],
  verdict: 'banned' | 'high-risk',
  invocation: RuleInvocation,
  context: AnalysisContext,
): void {
  for (const rule of rules) {
    try {
      if (ruleMatches(rule, invocation)) context.findings.add(verdict, `shell:${verdict}:${rule.id}`, rule.reason);
    } catch {
      context.findings.add('ask', 'shell:rule-error', `the ${verdict} rule ${rule.id} failed on this command`);
    }
  }
}

/** Matches one program run against the banned and high-risk rules. */
export function applyRules(name: string, args: readonly ShellWord[], context: AnalysisContext): void {
  const invocation: RuleInvocation = {
    program: name,
    args: args.flatMap((arg) => (arg.braceExpansion ? expandBraces(arg.text) : [arg.text])),
    // The path as written, and where it leads through symlinks (`rm -rf link/` with link → /).
    pathKind: (path) =>
      [path, ...reachedThroughLinks(path, context.paths).map((reached) => reached.absolute)]
        .map((candidate) => classifyPath(candidate, context.paths))
        .reduce(strictestPathKind),
  };
  reportMatches(context.policy.banned, 'banned', invocation, context);
  reportMatches(context.policy.highRisk, 'high-risk', invocation, context);
}

/** Why a run is not provably safe, as a finding's rule and reason; undefined when it is safe. */
export function safeListProblem(
  program: ProgramName,
  args: readonly ShellWord[],
  context: AnalysisContext,
): { rule: string; reason: string } | undefined {
  const rule = context.policy.safePrograms.get(program.name);
  if (!rule) return { rule: 'shell:unknown-program', reason: `${program.name} is not on the safe list` };
  if (program.location === 'other') {
    return { rule: 'shell:program-path', reason: `${program.name} is run from a path outside the system directories` };
  }
  const dynamic = args.find((arg) => !arg.exact && !(rule.inertArguments && arg.plainExpansionsOnly));
  if (dynamic) return { rule: 'shell:expansion', reason: `an argument of ${program.name} is only known when it runs` };
  const problem = rule.check?.(args.map((arg) => arg.text));
  if (problem === undefined) return undefined;
  // An option that runs another program or writes files the rules cannot check asks in every mode (issue 24).
  return typeof problem === 'string'
    ? { rule: 'shell:unsafe-arguments', reason: problem }
    : { rule: HIDDEN_EFFECT_RULE, reason: problem.reason };
}
