import { realpath } from 'node:fs/promises';
import { isAbsolute, join } from 'node:path';
import { InterlockError } from '../../errors/interlock-error.js';
import { protectedWrite } from '../../policy/protected-paths.js';
import { workspaceWrite } from '../../policy/reached-path.js';

/** What the file tool that resolves a path will do with it. */
export interface PathUse {
  /** It writes the file: a protected place reached through a symlink is refused unless a person approved the call. */
  writes?: boolean;
  /** A person approved this call (they were shown where the path reaches). */
  approvedByPerson?: boolean;
}

/**
 * Resolves a path given by the model inside the workspace root, as the write or read will
 * really reach it (issue 24): absolute paths, `..` that climbs out, and symlinks anywhere
 * along the path that lead out (the last one too, and `..` after one) are refused. A write
 * that reaches a protected place (`.git`, credentials, settings…) through a symlink the
 * path does not show is refused unless a person approved it: the link may have appeared
 * after the call was decided.
 *
 * @returns the absolute path to open.
 * @throws InterlockError INVALID_OPTIONS with the reason.
 */
export async function resolveInWorkspace(workspaceRoot: string, path: string, use: PathUse = {}): Promise<string> {
  const refuse = (why: string) =>
    new InterlockError('INVALID_OPTIONS', `path "${path}" is refused: ${why}; use a path relative to the workspace`, {
      details: { path },
    });
  if (path.includes('\0')) throw refuse('it contains a NUL character');
  if (isAbsolute(path)) throw refuse('it is absolute');
  const root = await realpath(workspaceRoot);
  const write = workspaceWrite(root, path);
  if (write.leaves !== undefined)
    throw refuse(
      write.leaves.problem ?? (write.throughLink ? 'a symlink leads out of the workspace' : 'it leaves the workspace'),
    );
  const [reached = '.'] = write.reached;
  if (use.writes === true && use.approvedByPerson !== true && protectedWrite(path) === undefined) {
    const hidden = write.reached.map((target) => protectedWrite(target)).find((found) => found !== undefined);
    if (hidden !== undefined)
      throw new InterlockError(
        'INVALID_OPTIONS',
        `path "${path}" is refused: it reaches ${hidden.reason}, through a symlink; write it by its own path so a person decides`,
        { details: { path } },
      );
  }
  return join(root, reached);
}
