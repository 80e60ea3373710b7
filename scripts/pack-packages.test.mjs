// Run with `node --test scripts/*.test.mjs`.
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
  it('packs every public package and every package with a command, with what they need, transitively, and nothing else', () => {
    const root = workspace({
      'apps/app': {
        name: '@x/app',
        private: true,
        bin: { app: 'app.js' },
        dependencies: { '@x/internal': 'workspace:*', zod: '^4' },
      },
      'apps/docs': { name: '@x/docs', private: true, dependencies: { '@x/unused': 'workspace:*' } },
      'packages/internal': { name: '@x/internal', private: true, dependencies: { '@x/new': 'workspace:*' } },
      'packages/new': { name: '@x/new', private: true, peerDependencies: { '@x/peer': 'workspace:^' } },
      'packages/peer': { name: '@x/peer', private: true, optionalDependencies: { '@x/optional': 'workspace:*' } },
      'packages/optional': { name: '@x/optional', private: true, devDependencies: { '@x/dev': 'workspace:*' } },
      'packages/dev': { name: '@x/dev', private: true },
      'packages/unused': { name: '@x/unused', private: true },
      'packages/adapter': { name: '@x/adapter', dependencies: { '@x/lib': 'workspace:*' } },
      'packages/lib': { name: '@x/lib' },
    });
    try {
      assert.deepEqual(packagesToPack(workspacePackages(root)), [
        '@x/adapter',
        '@x/app',
        '@x/internal',
        '@x/lib',
        '@x/new',
        '@x/optional',
        '@x/peer',
      ]);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it('packs only the packages named, with what they need, and refuses a name the workspace does not have', () => {
    const root = workspace({
      'apps/app': { name: '@x/app', private: true, bin: { app: 'app.js' }, dependencies: { '@x/lib': 'workspace:*' } },
      'packages/adapter': { name: '@x/adapter', dependencies: { '@x/lib': 'workspace:*' } },
      'packages/lib': { name: '@x/lib' },
      'packages/other': { name: '@x/other' },
    });
    try {
      const packages = workspacePackages(root);
      assert.deepEqual(packagesToPack(packages, ['@x/adapter']), ['@x/adapter', '@x/lib']);
      assert.deepEqual(packagesToPack(packages, ['@x/app', '@x/other']), ['@x/app', '@x/lib', '@x/other']);
      assert.throws(() => packagesToPack(packages, ['@x/typo']), /@x\/typo is not a package of this workspace/);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it('packs, for this repository, every public package: the two commands, the library, the four adapters, the chat platforms, telemetry and receipts', () => {
    const packages = workspacePackages(REPOSITORY);
    const packed = packagesToPack(packages);
    assert.deepEqual(packed, [
      '@interlock/ai-sdk',
      '@interlock/chat',
      '@interlock/chat-feishu',
      '@interlock/chat-slack',
      '@interlock/chat-whatsapp',
      '@interlock/claude-agent-sdk',
      '@interlock/cli',
      '@interlock/core',
      '@interlock/langgraph',
      '@interlock/openai-agents',
      '@interlock/receipts',
      '@interlock/sdk-types',
      '@interlock/telemetry',
      '@interlock/web',
    ]);
    // Closed under dependencies: npm never has to look an @interlock package up elsewhere.
    for (const name of packed) {
      const { manifest } = packages.get(name);
      for (const field of ['dependencies', 'optionalDependencies', 'peerDependencies'])
        for (const dependency of Object.keys(manifest[field] ?? {}))
          if (packages.has(dependency)) assert.ok(packed.includes(dependency), `${name} needs ${dependency}`);
    }
    // An adapter alone comes with what it needs, and nothing of the deployment.
    for (const adapter of ['ai-sdk', 'openai-agents', 'langgraph', 'claude-agent-sdk'])
      assert.deepEqual(
        packagesToPack(packages, [`@interlock/${adapter}`]),
        [`@interlock/${adapter}`, '@interlock/core', '@interlock/receipts', '@interlock/sdk-types'].sort(),
      );
  });
});

describe('packPackages', () => {
  it("replaces the workspace's tarballs of an earlier run, and leaves other files alone", () => {
    const root = workspace({
      // A plain version: `workspace:*` needs an installed workspace to be packed.
      'apps/app': { name: '@x/app', bin: { app: 'app.js' }, dependencies: { '@x/lib': '1.0.0' } },
      'packages/lib': { name: '@x/lib' },
      // A package nobody installs any more.
      'packages/gone': { name: '@x/gone', private: true },
    });
    writeFileSync(path.join(root, 'apps/app/app.js'), '');
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

  it('refuses a package whose built files are missing, before it touches the directory', () => {
    const root = workspace({
      'apps/app': { name: '@x/app', private: true, bin: { app: 'bin/app.js' }, dependencies: { '@x/lib': '1.0.0' } },
      'packages/lib': { name: '@x/lib', files: ['dist'], exports: { '.': { default: './dist/index.js' } } },
    });
    mkdirSync(path.join(root, 'apps/app/bin'));
    writeFileSync(path.join(root, 'apps/app/bin/app.js'), '');
    const destination = path.join(root, 'out');
    mkdirSync(destination);
    writeFileSync(path.join(destination, 'x-lib-0.9.0.tgz'), '');
    try {
      assert.throws(() => packPackages(root, destination), /@x\/lib has no dist to pack: run pnpm build first/);
      assert.deepEqual(readdirSync(destination), ['x-lib-0.9.0.tgz']);
      mkdirSync(path.join(root, 'packages/lib/dist'));
      assert.throws(() => packPackages(root, destination), /@x\/lib has no \.\/dist\/index\.js to pack/);
      writeFileSync(path.join(root, 'packages/lib/dist/index.js'), '');
      assert.deepEqual(
        packPackages(root, destination).map((file) => path.basename(file)),
        ['x-app-1.0.0.tgz', 'x-lib-1.0.0.tgz'],
      );
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
