import { hasFlag, operandsOf } from './argument-predicates.js';

/** The commands git itself has (`git help -a`): any other name is an alias or an external `git-<name>` program. */
const GIT_COMMANDS = new Set(
  `add am annotate apply archimport archive backfill bisect blame branch bugreport bundle cat-file check-attr
  check-ignore check-mailmap check-ref-format checkout checkout-index cherry cherry-pick citool clean clone column
  commit commit-graph commit-tree config count-objects credential credential-cache credential-store cvsexportcommit
  cvsimport cvsserver daemon describe diagnose diff diff-files diff-index diff-pairs diff-tree difftool fast-export
  fast-import fetch fetch-pack filter-branch fmt-merge-msg for-each-ref for-each-repo format-patch fsck fsck-objects
  fsmonitor--daemon gc get-tar-commit-id grep gui hash-object help hook http-backend imap-send index-pack init
  init-db instaweb interpret-trailers last-modified log ls-files ls-remote ls-tree mailinfo mailsplit maintenance
  merge merge-base merge-file merge-index merge-one-file merge-tree mergetool mktag mktree multi-pack-index mv
  name-rev notes p4 pack-objects pack-redundant pack-refs patch-id prune prune-packed pull push quiltimport
  range-diff read-tree rebase receive-pack reflog refs remote repack replace replay request-pull rerere reset
  restore rev-list rev-parse revert rm send-email send-pack shell shortlog show show-branch show-index show-ref
  sparse-checkout stage stash status stripspace submodule svn switch symbolic-ref tag unpack-file unpack-objects
  update-index update-ref update-server-info upload-archive upload-pack var verify-commit verify-pack verify-tag
  version web--browse whatchanged worktree write-tree`.split(/\s+/),
);

/** Subcommands that run a program, a tool or a script whatever their arguments. */
const RUN_PROGRAMS = new Set([
  'difftool',
  'mergetool',
  'filter-branch',
  'send-email',
  'instaweb',
  'daemon',
  'web--browse',
  'credential',
  'credential-cache',
  'credential-store',
  'upload-pack',
  'receive-pack',
  'upload-archive',
  'http-backend',
  'shell',
  'hook',
  'for-each-repo',
  'fsmonitor--daemon',
  'gui',
  'citool',
  'p4',
  'svn',
  'cvsimport',
  'cvsexportcommit',
  'cvsserver',
  'archimport',
  'quiltimport',
  'imap-send',
  'merge-one-file',
  'merge-index',
]);

/** Checks of subcommands that run programs or write unseen files only with some arguments. */
const SOMETIMES: Readonly<Record<string, (args: readonly string[]) => string | undefined>> = {
  grep: (args) => (hasFlag(args, '-O', '--open-files-in-pager') ? 'git grep -O opens files in a program' : undefined),
  bisect: (args) => (operandsOf(args)[0] === 'run' ? 'git bisect run runs a program at every step' : undefined),
  rebase: (args) =>
    hasFlag(args, '-x', '--exec', '-i', '--interactive')
      ? 'git rebase --exec / --interactive runs commands'
      : undefined,
  submodule: (args) =>
    operandsOf(args)[0] === 'foreach' ? 'git submodule foreach runs a command in every submodule' : undefined,
  archive: (args) => (hasFlag(args, '--remote') ? 'git archive --remote runs a program on the remote' : undefined),
  'ls-remote': (args) => (hasFlag(args, '-u') ? 'git ls-remote -u runs the program it names' : undefined),
  clone: (args) => (hasFlag(args, '-u', '-c') ? 'git clone -u / -c run programs or set configuration' : undefined),
  apply: (args) =>
    hasFlag(args, '--check', '--stat', '--numstat', '--summary') && !hasFlag(args, '--apply')
      ? undefined
      : 'git apply writes the files the patch names, which the rules cannot check',
  am: () => 'git am writes the files the patches name, which the rules cannot check',
};

/**
 * Why `git <subcommand> <args>` runs a program or writes files the rules cannot see, or
 * undefined (issue 24). A name git does not have runs an alias (`!…` runs a shell command)
 * or a `git-<name>` program found on the PATH.
 */
export function hiddenGitEffect(subcommand: string, args: readonly string[]): string | undefined {
  if (!GIT_COMMANDS.has(subcommand))
    return `git ${subcommand} is not a git command: it runs an alias or a git-${subcommand} program the rules cannot see`;
  if (RUN_PROGRAMS.has(subcommand)) return `git ${subcommand} runs programs or tools the rules cannot see`;
  return SOMETIMES[subcommand]?.(args);
}
