import { hasFlag, operandsOf, optionValues } from './argument-predicates.js';
import { checkAwkArguments } from './awk-safety.js';
import { checkGitArguments } from './git-safety.js';
import { checkSedArguments } from './sed-safety.js';
import { unseen, type ArgumentProblem } from './hidden-effects.js';

/**
 * A program that may run without asking, with a check of its arguments.
 *
 * @example
 * ```ts
 * const make: SafeProgramRule = { program: 'make', check: (args) => (args.includes('-n') ? undefined : 'make without -n runs recipes') };
 * ```
 */
export interface SafeProgramRule {
  /** The program's base name. It must be run by bare name or from a system bin directory. */
  readonly program: string;
  /**
   * Why these arguments are not provably safe, or undefined when they are. Omitted: any
   * arguments. A string is a change the rules can see (it asks, but yolo runs it); an
   * `unseen(reason)` hides what runs or what is written (`rg --pre`), and asks in every mode.
   */
  readonly check?: (args: readonly string[]) => ArgumentProblem | undefined;
  /** The arguments cannot change what the program does (`echo`), so plain `$VAR` expansions are allowed in them. */
  readonly inertArguments?: boolean;
  /**
   * A built-in rule that only narrows the default (`node --version`): a safe-list entry of
   * the same program replaces it. Other built-in rules guard options that run or write
   * (`find -exec`, `rg --pre`): an entry adds its check to theirs.
   */
  readonly replaceable?: boolean;
}

/** A safe program whose listed flags make it unsafe; `hidden` when what they run or write cannot be seen. */
function denyFlags(program: string, flags: readonly string[], why: string, hidden = false): SafeProgramRule {
  return {
    program,
    check: (args) => {
      const flag = flags.find((candidate) => hasFlag(args, candidate));
      if (flag === undefined) return undefined;
      return hidden ? unseen(`${program} ${flag} ${why}`) : `${program} ${flag} ${why}`;
    },
  };
}

/** A program that is only safe when asked for its version. */
function versionOnly(program: string): SafeProgramRule {
  return {
    program,
    replaceable: true,
    check: (args) =>
      args.length > 0 && args.every((arg) => ['--version', '-v', '-V', 'version'].includes(arg))
        ? undefined
        : `${program} is only safe-listed for --version`,
  };
}

const TAR_UNSAFE_OPTIONS = [
  '--to-command',
  '--checkpoint-action',
  '--use-compress-program',
  '-I',
  '--info-script',
  '-F',
  '--new-volume-script',
  '--rsh-command',
  '--rmt-command',
  '--index-file',
  '--volno-file',
  '-x',
  '-c',
  '-r',
  '-u',
  '-A',
  '--extract',
  '--create',
  '--append',
  '--update',
  '--delete',
];

/**
 * tar is safe when it only lists an archive: `-t`, no writing mode, no program-running
 * option, no remote archive. Anything else writes files named inside the archive or runs
 * a program: the rules cannot see either (issue 24).
 */
function checkTarArguments(args: readonly string[]): ArgumentProblem | undefined {
  const first = args[0] ?? '';
  const oldStyle = first !== '' && !first.startsWith('-') ? first : '';
  const unsafe = TAR_UNSAFE_OPTIONS.find(
    (flag) => hasFlag(args, flag) || (flag.length === 2 && oldStyle.includes(flag.slice(1))),
  );
  if (unsafe) return unseen(`tar ${unsafe} writes files named inside the archive or runs programs`);
  if (!hasFlag(args, '-t', '--list') && !oldStyle.includes('t'))
    return unseen('tar is only safe-listed for listing (-t): other modes write files named inside the archive');
  const archives = [...optionValues(args, '--file'), ...args.filter((arg) => !arg.startsWith('-'))];
  if (archives.some((archive) => archive.includes(':'))) {
    return unseen('tar with a host:archive runs a remote shell');
  }
  return undefined;
}

