#!/usr/bin/env bash
# Sizes of the shipped modules (raw, gzip -9, brotli -q 11) and, per module, what each crate costs in it:
# the module is rebuilt exactly as scripts/build.sh builds it but with function names kept, and twiggy's
# per-function sizes are summed by crate. Figures, not assertions: `bash bench/size.sh` after `npm run build`.
# Needs twiggy (`cargo install twiggy`, installed here when missing).
set -euo pipefail
cd "$(dirname "$0")/.."
crate=agent_governor
# shellcheck source=scripts/release-wasm.sh
source scripts/release-wasm.sh
command -v twiggy >/dev/null || cargo install --quiet twiggy

compressed() { # FILE -> "raw gzip brotli"
  node -e '
    const { readFileSync } = require("node:fs");
    const { gzipSync, brotliCompressSync, constants } = require("node:zlib");
    const bytes = readFileSync(process.argv[1]);
    const brotli = brotliCompressSync(bytes, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } });
    console.log(bytes.length, gzipSync(bytes, { level: 9 }).length, brotli.length);' "$1"
}

printf '%-8s %10s %10s %10s\n' module raw gzip brotli
for module in full guard; do
  path=dist/wasm/${crate}_full_bg.wasm
  [[ $module == guard ]] && path=dist/guard/wasm/${crate}_guard_bg.wasm
  [[ -f $path ]] || { echo "missing $path: run npm run build first" >&2; exit 1; }
  read -r raw gzip brotli < <(compressed "$path")
  printf '%-8s %10s %10s %10s\n' "$module" "$raw" "$gzip" "$brotli"
done

ledger() { # NAME TARGET_DIR [FEATURE FLAGS...]
  local name=$1 target_dir=$2
  shift 2
  local work
  work=$(mktemp -d)
  compile_release_wasm "$target_dir" "$@"
  wasm-bindgen "$target_dir/wasm32-unknown-unknown/release/$crate.wasm" --out-dir "$work" --target web
  node_modules/.bin/wasm-opt -Oz --debuginfo "$work/${crate}_bg.wasm" -o "$work/named.wasm"
  printf '\n%s module, bytes per crate (after wasm-opt; data and glue counted apart)\n' "$name"
  twiggy top -n 1000000 "$work/named.wasm" | python3 "$(dirname "$0")/size_ledger.py"
  rm -rf "$work"
}
ledger full target/release-wasm/full
ledger guard target/release-wasm/guard --no-default-features
