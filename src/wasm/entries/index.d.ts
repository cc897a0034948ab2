// Types of every entry point: generated from the Rust types by wasm-bindgen and tsify.
// The classes declare `[Symbol.dispose]` (explicit resource management); this makes the declarations
// type-check under a plain `target: "es2022"` tsconfig, with no extra `lib` in the consumer's config.
/// <reference lib="esnext.disposable" />
export * from "./wasm/agent_governor.js";
