import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { findProjectConfig, loadProjectConfig, resolveFromConfig, type LoadedProjectConfig } from '@interlock/core';
import { UsageError } from './usage-error.js';

/** The project file this run of `interlock` reads (issue 16): `--config FILE`, or `interlock.toml` / `interlock.json` here. */
let current: LoadedProjectConfig | undefined;

/**
 * Takes `--config FILE` (or `--config=FILE`) out of the arguments, wherever it stands, and
 * loads that file — or, without it, the project file of the current directory if there is
 * one. `--no-config` reads none. Returns the arguments left for the command.
 *
 * @throws UsageError for `--config` without a file; INVALID_OPTIONS for a file that is wrong.
 */
export async function takeProjectConfig(argv: readonly string[], directory = process.cwd()): Promise<string[]> {
  const rest: string[] = [];
  let path: string | undefined;
  let none = false;
  for (let index = 0; index < argv.length; index += 1) {
    const argument = argv[index] ?? '';
    if (argument === '--') {
      rest.push(...argv.slice(index));
      break;
    }
    if (argument === '--no-config') none = true;
    else if (argument.startsWith('--config=')) path = argument.slice('--config='.length);
    else if (argument === '--config') {
      path = argv[index + 1];
      if (path === undefined || path.startsWith('-'))
        throw new UsageError('--config needs the project file: --config interlock.toml');
      index += 1;
    } else rest.push(argument);
  }
  if (path === '') throw new UsageError('--config needs the project file: --config interlock.toml');
  const found = none ? undefined : (path ?? (await findProjectConfig(directory)));
  current = found === undefined ? undefined : await loadProjectConfig(found);
  return rest;
}

/** The project file in use, if any. */
export function projectConfig(): LoadedProjectConfig | undefined {
  return current;
}

/** Uses `loaded` (or none) as the project file, for tests and for `interlock config check`. */
export function setProjectConfig(loaded: LoadedProjectConfig | undefined): void {
  current = loaded;
}

/** The workflow files the project file lists (`workflows = [...]`): files, and the .toml/.json files of directories. */
export async function projectWorkflowFiles(): Promise<string[]> {
  const project = current;
  if (project === undefined) return [];
  const files: string[] = [];
  for (const entry of project.config.workflows ?? []) {
    const path = resolveFromConfig(project, entry);
    const found = await stat(path).catch(() => undefined);
    if (found === undefined) throw new UsageError(`${project.path}: workflows lists ${entry}, which does not exist`);
    if (!found.isDirectory()) files.push(path);
    else
      files.push(
        ...(await readdir(path))
          .filter((name) => /\.(toml|json)$/i.test(name))
          .sort()
          .map((name) => join(path, name)),
      );
  }
  return files;
}
