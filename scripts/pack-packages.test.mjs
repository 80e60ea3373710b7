// Run with `node --test scripts/`.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { packagesToPack, packPackages, workspacePackages } from './pack-packages.mjs';

const REPOSITORY = fileURLToPath(new URL('..', import.meta.url));

/** A workspace of `manifests` (directory → package.json) in a temporary directory. */
function workspace(manifests) {
  const root = mkdtempSync(path.join(tmpdir(), 'interlock-pack-'));
  writeFileSync(path.join(root, 'pnpm-workspace.yaml'), 'packages:\n  - packages/*\n  - apps/*\n');
  writeFileSync(path.join(root, 'package.json'), JSON.stringify({ name: 'root', private: true }));
  for (const [directory, manifest] of Object.entries(manifests)) {
    mkdirSync(path.join(root, directory), { recursive: true });
    writeFileSync(path.join(root, directory, 'package.json'), JSON.stringify({ version: '1.0.0', ...manifest }));
  }
  return root;
}

describe('packagesToPack', () => {
  it('packs the packages with a command and what they need, transitively, and nothing else', () => {
    const root = workspace({
      'apps/app': { name: '@x/app', bin: { app: 'app.js' }, dependencies: { '@x/lib': 'workspace:*', zod: '^4' } },
      'apps/docs': { name: '@x/docs', private: true, dependencies: { '@x/unused': 'workspace:*' } },
      'packages/lib': { name: '@x/lib', dependencies: { '@x/new': 'workspace:*' } },
      'packages/new': { name: '@x/new', peerDependencies: { '@x/peer': 'workspace:^' } },
      'packages/peer': { name: '@x/peer', optionalDependencies: { '@x/optional': 'workspace:*' } },
      'packages/optional': { name: '@x/optional', devDependencies: { '@x/dev': 'workspace:*' } },
      'packages/dev': { name: '@x/dev' },
      'packages/unused': { name: '@x/unused' },
    });
    try {
      assert.deepEqual(packagesToPack(workspacePackages(root)), [
        '@x/app',
        '@x/lib',
        '@x/new',
        '@x/optional',
        '@x/peer',
      ]);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it("packs, for this repository, the two commands and every workspace package they need (the web app's chat packages too)", () => {
    const packages = workspacePackages(REPOSITORY);
    const packed = packagesToPack(packages);
    for (const command of [
      '@interlock/cli',
      '@interlock/web',
      '@interlock/core',
      '@interlock/sdk-types',
      '@interlock/chat',
    ])
      assert.ok(packed.includes(command), `${command} is packed`);
    // Closed under dependencies: npm never has to look an @interlock package up elsewhere.
    for (const name of packed) {
      const { manifest } = packages.get(name);
      for (const field of ['dependencies', 'optionalDependencies', 'peerDependencies'])
        for (const dependency of Object.keys(manifest[field] ?? {}))
          if (packages.has(dependency)) assert.ok(packed.includes(dependency), `${name} needs ${dependency}`);
    }
  });
});

describe('packPackages', () => {
  it("replaces the workspace's tarballs of an earlier run, and leaves other files alone", () => {
    const root = workspace({
      // A plain version: `workspace:*` needs an installed workspace to be packed.
      'apps/app': { name: '@x/app', bin: { app: 'app.js' }, dependencies: { '@x/lib': '1.0.0' } },
      'packages/lib': { name: '@x/lib' },
      'packages/gone': { name: '@x/gone' },
    });
    const destination = path.join(root, 'out');
    mkdirSync(destination);
    for (const file of ['x-app-0.9.0.tgz', 'x-gone-1.0.0.tgz', 'x-application-1.0.0.tgz', 'notes.txt'])
      writeFileSync(path.join(destination, file), '');
    try {
      assert.deepEqual(
        packPackages(root, destination).map((file) => path.basename(file)),
        ['x-app-1.0.0.tgz', 'x-lib-1.0.0.tgz'],
      );
      assert.deepEqual(readdirSync(destination).sort(), [
        'notes.txt',
        'x-app-1.0.0.tgz',
        'x-application-1.0.0.tgz',
        'x-lib-1.0.0.tgz',
      ]);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
