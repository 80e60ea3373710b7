import { isAbsolute, resolve } from 'node:path';
import type { AnalysisContext, StatementEffect } from './analysis-context.js';
import { operandsOf } from './argument-predicates.js';
import { parseGitCommandLine } from './git-command-line.js';
import { HIDDEN_EFFECT_RULE } from './hidden-effects.js';
import { isProgramKey, repositoryRunsPrograms } from './repository-config.js';
import { literalWord, type ShellWord } from './shell-word.js';

/** Analyses one program run (passed in to keep the modules acyclic). */
type InvocationAnalyzer = (words: readonly ShellWord[], stdin: undefined, context: AnalysisContext) => StatementEffect;

/**
 * What a git command line makes git run, looked into (issue 24):
 *
 * - a program given in `-c key=value` (`core.pager`, `alias.x=!…`, a filter…) is classified
 *   as the shell command it is, so `git -c alias.x='!rm -rf ~' x` is banned like `rm -rf ~`;
 *   an alias without `!` is expanded (`alias.p='push --force'` is a force push);
 * - a repository whose own configuration or hooks run programs makes the command an unseen
 *   effect (repository-config.ts);
 * - `git config` that sets a value writes the repository's configuration, which decides what
 *   git runs: high-risk, as a write into `.git` is.
 */
export function analyzeGitPrograms(
  args: readonly ShellWord[],
  context: AnalysisContext,
  analyze: InvocationAnalyzer,
): void {
  const texts = args.map((arg) => arg.text);
  const line = parseGitCommandLine(texts);
  const settings = configSettings(line.globalOptions);
  for (const { key, value } of settings) {
    if (!isProgramKey(key)) continue;
    const alias = /^alias\.(.+)$/i.exec(key)?.[1];
    if (alias !== undefined && alias.toLowerCase() !== line.subcommand?.toLowerCase()) continue;
    if (alias !== undefined && !value.startsWith('!')) {
      const words = value.split(/\s+/).filter(Boolean).map(literalWord);
      analyze([literalWord('git'), ...words, ...line.args.map(literalWord)], undefined, context);
    } else context.visitor.script(value.startsWith('!') ? value.slice(1) : value, undefined, context);
  }
  if (line.subcommand === 'config' && writesConfig(line.args))
    context.findings.add(
      'high-risk',
      'shell:high-risk:protected-path',
      "git config writes git's configuration, which decides what git runs: a person decides, in every mode",
    );
  if (context.speculative || !args.every((arg) => arg.exact)) return;
  const problem = repositoryProblem(line.globalOptions, context);
  if (problem !== undefined) context.findings.add('ask', HIDDEN_EFFECT_RULE, problem);
}

/** The `-c key=value` settings (and `--config-env`, whose value is only known when it runs). */
function configSettings(globalOptions: readonly string[]): { key: string; value: string }[] {
  const settings: { key: string; value: string }[] = [];
  for (let index = 0; index < globalOptions.length; index += 1) {
    const option = globalOptions[index] ?? '';
    if (option !== '-c') continue;
    const setting = globalOptions[index + 1] ?? '';
    const equals = setting.indexOf('=');
    settings.push(
      equals < 0 ? { key: setting, value: '' } : { key: setting.slice(0, equals), value: setting.slice(equals + 1) },
    );
  }
  return settings;
}

/** Reading options of `git config` (old and new syntax): anything else writes. */
function writesConfig(args: readonly string[]): boolean {
  const reads = [
    '--get',
    '--get-all',
    '--get-regexp',
    '--get-urlmatch',
    '--list',
    '-l',
    '--get-color',
    '--get-colorbool',
  ];
  if (args.some((arg) => reads.some((read) => arg === read || arg.startsWith(`${read}=`)))) return false;
  const [first] = operandsOf(args);
  if (first === 'get' || first === 'list') return false;
  return (
    operandsOf(args).length >= 2 ||
    ['--unset', '--unset-all', '--add', '--replace-all', '--edit', '-e', '--rename-section', '--remove-section'].some(
      (flag) => args.includes(flag),
    ) ||
    first === 'set' ||
    first === 'unset' ||
    first === 'edit' ||
    first === 'rename-section' ||
    first === 'remove-section'
  );
}

/** Why the repository git would run in makes it run programs, for every directory the command may run in. */
function repositoryProblem(globalOptions: readonly string[], context: AnalysisContext): string | undefined {
  const bases = context.paths.cwds.filter((cwd) => isAbsolute(cwd));
  const changeTo = valuesOf(globalOptions, '-C');
  const gitDirectory = valuesOf(globalOptions, '--git-dir').at(-1);
  for (const base of bases) {
    const directory = changeTo.reduce((current, next) => resolve(current, next), base);
    const found = repositoryRunsPrograms(directory, gitDirectory);
    if (found !== undefined) return found;
  }
  return undefined;
}

function valuesOf(options: readonly string[], name: string): string[] {
  const values: string[] = [];
  options.forEach((option, index) => {
    if (option === name) values.push(options[index + 1] ?? '');
    else if (option.startsWith(`${name}=`)) values.push(option.slice(name.length + 1));
  });
  return values;
}
