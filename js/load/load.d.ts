// Types of how the explicit-loading entry (`agent-governor/init`) is given the WebAssembly module.

type HostGlobal<Name extends string> = typeof globalThis extends { [K in Name]: { prototype: infer Instance } } ? Instance : never;

/**
 * Where the module comes from: a URL (or its text), a `Request` or `Response` (e.g. from a service worker's
 * cache), the bytes, a compiled `WebAssembly.Module`, or a promise of one. Host types (`Response`,
 * `WebAssembly.Module`, …) apply where the project's types declare them.
 */
export type WasmSource =
  | string
  | HostGlobal<"URL">
  | ArrayBuffer
  | ArrayBufferView
  | HostGlobal<"Request">
  | HostGlobal<"Response">
  | WasmModule
  | Promise<string | HostGlobal<"URL"> | ArrayBuffer | ArrayBufferView | HostGlobal<"Response"> | WasmModule>;

type WasmModule = typeof globalThis extends { WebAssembly: { Module: { prototype: infer Module } } } ? Module : never;

export type InitOptions = {
  /** Default: the .wasm file beside the entry (in Node, read from the package's files). */
  module_or_path?: WasmSource;
};
