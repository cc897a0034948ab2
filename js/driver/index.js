// The package's JavaScript side of the control loop: the driver and the log stores, and
// `governor.loop(config)`, which fills the loop's components from the governor's ports.
import { Governor } from "../wasm/agent_governor_full.js";
import { createControlLoop } from "./control-loop.js";

export { createControlLoop } from "./control-loop.js";
export { DEFAULT_LOG_LIMIT_BYTES, LOG_CHANNELS, indexedDbLogStore, memoryLogStore } from "./log-stores.js";
export { governToolCalls, notSent, ranOf, refusalOf, toolCallActionId } from "./tool-calls.js";
export { createOtlpExporter } from "./otlp-exporter.js";

const DEFAULT_AGENT = { workingDir: "", agentId: "governor" };

Object.defineProperty(Governor.prototype, "loop", {
  configurable: true,
  writable: true,
  value: function loop(config) {
    if (config === null || typeof config !== "object" || Array.isArray(config)) return createControlLoop(config);
    let filled;
    try {
      filled = { ...config };
    } catch {
      // Unreadable (a throwing proxy): the loop's own check gives the typed error.
      return createControlLoop(config);
    }
    // `true` asks for the component from this governor, with its ports injected.
    if (filled.closer === true) filled.closer = this.closer(DEFAULT_AGENT);
    if (filled.watcher === true) filled.watcher = this.watcher(DEFAULT_AGENT);
    const reflection = filled.reflection;
    if (reflection && typeof reflection === "object" && reflection.reflector === undefined) {
      filled.reflection = { ...reflection, reflector: this.reflector({ playbook: reflection.playbook ?? "control" }) };
    }
    return createControlLoop(filled);
  },
});
