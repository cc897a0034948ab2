//! The exported API under wasm-bindgen-test in Node.
#![cfg(target_arch = "wasm32")]

mod wasm_support;
