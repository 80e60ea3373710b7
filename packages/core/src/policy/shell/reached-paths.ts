import { isAbsolute, join } from 'node:path';
import { reachedPath, type ReachedPath } from '../reached-path.js';
import type { PathEnvironment } from './critical-paths.js';

/**
 * Where a path a command names really leads, from each absolute working directory it may run
 * in (issue 24): only the readings that went through a symlink, since the others are what
 * the string says. A path with an expansion in it is left alone (its value is unknown).
 */
export function reachedThroughLinks(path: string, environment: PathEnvironment): ReachedPath[] {
  if (/[$`]/.test(path)) return [];
  const home = environment.homeDirectory;
  const expanded =
    path === '~' && home !== undefined
      ? home
      : path.startsWith('~/') && home !== undefined
        ? join(home, path.slice(2))
        : path;
  if (expanded.startsWith('~')) return [];
  const bases = isAbsolute(expanded) ? ['/'] : environment.cwds.filter((cwd) => isAbsolute(cwd));
  return bases.map((base) => reachedPath(base, expanded)).filter((reached) => reached.throughLink);
}
