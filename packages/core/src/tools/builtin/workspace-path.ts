import { realpath } from 'node:fs/promises';
import { dirname, isAbsolute, relative, resolve, sep } from 'node:path';
import { InterlockError } from '../../errors/interlock-error.js';

/**
 * Resolves a path given by the model inside the workspace root. Absolute paths, `..` that
 * climbs out, and symlinks that lead out are refused.
 */
export async function resolveInWorkspace(workspaceRoot: string, path: string): Promise<string> {
  const refuse = (why: string) =>
    new InterlockError('INVALID_OPTIONS', `path "${path}" is refused: ${why}; use a path relative to the workspace`, {
      details: { path },
    });
  if (path.includes('\0')) throw refuse('it contains a NUL character');
  if (isAbsolute(path)) throw refuse('it is absolute');
  const root = await realpath(workspaceRoot);
  const target = resolve(root, path);
  if (!inside(root, target)) throw refuse('it leaves the workspace');
  // Follow symlinks of the deepest part that exists: it must still be inside.
  let existing = target;
  for (;;) {
    try {
      const real = await realpath(existing);
      if (!inside(root, real)) throw refuse('a symlink leads out of the workspace');
      return existing === target ? real : resolve(real, relative(existing, target));
    } catch (error) {
      if (InterlockError.is(error)) throw error;
      const parent = dirname(existing);
      if (parent === existing) throw refuse('it cannot be resolved');
      existing = parent;
    }
  }
}

function inside(root: string, target: string): boolean {
  return target === root || target.startsWith(root.endsWith(sep) ? root : root + sep);
}
