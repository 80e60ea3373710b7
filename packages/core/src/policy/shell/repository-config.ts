/**
 * What a repository's own configuration makes git run (issue 24). A cloned or planted
 * repository can set `alias.st = !sh -c …`, `core.pager`, `pager.status`, a diff driver's
 * `textconv`, a filter's `clean`, `core.fsmonitor`, hooks… so even `git status` there runs
 * programs nobody saw. The shell rules read the repository's `.git/config` (and the hooks
 * directory) when a command runs git: a repository that makes git run programs makes every
 * git command in it an unseen effect, asked about in every mode.
 *
 * Synchronous, bounded reads: a classification is synchronous, and a config over
 * {@link MAX_CONFIG_BYTES} is taken to run programs.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, isAbsolute, join, resolve } from 'node:path';

const MAX_CONFIG_BYTES = 1_048_576;
const MAX_ASCENT = 128;

/** Keys (lower case) whose values git runs as programs or that pull in other configuration. */
const PROGRAM_KEYS: readonly RegExp[] = [
  /^alias\./,
  /^core\.(pager|editor|sshcommand|fsmonitor|askpass|gitproxy|hookspath|alternaterefscommand)$/,
  /^pager\./,
  /^diff\.external$/,
  /^diff\..+\.(textconv|command)$/,
  /^(merge\..+\.driver|mergetool\..+\.cmd|difftool\..+\.cmd)$/,
  /^filter\..+\.(clean|smudge|process)$/,
  /^gpg(\..+)?\.program$/,
  /^(sequence\.editor|interactive\.difffilter)$/,
  /^credential(\..+)?\.helper$/,
  /^remote\..+\.(uploadpack|receivepack)$/,
  /^uploadpack\.packobjectshook$/,
  /^sendemail\./,
  /^(include|includeif\..+)\.path$/,
  /^(web\.browser|browser\..+\.(cmd|path)|man\.viewer|man\..+\.(cmd|path))$/,
  /^trailer\..+\.(command|cmd)$/,
  /^submodule\..+\.update$/,
  /^protocol\./,
];

/** Whether git, given a `-c key=value`, would run `value` as a command (the keys of {@link PROGRAM_KEYS}). */
export function isProgramKey(key: string): boolean {
  const lower = key.toLowerCase();
  return PROGRAM_KEYS.some((pattern) => pattern.test(lower));
}

/**
 * Why git run in `directory` would run programs its repository's configuration or hooks
 * name, or undefined (no repository, or nothing that runs). `gitDirectory` is `--git-dir`.
 */
export function repositoryRunsPrograms(directory: string, gitDirectory?: string): string | undefined {
  const gitDir = gitDirectory === undefined ? findGitDirectory(directory) : resolve(directory, gitDirectory);
  if (gitDir === undefined) return undefined;
  const common = commonDirectory(gitDir);
  for (const file of [join(gitDir, 'config'), join(gitDir, 'config.worktree'), join(common, 'config')]) {
    const keys = programKeysIn(file);
    if (keys.length > 0)
      return `the repository's configuration ${file} makes git run programs (${keys.slice(0, 3).join(', ')})`;
  }
  const hooks = hooksIn(join(common, 'hooks'));
  if (hooks.length > 0) return `the repository has hooks git runs (${hooks.slice(0, 3).join(', ')})`;
  return undefined;
}

/** The git directory of the repository `directory` is in: `.git`, or where a `.git` file points. */
function findGitDirectory(directory: string): string | undefined {
  let current = resolve(directory);
  for (let level = 0; level < MAX_ASCENT; level += 1) {
    const candidate = join(current, '.git');
    const kind = kindOf(candidate);
    if (kind === 'directory') return candidate;
    if (kind === 'file') {
      const pointer = /^gitdir:\s*(.+?)\s*$/m.exec(readBounded(candidate) ?? '')?.[1];
      return pointer === undefined ? candidate : resolve(current, pointer);
    }
    const parent = dirname(current);
    if (parent === current) return undefined;
    current = parent;
  }
  return undefined;
}

/** A worktree's shared git directory (`commondir`), or the git directory itself. */
function commonDirectory(gitDir: string): string {
  const pointer = readBounded(join(gitDir, 'commondir'))?.trim();
  if (pointer === undefined || pointer === '') return gitDir;
  return isAbsolute(pointer) ? pointer : resolve(gitDir, pointer);
}

/** The keys of a git config file that run programs (a file too large to read counts as one). */
function programKeysIn(file: string): string[] {
  if (kindOf(file) !== 'file') return [];
  const text = readBounded(file);
  if (text === undefined) return ['(a configuration too large to read)'];
  const keys: string[] = [];
  let section = '';
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#') || line.startsWith(';')) continue;
    const header = /^\[\s*([^\]\s"]+)(?:\s+"((?:[^"\\]|\\.)*)")?\s*\](.*)$/.exec(line);
    if (header) {
      section = header[2] === undefined ? (header[1] ?? '') : `${header[1] ?? ''}.${header[2]}`;
      const rest = header[3]?.trim() ?? '';
      if (rest === '' || rest.startsWith('#') || rest.startsWith(';')) continue;
      collect(`${section}.${rest.split('=')[0]?.trim() ?? ''}`, keys);
      continue;
    }
    collect(`${section}.${line.split('=')[0]?.trim() ?? ''}`, keys);
  }
  return keys;
}

function collect(key: string, keys: string[]): void {
  if (isProgramKey(key)) keys.push(key.toLowerCase());
}

/** Hooks that would run: files of the hooks directory but git's `.sample` ones. */
function hooksIn(directory: string): string[] {
  if (kindOf(directory) !== 'directory') return [];
  try {
    return readdirSync(directory).filter((name) => !name.endsWith('.sample'));
  } catch {
    return ['(a hooks directory that cannot be read)'];
  }
}

function kindOf(path: string): 'file' | 'directory' | undefined {
  try {
    const found = statSync(path);
    return found.isDirectory() ? 'directory' : found.isFile() ? 'file' : undefined;
  } catch {
    return undefined;
  }
}

/** A small file's text; undefined when it cannot be read or is over the bound. */
function readBounded(file: string): string | undefined {
  try {
    if (statSync(file).size > MAX_CONFIG_BYTES) return undefined;
    return readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}
