/** A git command line split at its subcommand. */
export interface GitCommandLine {
  /** The options before the subcommand (`-C dir`, `-c key=value`, `--no-pager`, …). */
  globalOptions: string[];
  /** The subcommand (`status`, `push`), if any. */
  subcommand: string | undefined;
  /** The arguments after the subcommand. */
  args: string[];
}

/** Global options that take the next argument as their value. */
const GLOBAL_OPTIONS_WITH_VALUE = new Set([
  '-C',
  '-c',
  '--git-dir',
  '--work-tree',
  '--namespace',
  '--config-env',
  '--super-prefix',
  '--list-cmds',
  '--attr-source',
]);

/** Splits `git [global options] <subcommand> [args]`. */
export function parseGitCommandLine(args: readonly string[]): GitCommandLine {
  const globalOptions: string[] = [];
  let index = 0;
  while (index < args.length) {
    const arg = args[index] ?? '';
    if (!arg.startsWith('-')) break;
    globalOptions.push(arg);
    index += 1;
    if (GLOBAL_OPTIONS_WITH_VALUE.has(arg) && index < args.length) {
      globalOptions.push(args[index] ?? '');
      index += 1;
    }
  }
  return { globalOptions, subcommand: args[index], args: args.slice(index + 1) };
}

/** Global options that can make git run another program (`-c core.pager=…`, `--exec-path=…`). */
const UNSAFE_GLOBAL_OPTIONS = ['-c', '--config-env', '--exec-path='];

/** Global options known to only select what git looks at or how it prints. */
const SAFE_GLOBAL_OPTIONS = new Set([
  '-C',
  '--git-dir',
  '--work-tree',
  '--namespace',
  '--no-pager',
  '-P',
  '--paginate',
  '-p',
  '--bare',
  '--no-replace-objects',
  '--literal-pathspecs',
  '--glob-pathspecs',
  '--noglob-pathspecs',
  '--icase-pathspecs',
  '--no-optional-locks',
  '--exec-path',
  '--version',
  '--help',
  '-h',
  '--no-advice',
]);

/** Why the global options are not provably safe, or undefined. Values of `-C`/`--git-dir` are skipped. */
export function checkGitGlobalOptions(options: readonly string[]): string | undefined {
  for (let index = 0; index < options.length; index += 1) {
    const option = options[index] ?? '';
    if (
      UNSAFE_GLOBAL_OPTIONS.some((unsafe) => (unsafe.endsWith('=') ? option.startsWith(unsafe) : option === unsafe))
    ) {
      return `git ${option} can make git run another program`;
    }
    const name = option.includes('=') ? option.slice(0, option.indexOf('=')) : option;
    if (!SAFE_GLOBAL_OPTIONS.has(name)) return `git global option ${option} is not known to be safe`;
    if (GLOBAL_OPTIONS_WITH_VALUE.has(option)) index += 1;
  }
  return undefined;
}
