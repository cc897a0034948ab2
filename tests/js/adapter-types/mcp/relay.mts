// What both MCP gateways share, agent-governor/mcp/relay, type-checked against the real SDK declarations.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { liveToolList, relayFromClient, relayFromUpstream, relayedCapabilities, requestsInFlight, upstreamMeta } from "agent-governor/mcp/relay";

declare const upstream: Client;
const server = new Server({ name: "g", version: "1" }, { capabilities: relayedCapabilities(upstream, { shared: true }) });
const inFlight = requestsInFlight();
relayFromClient(server, upstream, inFlight);
relayFromUpstream(upstream, inFlight, () => [server], { onlyWhenAlone: true, onNotification: (notification) => void notification.method });
const tools = liveToolList(async () => ({ tools: [{ name: "t" }] }));
const known: boolean = await tools.has("t");
const meta: Record<string, unknown> = upstreamMeta({ a: 1 });
// @ts-expect-error `onlyWhenAlone` is a boolean
relayFromUpstream(upstream, inFlight, () => [server], { onlyWhenAlone: "yes" });
void [known, meta];
