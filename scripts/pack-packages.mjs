#!/usr/bin/env node
// Packs Interlock's public packages into one directory, as tarballs npm can install anywhere:
// every workspace package that is not private (the library, the four framework adapters, the
// chat platforms, telemetry, receipts), every one with a command (`bin`: the CLI, the web app), and
// every workspace package those depend on, followed through the dependency graph — so a
// package added to the workspace, or one an app starts to depend on, is packed without anyone
// editing a list here. `workspace:*` links become the packages' real versions.
//
// Usage: node scripts/pack-packages.mjs [DIRECTORY] [PACKAGE...]
// DIRECTORY defaults to dist-packages/. Name PACKAGEs (`@interlock/cli @interlock/web`,
// `@interlock/ai-sdk`) to pack only those and what they need: then `npm install
// DIRECTORY/*.tgz` installs just them (an adapter's tarball makes npm install its framework
// as a peer). Build first (pnpm build): the tarballs hold dist/.
//
// Install every tarball a project needs in one `npm install`: the @interlock scope is not
// ours on npmjs.com, and an @interlock dependency whose tarball is left out would be looked
// up there.
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

/**
 * The workspace packages to pack, by name: `selected` (default: every public package and every
 * package with a command) and every workspace package they need at run time, transitively.
 */
export function packagesToPack(packages, selected = publicPackages(packages)) {
  const wanted = new Set();
  const visit = (name) => {
    if (wanted.has(name)) return;
    wanted.add(name);
    const { manifest } = packages.get(name);
    for (const field of ['dependencies', 'optionalDependencies', 'peerDependencies'])
      for (const dependency of Object.keys(manifest[field] ?? {})) if (packages.has(dependency)) visit(dependency);
  };
  for (const name of selected) {
    if (!packages.has(name)) throw new Error(`${name} is not a package of this workspace`);
    visit(name);
  }
  return [...wanted].sort();
}

/** The packages a team installs: every one that is not private, and every one with a command. */
export function publicPackages(packages) {
  return [...packages]
    .filter(([, { manifest }]) => manifest.private !== true || manifest.bin !== undefined)
    .map(([name]) => name);
}

/** The files a manifest's `files`, `exports`, `main`, `types` and `bin` name (patterns left out). */
function exportedFiles(manifest) {
  const files = [];
  const collect = (value) => {
    if (typeof value === 'string') {
      if (!/[*!]/.test(value)) files.push(value);
    } else if (value !== null && typeof value === 'object') for (const inner of Object.values(value)) collect(inner);
  };
  for (const field of ['files', 'exports', 'main', 'types', 'bin']) collect(manifest[field]);
  return files;
}

/** How `pnpm pack` names a package's tarball: `@interlock/chat` → interlock-chat-<version>.tgz. */
const tarballPrefix = (name) => `${name.replace(/^@/, '').replace('/', '-')}-`;
const tarballOf = (manifest) => `${tarballPrefix(manifest.name)}${manifest.version}.tgz`;

/** Packs {@link packagesToPack} of the workspace at `root` into `destination`; returns the tarballs' paths. */
export function packPackages(root, destination, selected) {
  const packages = workspacePackages(root);
  const names = packagesToPack(packages, selected);
  for (const name of names) {
    const { directory, manifest } = packages.get(name);
    const missing = exportedFiles(manifest).find((file) => !existsSync(resolve(directory, file)));
    if (missing !== undefined) throw new Error(`${name} has no ${missing} to pack: run pnpm build first`);
  }
  mkdirSync(destination, { recursive: true });
  // This workspace's tarballs of an earlier run go: one of a package no app needs any more, or
  // of an older version, would be installed by `npm install DIRECTORY/*.tgz` too.
  const ours = [...packages.keys()].map(tarballPrefix);
  const earlier = (file) =>
    file.endsWith('.tgz') && ours.some((prefix) => file.startsWith(prefix) && /^\d/.test(file.slice(prefix.length)));
  for (const file of readdirSync(destination)) if (earlier(file)) rmSync(resolve(destination, file));
  return names.map((name) => {
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
  const [directory, ...selected] = process.argv.slice(2);
  const destination = resolve(directory ?? resolve(root, 'dist-packages'));
  for (const tarball of packPackages(root, destination, selected.length > 0 ? selected : undefined))
    process.stdout.write(`${tarball}\n`);
  // stdout lists the tarballs only (scripts read it); how to install them goes to stderr.
  process.stderr.write(
    `Install them in the team's project together, in one npm install (an adapter with its framework): ` +
      `npm install ${destination}/*.tgz\n`,
  );
}
