import { fileURLToPath } from 'node:url';

/**
 * A file of the CLI's package by its path from the package's folder (`apps/cli/`). This module
 * sits at the top of `src/`, as the built bin (`dist/main.js`, one bundled file) sits at the top
 * of `dist/`: the package's folder is one level up from either.
 */
export function packageFile(path: string): string {
  return fileURLToPath(new URL(`../${path}`, import.meta.url));
}
