/**
 * The file a path really reaches (issue 24): paths are not compared as strings. A write to
 * `link/x`, where `link` is a symlink inside the workspace, lands where `link` points —
 * outside the workspace, or in `.git/hooks` — and `link/../x` climbs from where `link`
 * points, not from `link`. So every path check resolves the path the way the kernel does,
 * one component at a time: symlinks anywhere along it (the last one too, even dangling: a
 * write follows it and creates its target), `..` after a symlink, and paths that do not
 * exist yet below a symlinked parent. A symlink loop is reported, not followed for ever.
 *
 * Synchronous and bounded: decisions are synchronous, and a path has at most
 * {@link MAX_COMPONENTS} components and {@link MAX_SYMLINKS} links.
 */
import { lstatSync, readlinkSync, realpathSync } from 'node:fs';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';

/** Links followed before a path is taken to loop (Linux gives up after 40). */
export const MAX_SYMLINKS = 40;
/** Components read before a path is refused as unreasonable. */
export const MAX_COMPONENTS = 4_096;

/** Where a path leads. */
export interface ReachedPath {
  /** The absolute path it reaches, symlinks followed. */
  absolute: string;
  /** True when a symlink was followed on the way. */
  throughLink: boolean;
  /** Set when it cannot be resolved (a symlink loop, too long): treat it as reaching anywhere. */
  problem?: string;
}

/** Where `path` (relative to `base`, or absolute) reaches, following symlinks as the kernel would. */
export function reachedPath(base: string, path: string): ReachedPath {
  const queue = path.split('/');
  let current = isAbsolute(path) ? '/' : realOrSame(base);
  let links = 0;
  let steps = 0;
  let throughLink = false;
  while (queue.length > 0) {
    if ((steps += 1) > MAX_COMPONENTS)
      return { absolute: current, throughLink, problem: 'it has too many components to resolve' };
    const part = queue.shift() as string;
    if (part === '' || part === '.') continue;
    if (part === '..') {
      current = dirname(current);
      continue;
    }
    const next = join(current, part);
    const link = symlinkTarget(next);
    if (link === undefined) {
      current = next;
      continue;
    }
    if ((links += 1) > MAX_SYMLINKS)
      return { absolute: next, throughLink: true, problem: 'it goes through a symlink loop' };
    throughLink = true;
    queue.unshift(...link.split('/'));
    if (isAbsolute(link)) current = '/';
  }
  return { absolute: current, throughLink };
}

/** A path given to a file tool, as it reaches into (or out of) the workspace. */
export interface WorkspaceWrite {
  /** The paths reached, relative to the (real) workspace root: one per reading, without repeats. */
  reached: string[];
  /** Set when a reading leaves the workspace or cannot be resolved: where it goes, or why not. */
  leaves?: { absolute: string; problem?: string };
  /** True when a symlink was followed on the way. */
  throughLink: boolean;
}

/**
 * Where `path`, given relative to the workspace, reaches — read both as the kernel reads it
 * (`..` after a symlink climbs from its target) and as a program that normalises the path
 * first would (`resolve(root, path)`), so that a check holds whichever way the tool opens it.
 */
export function workspaceWrite(workspaceRoot: string, path: string): WorkspaceWrite {
  const root = realOrSame(workspaceRoot);
  const readings = [reachedPath(root, path), reachedPath('/', resolve(root, path))];
  const reached: string[] = [];
  let leaves: WorkspaceWrite['leaves'];
  for (const reading of readings) {
    const inside = reading.problem === undefined ? insideOf(root, reading.absolute) : undefined;
    if (inside === undefined)
      leaves ??= { absolute: reading.absolute, ...(reading.problem === undefined ? {} : { problem: reading.problem }) };
    else if (!reached.includes(inside)) reached.push(inside);
  }
  return { reached, ...(leaves === undefined ? {} : { leaves }), throughLink: readings.some((r) => r.throughLink) };
}

function insideOf(root: string, absolute: string): string | undefined {
  if (absolute === root) return '.';
  if (!absolute.startsWith(root.endsWith(sep) ? root : root + sep)) return undefined;
  return relative(root, absolute);
}

function symlinkTarget(path: string): string | undefined {
  try {
    return lstatSync(path).isSymbolicLink() ? readlinkSync(path) : undefined;
  } catch {
    return undefined;
  }
}

function realOrSame(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return resolve(path);
  }
}
