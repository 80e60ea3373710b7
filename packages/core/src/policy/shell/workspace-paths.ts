import { realpathSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import type { PathState } from './analysis-context.js';
import { reachedThroughLinks } from './reached-paths.js';

/**
 * Whether a path a command writes stays inside the workspace (issue 37): judged like a file
 * tool's path. It is resolved against every working directory the command may be in (its
 * start, then each `cd`), `~` and `$HOME` are the user's home, and a symlink along it is
 * followed. Without a known workspace, every absolute or home path is outside it.
 */

/** Paths a write may name without touching a file of anybody's. */
const HARMLESS = /^\/dev\/(null|zero|stdout|stderr|tty|fd\/[0-9]+)$/;
const HOME_PREFIXES = ['$HOME', '${HOME}'];

/** True for `/dev/null`, `/dev/stdout`, `/dev/fd/2` and the like. */
export function isHarmlessTarget(path: string): boolean {
  return HARMLESS.test(path);
}

/**
 * `~/x`, `$HOME/x` and `${HOME}/x` with the home directory put in; a path that does not
 * start at home unchanged; undefined for a home that is not known (`~ada`, or no home given).
 */
export function expandHome(path: string, homeDirectory: string | undefined): string | undefined {
  const prefix = ['~', ...HOME_PREFIXES].find((candidate) => path === candidate || path.startsWith(`${candidate}/`));
  if (prefix === undefined) return path.startsWith('~') ? undefined : path;
  if (homeDirectory === undefined) return undefined;
  return join(homeDirectory, path.slice(prefix.length));
}

/** Where the workspace is, as given and with its symlinks resolved. */
function workspaceRoots(paths: PathState): string[] {
  const root = paths.workspaceRoot ?? paths.cwds[0];
  if (root === undefined || !isAbsolute(root)) return [];
  const given = resolve(root);
  let real = given;
  try {
    real = realpathSync(given);
  } catch {
    // A workspace that does not exist yet is compared as given.
  }
  return real === given ? [given] : [given, real];
}

function inside(roots: readonly string[], absolute: string): boolean {
  return roots.some((root) => absolute === root || absolute.startsWith(root === '/' ? '/' : `${root}/`));
}

/**
 * Where a write to `path` lands outside the workspace (the first such reading), or
 * undefined when every reading stays inside. `path` is the exact value of a word.
 */
export function outsideWorkspace(path: string, paths: PathState): string | undefined {
  if (isHarmlessTarget(path)) return undefined;
  const roots = workspaceRoots(paths);
  const expanded = expandHome(path, paths.homeDirectory);
  if (expanded === undefined) return path;
  const readings: string[] = [];
  if (isAbsolute(expanded)) readings.push(resolve(expanded));
  else {
    for (const cwd of paths.cwds) {
      const base = expandHome(cwd, paths.homeDirectory);
      // A directory only known when it runs (`cd "$DIR"`): the path may be anywhere.
      if (base === undefined || !isAbsolute(base) || /[$`]/.test(base)) return `${cwd}/${path}`;
      readings.push(resolve(base, expanded));
    }
  }
  readings.push(...reachedThroughLinks(path, paths).map((reached) => reached.absolute));
  if (roots.length === 0) return isAbsolute(expanded) ? path : undefined;
  return readings.find((reading) => !inside(roots, reading));
}
