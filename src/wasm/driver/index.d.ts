// Declarations of the driver modules; the types they use are generated into the module's declarations.
import type { ControlLoop, ControlLoopConfig, GovernorLoopConfig, LogChannel, LogStore } from "../wasm/agent_governor_full.js";

/** A governed agent over the given ports (see `Governor.loop`). */
export declare function createControlLoop(config: ControlLoopConfig): ControlLoop;
/** Logs in memory, trimmed by whole lines to `limitBytes` (10 MB by default). */
export declare function memoryLogStore(options?: { limitBytes?: number }): LogStore & { read(channel: LogChannel): string };
/** The host's `IDBFactory` where the DOM lib is loaded; any object elsewhere (the call then needs a real one). */
type HostIndexedDb = typeof globalThis extends { IDBFactory: { prototype: infer Factory } } ? Factory : object;

/** Logs in IndexedDB (browsers, windows and workers), trimmed by whole lines to `limitBytes`. */
export declare function indexedDbLogStore(options?: { limitBytes?: number; name?: string; indexedDB?: HostIndexedDb }): Promise<LogStore & { close(): void }>;
export declare const DEFAULT_LOG_LIMIT_BYTES: number;
export declare const LOG_CHANNELS: readonly LogChannel[];

declare module "../wasm/agent_governor_full.js" {
  interface Governor {
    /** The control loop (seed 002) with this governor's components. */
    loop(config: GovernorLoopConfig): ControlLoop;
  }
}
