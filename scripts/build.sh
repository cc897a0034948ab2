#!/usr/bin/env bash
# Builds the npm package into dist/: two WebAssembly modules, each real-LTO wasm -> wasm-bindgen -> wasm-opt,
# with entry points per host, then checks their sizes against the budgets (scripts/size-budget.mjs).
#   dist/          the full module (every component): `agent-governor`
#   dist/guard/    the guard module (confirmations, the Executor, MemoryStore): `agent-governor/guard`
# When dist/ was built from the same inputs (scripts/build-inputs.mjs), nothing is rebuilt; `--force` rebuilds.
set -euo pipefail
cd "$(dirname "$0")/.."

log() { printf '[build] %s\n' "$*"; }
crate=agent_governor
out=dist
inputs=$(node scripts/build-inputs.mjs)
if [ "${1:-}" != "--force" ] && [ -f "$out/.build-inputs" ] && [ "$(cat "$out/.build-inputs")" = "$inputs" ]; then
  log "dist/ is up to date with its inputs (npm run build -- --force rebuilds it)"
  exit 0
fi
rm -rf "$out"

# build_module NAME TARGET_DIR OUT_DIR [CARGO FEATURE FLAGS...]
build_module() {
  local name=$1 target_dir=$2 module_dir=$3
  shift 3
  # `cargo build` skips LTO for a crate that is both cdylib and rlib; building the cdylib alone applies it.
  log "$name: compiling the release cdylib (real LTO) $*"
  cargo rustc --quiet --release --target wasm32-unknown-unknown --lib --crate-type cdylib \
    --target-dir "$target_dir" "$@"
  mkdir -p "$module_dir"
  # One web-target output serves every host: each entry point instantiates it its own way.
  log "$name: generating JS bindings and TypeScript declarations"
  wasm-bindgen "$target_dir/wasm32-unknown-unknown/release/$crate.wasm" --out-dir "$module_dir" --target web \
    --remove-name-section --remove-producers-section
  log "$name: optimising with wasm-opt (binaryen from npm)"
  node_modules/.bin/wasm-opt -Oz "$module_dir/${crate}_bg.wasm" -o "$module_dir/${crate}_bg.wasm"
}

# Separate target directories: the two feature sets never invalidate each other's incremental cache.
build_module full target "$out/wasm"
build_module guard target/guard "$out/guard/wasm" --no-default-features

cp src/wasm/entries/*.js src/wasm/entries/*.d.ts "$out/"
cp src/wasm/entries/*.js src/wasm/entries/*.d.ts "$out/guard/"
# Both modules carry the approver helpers (plain modules over their exports: signing stays in WebCrypto).
for module in "$out" "$out/guard"; do
  mkdir -p "$module/approver"
  cp src/wasm/approver/*.js src/wasm/approver/*.d.ts "$module/approver/"
  for entry in "$module"/node.js "$module"/browser.js "$module"/workerd.js "$module"/index.d.ts; do
    printf 'export * from "./approver/index.js";\n' >>"$entry"
  done
done
# The full module also carries the control loop's driver and log stores (plain modules over its exports).
mkdir -p "$out/driver"
cp src/wasm/driver/*.js src/wasm/driver/*.d.ts "$out/driver/"
for entry in "$out"/node.js "$out"/browser.js "$out"/workerd.js "$out"/index.d.ts; do
  printf 'export * from "./driver/index.js";\n' >>"$entry"
done

# The ceilings are enforced here (quietly when within them); `npm test` and bench/ print the figures.
node scripts/size-budget.mjs --quiet "$out/wasm/${crate}_bg.wasm" "$out/guard/wasm/${crate}_bg.wasm"
printf '%s\n' "$inputs" >"$out/.build-inputs"
