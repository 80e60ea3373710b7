import { hasFlag, operandsOf, optionValues } from './argument-predicates.js';
import { parseGitCommandLine } from './git-command-line.js';
import type { RuleInvocation, ShellRule } from './shell-rule.js';

/** The first few operands, so `kubectl -n prod delete` and `docker -H host rm` still match. */
function leadingOperands(invocation: RuleInvocation, count = 3): string[] {
  return operandsOf(invocation.args).slice(0, count);
}

/** A git rule: matches when the subcommand is `subcommand` and `test` holds on its arguments. */
function gitRule(
  id: string,
  subcommand: string,
  reason: string,
  test: (args: readonly string[]) => boolean,
): ShellRule {
  return {
    id,
    programs: ['git'],
    reason,
    matches: (invocation) => {
      const line = parseGitCommandLine(invocation.args);
      return line.subcommand === subcommand && test(line.args);
    },
  };
}

/** `git push` arguments that overwrite remote history. */
function isForcePush(args: readonly string[]): boolean {
  const refspecs = operandsOf(args).slice(1);
  return (
    hasFlag(args, '-f', '--force', '--force-with-lease', '--force-if-includes', '--mirror') ||
    refspecs.some((refspec) => refspec.startsWith('+'))
  );
}

/** `git push` arguments that delete remote refs. */
function isDeletingPush(args: readonly string[]): boolean {
  return (
    hasFlag(args, '-d', '--delete', '--prune') ||
    operandsOf(args)
      .slice(1)
      .some((refspec) => refspec.startsWith(':'))
  );
}

const DOCKER_REMOVALS = new Set(['rm', 'rmi', 'kill', 'prune']);

/** The upload and post-from-file options of curl and wget. */
function uploadsFiles(invocation: RuleInvocation): boolean {
  const { args } = invocation;
  if (invocation.program === 'wget') return hasFlag(args, '--post-file', '--body-file');
  if (hasFlag(args, '-T', '--upload-file')) return true;
  const dataOptions = ['-d', '--data', '--data-binary', '--data-ascii', '--data-urlencode', '--json'];
  if (optionValues(args, ...dataOptions).some((value) => value.startsWith('@') || value.includes('=@'))) return true;
  return optionValues(args, '-F', '--form').some((value) => value.includes('=@') || value.includes('=<'));
}

/**
 * High-risk by default: always asks, even in yolo mode, and is never covered by a
 * remembered approval. Reported as `shell:high-risk:<id>`.
 */
export const DEFAULT_HIGH_RISK_RULES: readonly ShellRule[] = [
  {
    id: 'privilege-escalation',
    programs: ['sudo', 'doas', 'su', 'pkexec', 'sudoedit', 'run0'],
    reason: 'runs with another user’s privileges',
  },
  gitRule('force-push', 'push', 'force push overwrites remote history', isForcePush),
  gitRule('push-delete', 'push', 'push deletes remote branches or tags', isDeletingPush),
  gitRule('hard-reset', 'reset', 'git reset --hard discards uncommitted work', (args) =>
    hasFlag(args, '--hard', '--merge', '--keep'),
  ),
  gitRule('git-clean', 'clean', 'git clean -f deletes untracked files', (args) => hasFlag(args, '-f', '--force')),
  gitRule(
    'git-branch-force-delete',
    'branch',
    'git branch -D deletes unmerged work',
    (args) => hasFlag(args, '-D') || (hasFlag(args, '-d', '--delete') && hasFlag(args, '-f', '--force')),
  ),
  gitRule(
    'git-discard',
    'checkout',
    'git checkout -f / -- discards local changes',
    (args) => hasFlag(args, '-f', '--force') || args.includes('--'),
  ),
  gitRule('git-stash-clear', 'stash', 'git stash clear / drop deletes stashed work', (args) =>
    ['clear', 'drop'].includes(args[0] ?? ''),
  ),
  {
    id: 'recursive-delete',
    programs: ['rm'],
    reason: 'recursive delete',
    when: { flags: ['-r', '-R', '--recursive'] },
  },
  {
    id: 'find-delete',
    programs: ['find'],
    reason: 'find -delete deletes every match',
    when: { arguments: ['-delete'] },
  },
  { id: 'shred', programs: ['shred'], reason: 'shred destroys file contents beyond recovery' },
  {
    id: 'recursive-permissions',
    programs: ['chmod', 'chown', 'chgrp'],
    reason: 'recursive permission or ownership change',
    when: { flags: ['-R', '--recursive'] },
  },
  { id: 'kill', programs: ['kill', 'killall', 'pkill', 'skill', 'xkill'], reason: 'terminates processes' },
  {
    id: 'shutdown',
    programs: ['shutdown', 'reboot', 'halt', 'poweroff'],
    reason: 'stops or restarts the machine',
  },
  {
    id: 'shutdown',
    programs: ['init', 'telinit'],
    reason: 'changes the run level (stops or restarts the machine)',
    when: { arguments: ['0', '6'] },
  },
  {
    id: 'systemctl',
    programs: ['systemctl'],
    reason: 'stops, disables or masks services, or powers the machine off',
    matches: (invocation) =>
      leadingOperands(invocation).some((word) =>
        [
          'stop',
          'disable',
          'mask',
          'kill',
          'isolate',
          'poweroff',
          'reboot',
          'halt',
          'kexec',
          'suspend',
          'hibernate',
        ].includes(word),
      ),
  },
  {
    id: 'systemctl',
    programs: ['service'],
    reason: 'stops a service',
    matches: (invocation) => leadingOperands(invocation).includes('stop'),
  },
  {
    id: 'docker-remove',
    programs: ['docker', 'podman', 'nerdctl'],
    reason: 'removes containers, images, volumes or networks',
    matches: (invocation) => leadingOperands(invocation).some((word) => DOCKER_REMOVALS.has(word)),
  },
  {
    id: 'kubectl-delete',
    programs: ['kubectl', 'oc'],
    reason: 'deletes cluster resources',
    matches: (invocation) => leadingOperands(invocation).some((word) => word === 'delete' || word === 'drain'),
  },
  {
    id: 'package-publish',
    programs: ['npm', 'pnpm', 'yarn', 'bun'],
    reason: 'publishes (or unpublishes) a package to a registry',
    matches: (invocation) =>
      leadingOperands(invocation, 2).some((word) => ['publish', 'unpublish', 'deprecate'].includes(word)),
  },
  {
    id: 'package-publish',
    programs: ['cargo', 'gem'],
    reason: 'publishes a package to a registry',
    when: { subcommands: ['publish', 'push', 'yank'] },
  },
  {
    id: 'package-publish',
    programs: ['twine'],
    reason: 'publishes a package to a registry',
    when: { subcommands: ['upload'] },
  },
  { id: 'upload', programs: ['curl', 'wget'], reason: 'uploads local files to a server', matches: uploadsFiles },
  {
    id: 'firewall',
    programs: ['iptables', 'ip6tables', 'iptables-restore', 'ip6tables-restore', 'nft', 'ufw', 'firewall-cmd'],
    reason: 'changes firewall rules',
  },
  { id: 'crontab-remove', programs: ['crontab'], reason: 'crontab -r deletes the crontab', when: { flags: ['-r'] } },
  {
    id: 'history-clear',
    programs: ['history'],
    reason: 'history -c clears the shell history',
    when: { flags: ['-c'] },
  },
];
