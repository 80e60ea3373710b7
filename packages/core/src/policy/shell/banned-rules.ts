import { hasFlag, operandsOf, optionsOf, optionValues } from './argument-predicates.js';
import { isBlockDevice, type PathKind } from './critical-paths.js';
import { findStartPaths } from './find-actions.js';
import type { RuleInvocation, ShellRule } from './shell-rule.js';

const RECURSIVE = ['-r', '-R', '--recursive'];

function operandKinds(invocation: RuleInvocation): PathKind[] {
  return operandsOf(invocation.args).map((operand) => invocation.pathKind(operand));
}

function recursiveOn(invocation: RuleInvocation, kinds: readonly PathKind[]): boolean {
  return hasFlag(invocation.args, ...RECURSIVE) && operandKinds(invocation).some((kind) => kinds.includes(kind));
}

/** What `mv` moves away: every operand but the destination (all of them with `-t DIR`). */
function movedKinds(invocation: RuleInvocation): PathKind[] {
  const targets = optionValues(invocation.args, '-t', '--target-directory');
  const suffixes = optionValues(invocation.args, '-S', '--suffix');
  const operands = operandsOf(invocation.args).filter(
    (operand) => !targets.includes(operand) && !suffixes.includes(operand),
  );
  const sources = targets.length > 0 ? operands : operands.slice(0, -1);
  return sources.map((source) => invocation.pathKind(source));
}

/** `rsync --delete…` empties its destination of what the source lacks: a home or `/` as destination loses everything. */
function rsyncDeletes(invocation: RuleInvocation, kinds: readonly PathKind[]): boolean {
  const deletes = optionsOf(invocation.args).some((option) => option.startsWith('--delete') || option === '--del');
  const destination = operandsOf(invocation.args).at(-1);
  return deletes && destination !== undefined && kinds.includes(invocation.pathKind(destination));
}

/** True unless one of the read-only (listing) flags is given. */
const unlessReadOnly =
  (...readOnlyFlags: string[]) =>
  (invocation: RuleInvocation): boolean =>
    !hasFlag(invocation.args, ...readOnlyFlags, '--help', '-h', '--version', '-V');

/**
 * Banned by default: denied in every mode, even when a person approves. Reported as
 * `shell:banned:<id>`. Next to these, the analysis bans `fork-bomb`, `download-exec`
 * (a network fetcher piped or substituted into an interpreter) and `write-device`
 * (a redirection onto a block device).
 */
export const DEFAULT_BANNED_RULES: readonly ShellRule[] = [
  {
    id: 'rm-root',
    programs: ['rm'],
    reason: 'recursive delete of /, everything in /, a system directory or a device',
    matches: (invocation) => recursiveOn(invocation, ['root', 'system', 'device']),
  },
  {
    id: 'rm-home',
    programs: ['rm'],
    reason: 'recursive delete of a home directory',
    matches: (invocation) => recursiveOn(invocation, ['home']),
  },
  {
    id: 'rm-root',
    programs: ['rsync'],
    reason: 'rsync --delete into /, a system directory or a device removes what is there',
    matches: (invocation) => rsyncDeletes(invocation, ['root', 'system', 'device']),
  },
  {
    id: 'rm-home',
    programs: ['rsync'],
    reason: 'rsync --delete into a home directory removes what is there',
    matches: (invocation) => rsyncDeletes(invocation, ['home']),
  },
  {
    id: 'mv-root',
    programs: ['mv'],
    reason: 'moving /, everything in /, a system directory or a device away',
    matches: (invocation) =>
      movedKinds(invocation).some((kind) => kind === 'root' || kind === 'system' || kind === 'device'),
  },
  {
    id: 'mv-home',
    programs: ['mv'],
    reason: 'moving a home directory away',
    matches: (invocation) => movedKinds(invocation).includes('home'),
  },
  {
    id: 'find-delete-root',
    programs: ['find'],
    reason: 'find -delete over /, a system directory or a home directory',
    matches: (invocation) =>
      invocation.args.includes('-delete') &&
      findStartPaths(invocation.args).some((path) => invocation.pathKind(path) !== 'ordinary'),
  },
  {
    id: 'mkfs',
    programs: ['mkfs*', 'mke2fs', 'mkswap', 'newfs*', 'mkdosfs'],
    reason: 'creating a file system erases the device',
    matches: (invocation) => operandsOf(invocation.args).length > 0,
  },
  {
    id: 'dd-device',
    programs: ['dd'],
    reason: 'dd writing onto a block device',
    matches: (invocation) =>
      invocation.args.some((arg) => arg.startsWith('of=') && isBlockDevice(arg.slice('of='.length))),
  },
  {
    id: 'wipefs',
    programs: ['wipefs'],
    reason: 'wipefs erases file-system signatures',
    matches: (invocation) =>
      !hasFlag(invocation.args, '-n', '--no-act') && hasFlag(invocation.args, '-a', '--all', '-o', '--offset'),
  },
  {
    id: 'partition-table',
    programs: ['fdisk', 'gdisk', 'cfdisk'],
    reason: 'interactive partition editors rewrite partition tables',
    matches: unlessReadOnly('-l', '--list'),
  },
  {
    id: 'partition-table',
    programs: ['sfdisk'],
    reason: 'sfdisk rewrites partition tables',
    matches: unlessReadOnly(
      '-l',
      '--list',
      '-d',
      '--dump',
      '-s',
      '--show-size',
      '--verify',
      '-J',
      '--json',
      '-F',
      '--list-free',
      '-g',
      '--show-geometry',
    ),
  },
  {
    id: 'partition-table',
    programs: ['sgdisk'],
    reason: 'sgdisk rewrites partition tables',
    matches: unlessReadOnly('-p', '--print', '-i', '--info', '-v', '--verify', '-O', '--print-mbr'),
  },
  {
    id: 'partition-table',
    programs: ['parted'],
    reason: 'parted rewrites partition tables',
    matches: (invocation) =>
      unlessReadOnly('-l', '--list')(invocation) &&
      !(
        operandsOf(invocation.args).length > 1 &&
        operandsOf(invocation.args)
          .slice(1)
          .every((word) => word === 'print' || word === 'p')
      ),
  },
  {
    id: 'shred-device',
    programs: ['shred'],
    reason: 'shred overwriting a block device',
    matches: (invocation) => operandKinds(invocation).includes('device'),
  },
  {
    id: 'chmod-root',
    programs: ['chmod'],
    reason: 'recursive permission change of /, a system directory or a home directory',
    matches: (invocation) => recursiveOn(invocation, ['root', 'system', 'home', 'device']),
  },
  {
    id: 'chown-root',
    programs: ['chown', 'chgrp'],
    reason: 'recursive ownership change of /, a system directory or a home directory',
    matches: (invocation) => recursiveOn(invocation, ['root', 'system', 'home', 'device']),
  },
  {
    id: 'write-device',
    programs: ['tee', 'cp', 'mv', 'install'],
    reason: 'writing onto a block device',
    matches: (invocation) =>
      invocation.program === 'tee'
        ? operandKinds(invocation).includes('device')
        : invocation.pathKind(operandsOf(invocation.args).at(-1) ?? '') === 'device',
  },
  {
    id: 'write-device',
    programs: ['cp', 'mv', 'install'],
    reason: 'writing onto a block device',
    matches: (invocation) => optionValues(invocation.args, '-t', '--target-directory').some(isBlockDevice),
  },
];
