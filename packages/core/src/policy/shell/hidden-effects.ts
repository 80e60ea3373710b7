/**
 * What a command does that the rules cannot read (issue 24): it runs a program whose code is
 * not on the command line — a package script (`npm test`), a Makefile recipe, a program file
 * in the workspace (`./build.sh`), an option's program (`rg --pre`, `sed e`, `awk system()`)
 * — or writes files whose names are not on it (`tar -x`, `unzip`, `patch`, `sed w`,
 * `find -fprint`). Such a command is `shell:hidden-effect`: it is not "read through", so it
 * asks in every mode, yolo included, unlike one that is only not read-only (`mkdir x`).
 */
import { hasFlag, operandsOf } from './argument-predicates.js';

/** The rule of a command whose effect the rules cannot see. */
export const HIDDEN_EFFECT_RULE = 'shell:hidden-effect';

/** A problem a safe-list check found that hides what runs or what is written. */
export interface UnseenEffect {
  readonly reason: string;
  readonly unseen: true;
}

/** What a safe-list check says of arguments that are not provably safe: a visible change (a string) or an {@link UnseenEffect}. */
export type ArgumentProblem = string | UnseenEffect;

/** Marks a check's reason as an effect the rules cannot see. */
export function unseen(reason: string): UnseenEffect {
  return { reason, unseen: true };
}

/** The reason of a check's problem, whichever kind. */
export function reasonOf(problem: ArgumentProblem): string {
  return typeof problem === 'string' ? problem : problem.reason;
}

const VERSION_ONLY = new Set(['--version', '-v', '-V', 'version', '--help', '-h', 'help']);
const onlyAsksVersion = (args: readonly string[]) => args.length > 0 && args.every((arg) => VERSION_ONLY.has(arg));

/** Package managers: a subcommand that only reads the package database is fine, anything else may run package scripts. */
function packageManager(readOnly: readonly string[]) {
  return (name: string, args: readonly string[]): string | undefined => {
    if (onlyAsksVersion(args)) return undefined;
    const [subcommand] = operandsOf(args);
    if (subcommand !== undefined && readOnly.includes(subcommand)) return undefined;
    return `${name} ${subcommand ?? ''} may run the project's scripts or its dependencies' install scripts`.replace(
      '  ',
      ' ',
    );
  };
}

/** Programs that run code from files of the project (its scripts, recipes, tests, build files). */
function runsProjectCode(name: string) {
  return (_name: string, args: readonly string[]): string | undefined =>
    onlyAsksVersion(args)
      ? undefined
      : `${name} runs code from the project's files (scripts, recipes, tests, build files)`;
}

/** Tools that unpack archives or apply patches: the names they write come from their input. `lists` tells a run that only lists. */
function unpacks(lists: (args: readonly string[]) => boolean) {
  return (name: string, args: readonly string[]): string | undefined =>
    onlyAsksVersion(args) || lists(args)
      ? undefined
      : `${name} writes files named inside its input, which the rules cannot check`;
}
const withFlag =
  (...flags: string[]) =>
  (args: readonly string[]) =>
    hasFlag(args, ...flags);
/** `7z l`, `ar t`, `unrar lb`: the first word is a command whose letters include a listing one. */
const firstWordIn =
  (pattern: RegExp) =>
  (args: readonly string[]): boolean =>
    pattern.test(args[0] ?? '');

const NPM_READS = [
  'ls',
  'list',
  'll',
  'la',
  'view',
  'v',
  'info',
  'show',
  'outdated',
  'why',
  'explain',
  'search',
  'help',
];
const SYSTEM_PACKAGE_READS = ['list', 'search', 'show', 'info', 'policy', 'ls', 'query', 'desc', 'deps'];

/** Programs that hide what they run only with some options. */
function withOptions(why: string, ...flags: string[]) {
  return (name: string, args: readonly string[]): string | undefined => {
    const flag = flags.find((candidate) => hasFlag(args, candidate) || args.some((arg) => arg.startsWith(candidate)));
    return flag === undefined ? undefined : `${name} ${flag} ${why}`;
  };
}

