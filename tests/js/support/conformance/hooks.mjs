// Module hooks for the MCP conformance suite's CLI on Node 20: its `fs` import gets `globSync` (fs-with-glob.mjs).
export async function resolve(specifier, context, next) {
  if ((specifier === "fs" || specifier === "node:fs") && context.parentURL?.includes("/@modelcontextprotocol/conformance/")) {
    return { url: new URL("./fs-with-glob.mjs", import.meta.url).href, shortCircuit: true };
  }
  return next(specifier, context);
}
