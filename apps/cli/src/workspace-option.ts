import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { resolveFromConfig } from '@interlock/core';
import { projectConfig } from './project-config-option.js';
import { UsageError } from './usage-error.js';

/**
 * Reads `--workspace`: the directory the file and shell tools are confined to, resolved
 * to an absolute path. Default: the project file's `tools.workspace`, else the current directory.
 *
 * @throws UsageError when the path does not exist or is not a directory.
 */
export async function resolveWorkspace(path: string | undefined, command: string): Promise<string> {
  const project = projectConfig();
  const fromProject =
    project?.config.tools?.workspace === undefined
      ? undefined
      : resolveFromConfig(project, project.config.tools.workspace);
  const directory = resolve(path ?? fromProject ?? process.cwd());
  const found = await stat(directory).catch(() => undefined);
  if (found === undefined) throw new UsageError(`--workspace ${path ?? directory}: no such directory`, command);
  if (!found.isDirectory()) throw new UsageError(`--workspace ${path ?? directory} is not a directory`, command);
  return directory;
}
