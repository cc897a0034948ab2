#!/usr/bin/env bash
# Builds the npm package into dist/: two WebAssembly modules, each real-LTO wasm -> wasm-bindgen -> wasm-opt,
# with entry points per host, then checks their sizes against the budgets (scripts/size-budget.mjs).
#   dist/          the full module (every component): `agent-governor`, `agent-governor/init`
#   dist/guard/    the guard module (confirmations, the Executor, MemoryStore): `agent-governor/guard`, `…/guard/init`
#   dist/approver/ the approver helpers, no wasm: `agent-governor/approver`
# Two stages, each skipped when its inputs are unchanged (scripts/build-inputs.mjs): the modules (compiled into
# target/package-wasm/, kept there) and the package (dist/, assembled from them and js/ in seconds). A change to
# the JavaScript alone never recompiles a module. `--force` redoes both.
set -euo pipefail
cd "$(dirname "$0")/.."

log() { printf '[build] %s\n' "$*"; }
# shellcheck source=scripts/release-wasm.sh
source scripts/release-wasm.sh
crate=agent_governor
out=dist
modules=target/package-wasm
force=false
if [ "${1:-}" = "--force" ]; then force=true; fi
package_inputs=$(node scripts/build-inputs.mjs package)
if [ "$force" = false ] && [ -f "$out/.build-inputs" ] && [ "$(cat "$out/.build-inputs")" = "$package_inputs" ]; then
  log "dist/ is up to date with its inputs (npm run build -- --force rebuilds it)"
  exit 0
fi

# build_module NAME TARGET_DIR MODULE_DIR [CARGO FEATURE FLAGS...]
build_module() {
  local name=$1 target_dir=$2 module_dir=$3
  shift 3
  log "$name: compiling the release cdylib (real LTO, $RELEASE_TOOLCHAIN with its std rebuilt) $*"
  compile_release_wasm "$target_dir" "$@"
  mkdir -p "$module_dir/wasm"
  # One web-target output serves every host: each entry point instantiates it its own way. Distinct names, so
  # a bundle with both modules never has two files of one name.
  log "$name: generating JS bindings and TypeScript declarations"
  wasm-bindgen "$target_dir/wasm32-unknown-unknown/release/$crate.wasm" --out-dir "$module_dir/wasm" \
    --out-name "${crate}_$name" --target web --remove-name-section --remove-producers-section
  log "$name: optimising with wasm-opt (binaryen from npm)"
  node_modules/.bin/wasm-opt -Oz "$module_dir/wasm/${crate}_${name}_bg.wasm" -o "$module_dir/wasm/${crate}_${name}_bg.wasm"
}

wasm_inputs=$(node scripts/build-inputs.mjs wasm)
if [ "$force" = false ] && [ -f "$modules/.build-inputs" ] && [ "$(cat "$modules/.build-inputs")" = "$wasm_inputs" ]; then
  log "the two modules are up to date with their inputs ($modules/): only the package is assembled again"
else
  rm -rf "$modules"
  # Separate target directories: the two feature sets never invalidate each other's incremental cache.
  build_module full target/release-wasm/full "$modules/full"
  build_module guard target/release-wasm/guard "$modules/guard" --no-default-features
  printf '%s\n' "$wasm_inputs" >"$modules/.build-inputs"
fi

rm -rf "$out"
mkdir -p "$out/guard"
cp -r "$modules/full/wasm" "$out/wasm"
cp -r "$modules/guard/wasm" "$out/guard/wasm"

# Shared by both modules, once: the approver helpers (plain JavaScript over WebCrypto, no wasm:
# `agent-governor/approver`), and the full module's control-loop driver and log stores.
mkdir -p "$out/approver" "$out/driver"
cp js/approver/*.js js/approver/*.d.ts "$out/approver/"
cp js/driver/*.js js/driver/*.d.ts "$out/driver/"
cp js/load/load.js js/load/load.d.ts "$out/"
# The framework adapters (`agent-governor/ai`, ...), over the full module's entry for the host.
cp -r js/adapters/. "$out/"
cp js/load/load.js js/load/load.d.ts "$out/guard/"

log "writing the entry points of each host (scripts/package-entries.mjs)"
node scripts/package-entries.mjs "$out" full ./approver/index.js ./driver/index.js
node scripts/package-entries.mjs "$out/guard" guard ../approver/index.js
node scripts/package-entries.mjs --require-declarations "$out"

# The ceilings are enforced here (quietly when within them); `npm test` and bench/ print the figures.
node scripts/size-budget.mjs --quiet "$out/wasm/${crate}_full_bg.wasm" "$out/guard/wasm/${crate}_guard_bg.wasm"
printf '%s\n' "$package_inputs" >"$out/.build-inputs"