const READ_ONLY_PROGRAMS = [
  'ls',
  'cat',
  'head',
  'tail',
  'wc',
  'grep',
  'egrep',
  'fgrep',
  'pwd',
  'which',
  'stat',
  'du',
  'df',
  'basename',
  'dirname',
  'jq',
  'true',
  'false',
  ':',
  'whoami',
  'id',
  'uname',
  'cut',
  'tr',
  'nl',
  'column',
  'tac',
  'rev',
  'fold',
  'seq',
  'realpath',
  'readlink',
  'diff',
  'cmp',
  'comm',
  'join',
  'paste',
  'expand',
  'unexpand',
  'fmt',
  'md5sum',
  'sha1sum',
  'sha256sum',
  'sha512sum',
  'cksum',
  'b2sum',
  'od',
  'hexdump',
  'strings',
  'nproc',
  'arch',
  'ps',
  'sleep',
  'test',
  '[',
  'type',
  'cd',
  'pushd',
  'popd',
  'dirs',
  'groups',
  'locale',
  'tput',
  'wait',
];

/**
 * The default safe list. Everything else asks; these ask too when their arguments leave
 * what is checked here (or contain an expansion, unless the arguments are inert).
 */
export const DEFAULT_SAFE_PROGRAMS: readonly SafeProgramRule[] = [
  ...READ_ONLY_PROGRAMS.map((program) => ({ program })),
  { program: 'echo', inertArguments: true },
  { program: 'printf', check: (args) => (hasFlag(args, '-v') ? 'printf -v assigns a shell variable' : undefined) },
  denyFlags('rg', ['--pre', '--hostname-bin', '-z', '--search-zip'], 'runs another program', true),
  {
    program: 'find',
    check: (args) => {
      // The files -fprint and -fls write are not checked against the protected paths: unseen.
      const writes = args.find((arg) => ['-fprint', '-fprint0', '-fprintf', '-fls'].includes(arg));
      if (writes !== undefined) return unseen(`find ${writes} writes a file the rules do not check`);
      // -exec runs its command on files only known when it runs, like xargs: unseen. The
      // command itself is classified too (find-actions.ts); -delete is high-risk.
      const exec = args.find((arg) => ['-exec', '-execdir', '-ok', '-okdir'].includes(arg));
      if (exec !== undefined) return unseen(`find ${exec} runs a command on files only known when it runs`);
      return args.includes('-delete') ? 'find -delete deletes files' : undefined;
    },
  },
  { program: 'sed', check: checkSedArguments },
  { program: 'awk', check: checkAwkArguments },
  { program: 'gawk', check: checkAwkArguments },
  { program: 'mawk', check: checkAwkArguments },
  { program: 'git', check: checkGitArguments },
  {
    program: 'sort',
    check: (args) =>
      hasFlag(args, '--compress-program')
        ? unseen('sort --compress-program runs another program')
        : hasFlag(args, '-o', '--output')
          ? 'sort -o writes a file'
          : undefined,
  },
  {
    program: 'uniq',
    check: (args) => (operandsOf(args).length > 1 ? 'uniq with two operands writes the output file' : undefined),
  },
  denyFlags('tree', ['-o', '-R'], 'writes files the rules do not check', true),
  {
    program: 'date',
    check: (args) =>
      hasFlag(args, '-s', '--set') || operandsOf(args).some((arg) => !arg.startsWith('+'))
        ? 'date can set the clock'
        : undefined,
  },
  {
    program: 'hostname',
    check: (args) =>
      operandsOf(args).length > 0 || hasFlag(args, '-F', '--file', '-b', '--boot')
        ? 'hostname can rename the machine'
        : undefined,
  },
  denyFlags('file', ['-C', '--compile'], 'writes a compiled magic file'),
  { program: 'tar', check: checkTarArguments },
  ...[
    'node',
    'npm',
    'pnpm',
    'yarn',
    'npx',
    'python',
    'python3',
    'deno',
    'bun',
    'go',
    'cargo',
    'rustc',
    'tsc',
    'java',
    'ruby',
    'perl',
  ].map(versionOnly),
];
