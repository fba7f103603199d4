#!/usr/bin/env bash
# Runs a command under Node.js 22 from the npm registry (the machines have Node 20): the registry's
# node-linux-<arch> package, unpacked once into .node22/ in the checkout (not under a home folder,
# so a test that runs the program as another user can still execute it), with better-sqlite3
# rebuilt for that Node from the package's own headers and the Node 20 binary put back afterwards.
#   scripts/node22.sh npm test
set -euo pipefail
cd "$(dirname "$0")/.."
version=22.23.3
arch=$(uname -m | sed -e s/x86_64/x64/ -e s/aarch64/arm64/)
dir=$PWD/.node22
if [ ! -x "$dir/bin/node" ] || [ "$("$dir/bin/node" --version)" != "v$version" ]; then
  echo "node22: unpacking node-linux-$arch@$version from the registry into .node22/" >&2
  rm -rf "$dir" && mkdir -p "$dir"
  (cd "$dir" && npm pack -q "node-linux-$arch@$version" >/dev/null && tar xzf "node-linux-$arch-$version.tgz" --strip-components=1 && rm "node-linux-$arch-$version.tgz")
fi
addon=node_modules/better-sqlite3/build/Release/better_sqlite3.node
saved=""
if [ -f "$addon" ]; then
  saved=$(mktemp)
  cp "$addon" "$saved"
  echo "node22: rebuilding better-sqlite3 for Node $version (the Node 20 build is put back after)" >&2
  PATH="$dir/bin:$PATH" npm rebuild better-sqlite3 --nodedir="$dir" >/dev/null
fi
status=0
PATH="$dir/bin:$PATH" "$@" || status=$?
if [ -n "$saved" ]; then cp "$saved" "$addon" && rm -f "$saved"; fi
exit "$status"
