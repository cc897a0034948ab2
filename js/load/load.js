// How an entry loads the WebAssembly module: the bytes inlined in the default entry, or `init()`'s source.

/** The bytes of base64 `text` (atob: every browser, worker, Node, Bun and Deno has it). */
export function decodeBase64(text) {
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let index = 0; index < binary.length; index++) bytes[index] = binary.charCodeAt(index);
  return bytes;
}

function typedError(code, path, message, cause) {
  const error = new Error(message, cause === undefined ? undefined : { cause });
  error.name = "AgentGovernorError";
  error.code = code;
  error.path = path;
  return error;
}

function isSource(value) {
  if (typeof value === "string" || value instanceof URL || value instanceof ArrayBuffer || ArrayBuffer.isView(value)) return true;
  if (value instanceof WebAssembly.Module) return true;
  if (typeof Response === "function" && value instanceof Response) return true;
  if (typeof Request === "function" && value instanceof Request) return true;
  return typeof value?.then === "function";
}

function describe(source) {
  if (typeof source === "string" || source instanceof URL) return String(source);
  if (typeof Request === "function" && source instanceof Request) return source.url;
  if (typeof Response === "function" && source instanceof Response) return source.url || "the given Response";
  return "the given module";
}

/** A plain options object, not a source given positionally (a URL, a Response, bytes, a Module, a promise). */
function isOptionsObject(value) {
  if (value === null || typeof value !== "object") return false;
  const prototype = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

let loading;

/**
 * Loads the module once with wasm-bindgen's `load`: from `options.module_or_path` (turned into what `load`
 * takes by `adapt`), or else from `defaultSource()`. A failed load can be tried again.
 */
export function initModule(load, options, defaultSource, adapt = (source) => source) {
  if (options !== undefined && !isOptionsObject(options)) {
    return Promise.reject(typedError("invalid_input", "options", "init takes { module_or_path }: the source goes in module_or_path"));
  }
  const unknown = Object.keys(options ?? {}).filter((key) => key !== "module_or_path");
  if (unknown.length > 0) {
    return Promise.reject(typedError("invalid_input", `options.${unknown[0]}`, `unknown option ${unknown[0]}`));
  }
  const given = options?.module_or_path;
  if (given !== undefined && !isSource(given)) {
    return Promise.reject(
      typedError(
        "invalid_input",
        "options.module_or_path",
        "module_or_path must be a URL, a string, a Request, a Response, bytes (ArrayBuffer or a typed array), a WebAssembly.Module, or a promise of one",
      ),
    );
  }
  loading ??= (async () => {
    let source = given;
    try {
      source = given === undefined ? await defaultSource() : await adapt(given);
      await load({ module_or_path: source });
    } catch (error) {
      throw typedError(
        "wasm_unavailable",
        "options.module_or_path",
        `the WebAssembly module could not be loaded from ${describe(source ?? "its default location")}: ${error?.message ?? String(error)}`,
        error,
      );
    }
  })();
  loading.catch(() => {
    loading = undefined;
  });
  return loading;
}

/** The error of any export used before `init()` resolved. */
export function notLoaded() {
  return typedError("not_initialized", "", "the WebAssembly module is not loaded yet: await init() from this entry first");
}
