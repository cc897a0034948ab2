// Browser entry point: fetches and instantiates the WebAssembly module before the exports are used.
import init from "./wasm/agent_governor.js";

await init({ module_or_path: new URL("./wasm/agent_governor_bg.wasm", import.meta.url) });

export * from "./wasm/agent_governor.js";
