// Edge (workerd) entry point: the bundler hands over the compiled WebAssembly.Module.
import wasmModule from "./wasm/agent_governor_bg.wasm";
import { initSync } from "./wasm/agent_governor.js";

initSync({ module: wasmModule });

export * from "./wasm/agent_governor.js";
