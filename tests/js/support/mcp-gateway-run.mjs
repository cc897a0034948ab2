// The gateway as its own process over stdio (what an MCP client such as a desktop app starts): upstream is
// the sample server over Streamable HTTP (UPSTREAM_URL); state in the file store (STORE_PATH); receipts signed
// with RECEIPT_KEY (PKCS#8, base64url).
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { createMcpGateway } from "agent-governor/mcp";
import { fileStore } from "./file-store.mjs";

export const KEYS = { approver: "0123456789abcdef0123456789abcdef-mcp-gateway" };

/** The receipt signing key from its PKCS#8 bytes (base64url). */
export async function receiptKeyFrom(pkcs8) {
  const privateKey = await crypto.subtle.importKey("pkcs8", Buffer.from(pkcs8, "base64url"), { name: "Ed25519" }, true, ["sign"]);
  return { keyId: "gateway", privateKey };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const upstream = new Client({ name: "gateway-upstream", version: "1" });
  await upstream.connect(new StreamableHTTPClientTransport(new URL(process.env.UPSTREAM_URL)));
  const gateway = await createMcpGateway({ upstream, store: fileStore(process.env.STORE_PATH), keys: KEYS, receiptKey: await receiptKeyFrom(process.env.RECEIPT_KEY) });
  await gateway.createServer().connect(new StdioServerTransport());
}
