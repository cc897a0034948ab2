// Node entry point: loads the WebAssembly module synchronously from the package's files.
import { readFileSync } from "node:fs";
import { initSync } from "./wasm/agent_governor.js";

initSync({ module: readFileSync(new URL("./wasm/agent_governor_bg.wasm", import.meta.url)) });

export * from "./wasm/agent_governor.js";
