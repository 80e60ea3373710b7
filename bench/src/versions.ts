import fs from 'node:fs';
import { requireFromCore } from './scenario.js';

function versionOf(name: string): string | null {
  try {
    const file = requireFromCore.resolve(`${name}/package.json`);
    return (JSON.parse(fs.readFileSync(file, 'utf8')) as { version: string }).version;
  } catch {
    return null;
  }
}

/** Exact versions of the engine and the pieces under it. */
export function versions(): Record<string, string | null> {
  const corePackage = new URL('../package.json', import.meta.resolve('@interlock/core'));
  const core = (JSON.parse(fs.readFileSync(corePackage, 'utf8')) as { version: string }).version;
  return {
    '@interlock/core': core,
    'better-sqlite3': versionOf('better-sqlite3'),
    typeorm: versionOf('typeorm'),
    rxjs: versionOf('rxjs'),
    node: process.version,
  };
}
