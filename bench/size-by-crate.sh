#!/usr/bin/env bash
# What each crate costs in the release wasm (before wasm-bindgen and wasm-opt, whose sizes the build prints).
# Needs twiggy: `cargo install twiggy` (installed here when missing). Figures, not assertions.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v twiggy >/dev/null || cargo install twiggy
cargo rustc --quiet --release --target wasm32-unknown-unknown --lib --crate-type cdylib
twiggy top -n 100000 target/wasm32-unknown-unknown/release/agent_governor.wasm | python3 -c '
import re, sys, collections
crates = ["upon", "minijinja", "schemars", "gloo_net", "gloo_utils", "web_sys", "indexmap", "serde_path_to_error", "serde_wasm_bindgen", "serde_json", "serde_core", "serde", "time", "sha2", "hmac", "hex", "uuid",
          "getrandom", "wasm_bindgen_futures", "wasm_bindgen", "js_sys", "dlmalloc", "agent_governor", "alloc", "core", "std"]
totals = collections.Counter()
for line in sys.stdin:
    match = re.match(r"\s*(\d+)\s*┊\s*[\d.]+%\s*┊\s*(.*)", line)
    if not match:
        continue
    size, item = int(match.group(1)), match.group(2)
    if item.startswith(("custom section", "\"function names\"", "Σ", "...")):
        continue  # names, debug info and bindgen metadata: removed before shipping
    owner = next((c for c in crates if re.search(r"(^|[<\s&(])" + c + r"(\[[0-9a-f]+\])?::", item)), "other (data, glue)")
    totals[owner] += size
print("crate".ljust(24) + "bytes".rjust(9))
for crate, size in totals.most_common():
    print(f"{crate:24}{size:9}")
print("note: serde derive code for the crate'"'"'s own types counts under agent_governor")
'
