# Sourced by scripts/build.sh and bench/size.sh: how a shipped WebAssembly module is compiled.
#
# The release modules are compiled by one pinned nightly toolchain, with the standard library rebuilt for the
# module (`-Zbuild-std`) at the size-optimised settings and the `immediate-abort` panic strategy: a panic was
# already an abort in the wasm (`unreachable`, a typed error never is one), and with the standard library's
# panic machinery gone, so are its messages and formatting code (about 18 KB gzip of the guard, 60 KB of the
# full module; see bench/RESULTS.md). Tests, clippy and native builds use the stable toolchain.
# scripts/setup.sh installs this toolchain (minimal profile, with rust-src); the pin changes only here.
RELEASE_TOOLCHAIN=nightly-2026-05-20

# compile_release_wasm TARGET_DIR [CARGO FEATURE FLAGS...]: the real-LTO cdylib at
# TARGET_DIR/wasm32-unknown-unknown/release/agent_governor.wasm. `cargo build` skips LTO for a crate that is
# both cdylib and rlib; building the cdylib alone applies it.
compile_release_wasm() {
  local target_dir=$1
  shift
  RUSTFLAGS="-Zunstable-options -Cpanic=immediate-abort" \
    cargo "+$RELEASE_TOOLCHAIN" rustc --quiet --release --target wasm32-unknown-unknown --lib --crate-type cdylib \
    -Zbuild-std=std,panic_abort -Zbuild-std-features=optimize_for_size --target-dir "$target_dir" "$@"
}
