// Types of every entry point: generated from the Rust types by wasm-bindgen and tsify.
export * from "./wasm/agent_governor.js";
