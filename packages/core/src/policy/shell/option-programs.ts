import type { AnalysisContext } from './analysis-context.js';
import { optionValues } from './argument-predicates.js';
import type { ShellWord } from './shell-word.js';

/**
 * Options whose value is a command the program runs (issue 24). The command is classified
 * like the command line itself, so a banned command hidden in an option is banned
 * (`tar … --checkpoint-action=exec='rm -rf ~'`), on top of the option asking in every mode.
 */
const COMMAND_OPTIONS: Readonly<Record<string, readonly string[]>> = {
  tar: [
    '--to-command',
    '--checkpoint-action',
    '--use-compress-program',
    '-I',
    '--info-script',
    '-F',
    '--new-volume-script',
    '--rsh-command',
    '--rmt-command',
  ],
  bsdtar: ['--use-compress-program'],
  rg: ['--pre'],
  sort: ['--compress-program'],
  rsync: ['-e', '--rsh', '--rsync-path'],
  man: ['-P', '--pager', '-H', '--html'],
  zip: ['-TT', '--unzip-command'],
  split: ['--filter'],
};

/** Classifies the commands given in options of `name` (see {@link COMMAND_OPTIONS}). */
export function analyzeOptionPrograms(name: string, args: readonly ShellWord[], context: AnalysisContext): void {
  const options = COMMAND_OPTIONS[name];
  if (options === undefined) return;
  const texts = args.map((arg) => arg.text);
  for (const value of optionValues(texts, ...options)) {
    // `--checkpoint-action=exec=CMD`; other actions (`dot`, `echo`) run nothing.
    const command =
      name === 'tar' && /^(exec|sleep|dot|bell|echo|ttyout|wait)=?/.test(value)
        ? (/^exec=(.*)$/s.exec(value)?.[1] ?? '')
        : value;
    if (command !== '') context.visitor.script(command, undefined, context);
  }
}
