import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { UsageError } from './usage-error.js';

/**
 * Reads `--workspace`: the directory the file and shell tools are confined to, resolved
 * to an absolute path. Default: the current directory.
 *
 * @throws UsageError when the path does not exist or is not a directory.
 */
export async function resolveWorkspace(path: string | undefined, command: string): Promise<string> {
  const directory = resolve(path ?? process.cwd());
  const found = await stat(directory).catch(() => undefined);
  if (found === undefined) throw new UsageError(`--workspace ${path ?? directory}: no such directory`, command);
  if (!found.isDirectory()) throw new UsageError(`--workspace ${path ?? directory} is not a directory`, command);
  return directory;
}
