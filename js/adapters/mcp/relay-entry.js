// `agent-governor/mcp/relay`: what both MCP gateways (the library's and the edge guard's) share, with no
// WebAssembly: the relay of everything but a governed call, and the upstream's live tool list.
export { RELAY_TIMEOUT_MS, forwardRequest, protocolError, relayFromClient, relayFromUpstream, relayLoggingLevel, relayOptions, relayed, relayedCapabilities, requestsInFlight, upstreamMeta } from "./relay.js";
export { MAX_TOOLS, MAX_TOOL_PAGES, RELIST_AFTER_MS, liveToolList } from "./tool-list.js";
