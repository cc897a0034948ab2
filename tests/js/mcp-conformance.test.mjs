// The official MCP conformance suite (@modelcontextprotocol/conformance 0.1.16, every server scenario over
// Streamable HTTP) against two upstreams, directly and through the library's gateway (serveMcpGateway over
// createMcpGateway, a session to the upstream per client): the reference "everything" server
// (@modelcontextprotocol/server-everything) with no tool whitelisted, and the suite's fixture server
// (support/conformance/fixture-server.mjs) with its tools whitelisted. Every scenario that passes directly
// passes through the gateway, except the stated differences, each with its reason; the figures are in
// docs/mcp-gateway.md. The suite's CLI runs unmodified on Node 20 with support/conformance/register.mjs.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, readdirSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { MemoryStore } from "agent-governor";
import { createMcpGateway } from "agent-governor/mcp";
import { serveMcpGateway } from "agent-governor/mcp/http";
import { freePort, repoRoot } from "./helpers.mjs";
import { startFixtureServer } from "./support/conformance/fixture-server.mjs";

const require = createRequire(import.meta.url);
const suiteCli = require.resolve("@modelcontextprotocol/conformance/dist/index.js");
const everythingCli = join(require.resolve("@modelcontextprotocol/server-everything/package.json"), "..", "dist", "index.js");
const hook = join(repoRoot, "tests", "js", "support", "conformance", "register.mjs");

/** The fixture's tools, whitelisted: its scenarios then test what passes through, not a person's approval. */
const FIXTURE_TOOLS = [
  "test_simple_text", "test_image_content", "test_audio_content", "test_embedded_resource", "test_multiple_content_types",
  "test_tool_with_logging", "test_tool_with_progress", "test_error_handling", "test_reconnection", "test_sampling",
  "test_elicitation", "test_elicitation_sep1034_defaults", "test_elicitation_sep1330_enums", "json_schema_2020_12_tool",
];

/**
 * The scenarios that pass directly and not through the gateway, by design. In front of the reference server
 * no tool is whitelisted: a call of a governed tool is answered with the approval a person must give (an
 * error result naming the pending approval), never with the tool's result, which these scenarios check.
 */
const EXPECTED_DIFFERENCES = {
  everything: {
    "tools-call-simple-text": "a governed call: the gateway answers with the approval a person must give, not the tool's text",
    "tools-call-error": "a governed call: the gateway answers with the approval a person must give, so the tool's own error is not returned",
  },
  fixture: {},
};

/** Runs every server scenario against `url`: scenario -> passed (no check failed). */
async function runSuite(url) {
  const output = mkdtempSync(join(tmpdir(), "mcp-conformance-"));
  const child = spawn(process.execPath, ["--import", hook, suiteCli, "server", "--url", url, "--suite", "all", "-o", output], { stdio: ["ignore", "pipe", "pipe"] });
  let log = "";
  child.stdout.on("data", (chunk) => (log += chunk));
  child.stderr.on("data", (chunk) => (log += chunk));
  await new Promise((resolve) => child.on("exit", resolve));
  const results = new Map();
  for (const directory of readdirSync(output)) {
    const scenario = /^server-(.+)-\d{4}-\d{2}-\d{2}T[\d-]+Z$/.exec(directory)?.[1];
    if (!scenario) continue;
    const checks = JSON.parse(readFileSync(join(output, directory, "checks.json"), "utf8"));
    results.set(scenario, !checks.some((check) => check.status === "FAILURE"));
  }
  assert.ok(results.size >= 30, `the suite ran its scenarios (${results.size}):\n${log.slice(-2000)}`);
  return results;
}

async function gatewayIn(front, whitelist) {
  const { privateKey } = await crypto.subtle.generateKey({ name: "Ed25519" }, false, ["sign", "verify"]);
  const gateway = await createMcpGateway({
    connectUpstream: () => new StreamableHTTPClientTransport(new URL(front)),
    store: new MemoryStore(),
    keys: { approver: "0123456789abcdef0123456789abcdef-conformance" },
    receiptKey: { keyId: "gateway", privateKey },
    whitelist,
  });
  const served = await serveMcpGateway(gateway);
  return { url: served.url.href, close: async () => (await served.close(), await gateway.close()) };
}

let everything;
let everythingUrl;
let fixture;
before(async () => {
  const port = await freePort();
  everything = spawn(process.execPath, [everythingCli, "streamableHttp"], { env: { ...process.env, PORT: String(port) }, stdio: ["ignore", "pipe", "pipe"] });
  await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error("the reference server did not start")), 20_000);
    const seen = (chunk) => /running on port|listening/i.test(String(chunk)) && (clearTimeout(timer), resolve());
    everything.stdout.on("data", seen);
    everything.stderr.on("data", seen);
  });
  everythingUrl = `http://localhost:${port}/mcp`;
  fixture = await startFixtureServer();
});
after(async () => {
  everything?.kill();
  await fixture?.close();
});

/** Every scenario that passes directly passes through the gateway, but for exactly the stated ones. */
function compare(direct, through, stated, upstream) {
  const lost = [...direct].filter(([scenario, passed]) => passed && !through.get(scenario)).map(([scenario]) => scenario).sort();
  assert.deepEqual(lost, Object.keys(stated).sort(), `${upstream}: the scenarios lost through the gateway are exactly the stated differences`);
  const count = (results) => [...results.values()].filter(Boolean).length;
  console.log(`conformance ${upstream}: ${count(direct)} of ${direct.size} directly, ${count(through)} of ${through.size} through the gateway`);
}

test("in front of the reference server (nothing whitelisted): what passes directly passes through, but the governed calls", async () => {
  const direct = await runSuite(everythingUrl);
  const gateway = await gatewayIn(everythingUrl, []);
  try {
    compare(direct, await runSuite(gateway.url), EXPECTED_DIFFERENCES.everything, "reference server");
  } finally {
    await gateway.close();
  }
});

test("in front of the suite's fixture server (its tools whitelisted): every scenario that passes directly passes through", async () => {
  const direct = await runSuite(fixture.url);
  assert.ok([...direct.values()].every(Boolean), "the fixture passes every scenario directly");
  const gateway = await gatewayIn(fixture.url, FIXTURE_TOOLS);
  try {
    compare(direct, await runSuite(gateway.url), EXPECTED_DIFFERENCES.fixture, "fixture server");
  } finally {
    await gateway.close();
  }
});
