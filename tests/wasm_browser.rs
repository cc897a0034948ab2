//! The exported API under wasm-bindgen-test in headless Chromium.
#![cfg(target_arch = "wasm32")]
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

mod wasm_support;
