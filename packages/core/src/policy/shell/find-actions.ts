import type { AnalysisContext, StatementEffect } from './analysis-context.js';
import { HIDDEN_EFFECT_RULE } from './hidden-effects.js';
import { literalWord, type ShellWord } from './shell-word.js';

const EXEC_ACTIONS = new Set(['-exec', '-execdir', '-ok', '-okdir']);

/** Analyses one program run (passed in to keep the modules acyclic). */
export type InvocationAnalyzer = (
  words: readonly ShellWord[],
  stdin: undefined,
  context: AnalysisContext,
) => StatementEffect;

/** The start paths of `find`: the arguments before the first test, action or `(`/`!`. */
export function findStartPaths(args: readonly string[]): string[] {
  const paths: string[] = [];
  for (const arg of args) {
    if (arg.startsWith('-') || arg === '(' || arg === '!') break;
    paths.push(arg);
  }
  return paths.length > 0 ? paths : ['.'];
}

/** The commands of `-exec … ;` / `-exec … +` actions. */
function execCommands(args: readonly ShellWord[]): ShellWord[][] {
  const commands: ShellWord[][] = [];
  for (let index = 0; index < args.length; index += 1) {
    if (!EXEC_ACTIONS.has(args[index]?.text ?? '')) continue;
    const command: ShellWord[] = [];
    for (index += 1; index < args.length; index += 1) {
      const word = args[index];
      if (!word || word.text === ';' || word.text === '+') break;
      command.push(word);
    }
    if (command.length > 0) commands.push(command);
  }
  return commands;
}

/**
 * Classifies the commands `find -exec` runs, with `{}` replaced by the start path:
 * `find / -exec rm -rf {} +` is analysed as `rm -rf /`.
 */
export function analyzeFindActions(
  args: readonly ShellWord[],
  context: AnalysisContext,
  analyze: InvocationAnalyzer,
): void {
  const [start = '.'] = findStartPaths(args.map((arg) => arg.text));
  for (const command of execCommands(args)) {
    // `-exec {} \;` runs the files it finds: their code is not on the command line (issue 24).
    if (command[0]?.text.includes('{}'))
      context.findings.add('ask', HIDDEN_EFFECT_RULE, 'find -exec runs the files it finds as programs');
    const words = command.map((word) =>
      word.exact && word.text.includes('{}') ? literalWord(word.text.replaceAll('{}', start)) : word,
    );
    analyze(words, undefined, context);
  }
}
