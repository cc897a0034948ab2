// Serving the MCP gateway with agent-governor/mcp/http, a session to the upstream per connection, type-checked
// against the real @modelcontextprotocol/sdk declarations.
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { MemoryStore } from "agent-governor";
import { createMcpGateway } from "agent-governor/mcp";
import { serveMcpGateway } from "agent-governor/mcp/http";

const pair = (await crypto.subtle.generateKey({ name: "Ed25519" }, false, ["sign", "verify"])) as CryptoKeyPair;
const gateway = await createMcpGateway({ connectUpstream: () => new StreamableHTTPClientTransport(new URL("http://127.0.0.1:1/mcp")), store: new MemoryStore(), keys: {}, receiptKey: { keyId: "g", privateKey: pair.privateKey } });
const served = await serveMcpGateway(gateway, { port: 0, sessionIdleMs: 60_000, allowedHosts: ["localhost"] });
const url: URL = served.url;
const sessions: string[] = served.sessions();
// A misspelt option is a type error as well as a typed error at run time.
// @ts-expect-error `sessionIdle` is not an option (`sessionIdleMs` is)
void serveMcpGateway(gateway, { sessionIdle: 5 });
void [url, sessions, await served.close(), await gateway.close()];
