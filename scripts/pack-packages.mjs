#!/usr/bin/env node
// Packs what a deployment installs into one directory, as tarballs npm can install anywhere:
// every workspace package with a command (`bin`: the CLI, the web app) and every workspace
// package those depend on, followed through the dependency graph — so a package an app
// starts to depend on is packed without anyone editing a list here. `workspace:*` links
// become the packages' real versions. Usage: node scripts/pack-packages.mjs [DIRECTORY]
// (default dist-packages/). Build first (pnpm build): the tarballs hold dist/.
//
// Install every tarball printed, together (`npm install DIRECTORY/*.tgz`): the @interlock
// scope is not published on npm, and a dependency left out would be looked up there.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

/** The workspace's packages (pnpm's own reading of pnpm-workspace.yaml), by name, each with its directory and manifest. */
export function workspacePackages(root) {
  const listed = JSON.parse(
    execFileSync('pnpm', ['ls', '--recursive', '--depth', '-1', '--json'], {
      cwd: root,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'inherit'],
    }),
  );
  const packages = new Map();
  for (const { path } of listed) {
    if (resolve(path) === resolve(root)) continue;
    const manifest = JSON.parse(readFileSync(resolve(path, 'package.json'), 'utf8'));
    packages.set(manifest.name, { directory: path, manifest });
  }
  return packages;
}

/** The packages with a command, and every workspace package they need at run time, transitively, by name. */
export function packagesToPack(packages) {
  const wanted = new Set();
  const visit = (name) => {
    if (wanted.has(name)) return;
    wanted.add(name);
    const { manifest } = packages.get(name);
    for (const field of ['dependencies', 'optionalDependencies', 'peerDependencies'])
      for (const dependency of Object.keys(manifest[field] ?? {})) if (packages.has(dependency)) visit(dependency);
  };
  for (const [name, { manifest }] of packages) if (manifest.bin !== undefined) visit(name);
  return [...wanted].sort();
}

/** How `pnpm pack` names a package's tarball: `@interlock/chat` → interlock-chat-<version>.tgz. */
const tarballPrefix = (name) => `${name.replace(/^@/, '').replace('/', '-')}-`;
const tarballOf = (manifest) => `${tarballPrefix(manifest.name)}${manifest.version}.tgz`;

/** Packs {@link packagesToPack} of the workspace at `root` into `destination`; returns the tarballs' paths. */
export function packPackages(root, destination) {
  const packages = workspacePackages(root);
  mkdirSync(destination, { recursive: true });
  // This workspace's tarballs of an earlier run go: one of a package no app needs any more, or
  // of an older version, would be installed by `npm install DIRECTORY/*.tgz` too.
  const ours = [...packages.keys()].map(tarballPrefix);
  const earlier = (file) =>
    file.endsWith('.tgz') && ours.some((prefix) => file.startsWith(prefix) && /^\d/.test(file.slice(prefix.length)));
  for (const file of readdirSync(destination)) if (earlier(file)) rmSync(resolve(destination, file));
  return packagesToPack(packages).map((name) => {
    const { directory, manifest } = packages.get(name);
    execFileSync('pnpm', ['pack', '--pack-destination', destination], {
      cwd: directory,
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    const tarball = resolve(destination, tarballOf(manifest));
    if (!existsSync(tarball)) throw new Error(`pnpm pack of ${name} did not write ${tarball}`);
    return tarball;
  });
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  const root = fileURLToPath(new URL('..', import.meta.url));
  const destination = resolve(process.argv[2] ?? resolve(root, 'dist-packages'));
  for (const tarball of packPackages(root, destination)) process.stdout.write(`${tarball}\n`);
}
