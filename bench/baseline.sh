#!/usr/bin/env bash
# Builds the package as it was at a git revision, for before/after comparisons measured in one interleaved
# run (bench/compare.mjs): the revision's own scripts/build.sh in a detached worktree, with this checkout's
# node_modules. Prints the path of the built dist/. Built once per revision (target/baseline/<rev>/).
# Usage: bash bench/baseline.sh [REV]    (default: the revision in bench/baseline-rev)
set -euo pipefail
cd "$(dirname "$0")/.."
rev=$(git rev-parse --verify "${1:-$(cat bench/baseline-rev)}^{commit}")
root=$PWD/target/baseline/$rev
if [[ ! -f $root/dist/.build-inputs ]]; then
  rm -rf "$root"
  git worktree prune
  git worktree add --detach --force "$root" "$rev" >&2
  ln -s "$PWD/node_modules" "$root/node_modules"
  (cd "$root" && bash scripts/build.sh >&2)
fi
echo "$root/dist"
