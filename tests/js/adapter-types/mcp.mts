// The MCP gateway with agent-governor/mcp, type-checked against the real @modelcontextprotocol/sdk declarations.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { MemoryStore, issueConfirmation, verifyReceipts } from "agent-governor";
import { APPROVAL_META, createMcpGateway, type PendingApproval } from "agent-governor/mcp";

declare const upstream: Client;
const pair = (await crypto.subtle.generateKey({ name: "Ed25519" }, false, ["sign", "verify"])) as CryptoKeyPair;
const gateway = await createMcpGateway({ upstream, store: new MemoryStore(), keys: { a: "x".repeat(32) }, receiptKey: { keyId: "g", privateKey: pair.privateKey }, approvalUrl: (id) => `https://inbox.example/${id}` });
await gateway.createServer().connect(new StdioServerTransport());
const pending: PendingApproval | null = await gateway.pending("id");
if (pending) await gateway.approve(pending.callId, issueConfirmation(pending.draft, { keyId: "a", secret: "x".repeat(32) }));
console.log(APPROVAL_META, verifyReceipts(await gateway.receipts(), { type: "ed25519", public_key: "x" }));

// A misspelt option is a type error as well as a typed error at run time.
// @ts-expect-error `approvalURL` is not an option (`approvalUrl` is)
void createMcpGateway({ upstream, store: new MemoryStore(), keys: {}, receiptKey: { keyId: "g", privateKey: pair.privateKey }, approvalURL: () => "" });
const warnings: { tool: string }[] = gateway.warnings;
void warnings;

