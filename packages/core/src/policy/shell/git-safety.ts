import { hasFlag } from './argument-predicates.js';
import { checkGitGlobalOptions, parseGitCommandLine } from './git-command-line.js';
import { hiddenGitEffect } from './git-subcommands.js';
import { unseen, type ArgumentProblem } from './hidden-effects.js';

type ArgumentCheck = (args: readonly string[]) => string | undefined;

/** Options that make a subcommand write a file or run a program the rules cannot see. */
const UNSAFE_ANYWHERE = [
  '--output',
  '--upload-pack',
  '--receive-pack',
  '--exec',
  '--ext-diff',
  '--open-files-in-pager',
  '--template',
  '--config',
  '--extcmd',
  '--tool',
];

const anything: ArgumentCheck = () => undefined;

/** The operands of `args`, skipping the values of `valueOptions` given as a separate argument. */
function operandsSkipping(args: readonly string[], valueOptions: ReadonlySet<string>): string[] {
  const operands: string[] = [];
  for (let index = 0; index < args.length; index += 1) {
    const arg = args[index] ?? '';
    if (arg === '--') return [...operands, ...args.slice(index + 1)];
    if (valueOptions.has(arg)) index += 1;
    else if (!arg.startsWith('-')) operands.push(arg);
  }
  return operands;
}

/** `git branch` / `git tag` are read-only when they list: no writing flag, and no name unless `--list`. */
function listingOnly(name: string, writingFlags: readonly string[], valueOptions: readonly string[]): ArgumentCheck {
  const values = new Set(valueOptions);
  return (args) => {
    const writing = writingFlags.find((flag) => hasFlag(args, flag));
    if (writing) return `git ${name} ${writing} changes the repository`;
    if (operandsSkipping(args, values).length > 0 && !hasFlag(args, '-l', '--list')) {
      return `git ${name} with a name creates it`;
    }
    return undefined;
  };
}

const LISTING_VALUE_OPTIONS = [
  '--contains',
  '--no-contains',
  '--merged',
  '--no-merged',
  '--points-at',
  '--sort',
  '--format',
];

function firstArgumentIn(name: string, allowed: readonly string[], allowEmpty: boolean): ArgumentCheck {
  return (args) => {
    const first = args.find((arg) => !arg.startsWith('-'));
    if (first === undefined ? allowEmpty : allowed.includes(first)) return undefined;
    return `git ${name} ${first ?? ''} is not known to be read-only`.trim();
  };
}

/** Read-only git subcommands, with a check of their arguments. */
const READ_ONLY_SUBCOMMANDS: ReadonlyMap<string, ArgumentCheck> = new Map(
  Object.entries({
    status: anything,
    log: anything,
    diff: anything,
    show: anything,
    'rev-parse': anything,
    'ls-files': anything,
    'ls-tree': anything,
    'cat-file': anything,
    blame: anything,
    annotate: anything,
    shortlog: anything,
    describe: anything,
    'rev-list': anything,
    'merge-base': anything,
    'name-rev': anything,
    'show-ref': anything,
    'for-each-ref': anything,
    'count-objects': anything,
    'check-ignore': anything,
    'check-attr': anything,
    whatchanged: anything,
    'diff-tree': anything,
    'diff-files': anything,
    'diff-index': anything,
    grep: (args) => (hasFlag(args, '-O') ? 'git grep -O opens files in a program' : undefined),
    version: anything,
    branch: listingOnly(
      'branch',
      [
        '-d',
        '-D',
        '-m',
        '-M',
        '-c',
        '-C',
        '-f',
        '-u',
        '-t',
        '--delete',
        '--move',
        '--copy',
        '--force',
        '--set-upstream-to',
        '--unset-upstream',
        '--edit-description',
        '--track',
        '--no-track',
        '--create-reflog',
      ],
      LISTING_VALUE_OPTIONS,
    ),
    tag: listingOnly(
      'tag',
      [
        '-a',
        '-s',
        '-u',
        '-f',
        '-d',
        '-m',
        '-F',
        '-e',
        '--annotate',
        '--sign',
        '--local-user',
        '--force',
        '--delete',
        '--message',
        '--file',
        '--edit',
        '--create-reflog',
      ],
      LISTING_VALUE_OPTIONS,
    ),
    remote: firstArgumentIn('remote', ['show', 'get-url'], true),
    stash: firstArgumentIn('stash', ['list', 'show'], false),
    reflog: firstArgumentIn('reflog', ['show'], true),
    worktree: firstArgumentIn('worktree', ['list'], false),
  }),
);

/**
 * Why a git command line is not provably read-only, or undefined when it is. What runs a
 * program or writes files the rules cannot see is an unseen effect (issue 24): `-c`, an
 * option that names a program (`--upload-pack`), a subcommand that runs tools or scripts
 * (`difftool`, `bisect run`), one that applies a patch, and a name git does not know
 * (an alias the repository may define). What the repository's own configuration makes git
 * run is looked at by git-programs.ts.
 */
export function checkGitArguments(args: readonly string[]): ArgumentProblem | undefined {
  const line = parseGitCommandLine(args);
  const globalProblem = checkGitGlobalOptions(line.globalOptions);
  if (globalProblem) return unseen(globalProblem);
  if (line.subcommand === undefined) return line.globalOptions.length > 0 ? undefined : 'git without a subcommand';
  const unsafe = UNSAFE_ANYWHERE.find((flag) => hasFlag(line.args, flag));
  if (unsafe) return unseen(`git ${line.subcommand} ${unsafe} writes files or runs programs`);
  const hidden = hiddenGitEffect(line.subcommand, line.args);
  if (hidden !== undefined) return unseen(hidden);
  const check = READ_ONLY_SUBCOMMANDS.get(line.subcommand);
  if (!check) return `git ${line.subcommand} is not a read-only subcommand`;
  return check(line.args);
}
