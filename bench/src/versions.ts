import { execSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { requireFromCore } from './scenario.js';

/** The version in the package.json above a package's entry point (some packages do not export their package.json). */
function versionOf(name: string): string | null {
  try {
    for (let dir = path.dirname(requireFromCore.resolve(name)); dir !== path.dirname(dir); dir = path.dirname(dir)) {
      const file = path.join(dir, 'package.json');
      if (!fs.existsSync(file)) continue;
      const manifest = JSON.parse(fs.readFileSync(file, 'utf8')) as { name?: string; version: string };
      if (manifest.name === name) return manifest.version;
    }
    return null;
  } catch {
    return null;
  }
}

/** The commit the engine was built from, and whether packages/core had uncommitted changes. */
function coreRevision(): string | null {
  try {
    const run = (command: string) =>
      execSync(command, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    const head = run('git rev-parse --short HEAD');
    const dirty = run('git status --porcelain -- ../packages/core') !== '';
    return `${head}${dirty ? ' + uncommitted changes in packages/core' : ''}`;
  } catch {
    return null;
  }
}

let revision: string | null | undefined;

/** Exact versions of the engine and the pieces under it. */
export function versions(): Record<string, string | null> {
  const corePackage = new URL('../package.json', import.meta.resolve('@interlock/core'));
  const core = (JSON.parse(fs.readFileSync(corePackage, 'utf8')) as { version: string }).version;
  return {
    '@interlock/core': core,
    '@interlock/core revision': (revision ??= coreRevision()),
    'better-sqlite3': versionOf('better-sqlite3'),
    typeorm: versionOf('typeorm'),
    rxjs: versionOf('rxjs'),
    node: process.version,
  };
}