/** Programs whose runs hide what they run or write, by base name. */
const HIDING_PROGRAMS: ReadonlyMap<string, (name: string, args: readonly string[]) => string | undefined> = new Map([
  ...['npm', 'pnpm', 'yarn', 'bun', 'cnpm'].map((name) => [name, packageManager(NPM_READS)] as const),
  ...['npx', 'pnpx', 'bunx', 'yarnpkg'].map((name) => [name, runsProjectCode(name)] as const),
  ...[
    'make',
    'gmake',
    'just',
    'task',
    'rake',
    'gradle',
    'gradlew',
    'mvn',
    'mvnw',
    'ant',
    'sbt',
    'cargo',
    'cmake',
    'ninja',
    'meson',
    'bazel',
    'bazelisk',
    'buck',
    'scons',
    'turbo',
    'nx',
    'lerna',
    'composer',
    'bundle',
    'pip',
    'pip3',
    'pipx',
    'poetry',
    'pdm',
    'hatch',
    'uv',
    'uvx',
    'tox',
    'nox',
    'pytest',
    'py.test',
    'jest',
    'vitest',
    'mocha',
    'ava',
    'tap',
    'karma',
    'playwright',
    'cypress',
    'phpunit',
    'rspec',
    'dotnet',
    'mix',
    'rebar3',
    'stack',
    'cabal',
    'dune',
    'swift',
    'flutter',
    'dart',
    'gem',
    'direnv',
    'pre-commit',
    'husky',
    'lefthook',
    'tsx',
    'ts-node',
    'corepack',
    'volta',
    'mise',
    'asdf',
    'nvm',
    'fnm',
    'nix',
    'nix-shell',
    'devbox',
  ].map((name) => [name, runsProjectCode(name)] as const),
  [
    'ldd',
    (_name: string, args: readonly string[]) =>
      onlyAsksVersion(args) ? undefined : 'ldd may run the program it inspects',
  ],
  ...['at', 'batch'].map(
    (name) =>
      [
        name,
        (_name: string, args: readonly string[]) =>
          hasFlag(args, '-l') || onlyAsksVersion(args)
            ? undefined
            : `${name} schedules the commands it reads, which the rules do not see`,
      ] as const,
  ),
  [
    'crontab',
    (_name: string, args: readonly string[]) =>
      hasFlag(args, '-l') || onlyAsksVersion(args)
        ? undefined
        : 'crontab installs commands that run later, which the rules do not see',
  ],
  [
    'go',
    (_name: string, args: readonly string[]) =>
      onlyAsksVersion(args) || ['env', 'list', 'doc', 'fmt', 'vet'].includes(operandsOf(args)[0] ?? '')
        ? undefined
        : "go runs the project's code, generators or tools",
  ],
  [
    'deno',
    (_name: string, args: readonly string[]) =>
      onlyAsksVersion(args) || ['fmt', 'lint', 'info', 'doc'].includes(operandsOf(args)[0] ?? '')
        ? undefined
        : "deno runs the project's code or tasks",
  ],
  // Editors that run the commands they are given (`vim -c '!id'`) or read from standard input (`ed`).
  ...['vim', 'vi', 'nvim', 'view', 'gvim'].map(
    (name) =>
      [
        name,
        withOptions('runs editor commands the rules do not read', '-c', '--cmd', '+', '-S', '-s', '-u', '-e', '-E'),
      ] as const,
  ),
  ...['ed', 'red', 'ex'].map(
    (name) => [name, () => `${name} runs the editor commands it reads, shell escapes included`] as const,
  ),
  [
    'emacs',
    withOptions(
      'runs Lisp the rules do not read',
      '--eval',
      '-l',
      '--load',
      '--batch',
      '-f',
      '--funcall',
      '--script',
      '-x',
    ),
  ],
  ['man', withOptions('runs the program it names as a pager or browser', '-P', '--pager', '-H', '--html')],
  ...['scp', 'sftp'].map(
    (name) => [name, withOptions('runs the program or proxy command it names', '-S', '-o', '-D')] as const,
  ),
  ['zip', withOptions('runs the program it names to test the archive', '-TT', '--unzip-command')],
  ['split', withOptions('runs a command on every piece', '--filter')],
  ...['apt', 'apt-get', 'dpkg', 'rpm', 'yum', 'dnf', 'zypper', 'pacman', 'apk', 'brew', 'port', 'snap', 'flatpak'].map(
    (name) => [name, packageManager(SYSTEM_PACKAGE_READS)] as const,
  ),
  [
    'rsync',
    (_name: string, args: readonly string[]) =>
      hasFlag(args, '-e', '--rsh', '--rsync-path') ? 'rsync -e / --rsync-path runs the program it names' : undefined,
  ],
  ['unzip', unpacks(withFlag('-l', '-v', '-t', '-Z'))],
  ...['7z', '7za', '7zr'].map((name) => [name, unpacks(firstWordIn(/^[lt]$/))] as const),
  ['unrar', unpacks(firstWordIn(/^(?:l[tb]?|v[tb]?|t)$/))],
  ['ar', unpacks(firstWordIn(/^-?[tvO]+$/))],
  ['cpio', unpacks(withFlag('-t', '--list'))],
  ['bsdtar', unpacks(withFlag('-t', '--list'))],
  ['patch', unpacks(withFlag('--dry-run'))],
]);

/**
 * Why running `name` (found at `location`) with `args` hides what it runs or writes, or
 * undefined. A program run from a file that is not in a system directory (`./build.sh`,
 * `node_modules/.bin/x`) hides its code; the safe list never vouches for one (issue 24).
 */
export function hiddenEffectOf(
  name: string,
  location: 'bare' | 'system' | 'other',
  args: readonly string[],
): string | undefined {
  if (location === 'other') return `${name} is a program file whose code the rules cannot see`;
  return HIDING_PROGRAMS.get(name)?.(name, args);
}
