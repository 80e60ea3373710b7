#!/usr/bin/env node
// Packs the packages a deployment installs (sdk-types, core, the CLI, the web app) into one
// directory, as tarballs npm can install anywhere: `workspace:*` links become the packages'
// real versions. Usage: node scripts/pack-packages.mjs [DIRECTORY] (default dist-packages/).
// Build first (pnpm build): the tarballs hold dist/.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const destination = resolve(process.argv[2] ?? resolve(root, 'dist-packages'));
mkdirSync(destination, { recursive: true });
for (const directory of ['packages/sdk-types', 'packages/core', 'apps/cli', 'apps/web']) {
  execFileSync('pnpm', ['pack', '--pack-destination', destination], {
    cwd: resolve(root, directory),
    stdio: ['ignore', 'ignore', 'inherit'],
  });
}
for (const file of readdirSync(destination)
  .filter((name) => name.endsWith('.tgz'))
  .sort())
  process.stdout.write(`${resolve(destination, file)}\n`);
