// Nothing silently: every public API that takes options reads them against a declared table. An option with
// one key misspelt is a typed error naming the key and the option meant; an option of the wrong type (NaN
// included) is a typed error naming it. No misspelling turns a protection off.
import assert from "node:assert/strict";
import { test } from "node:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import {
  Closer,
  Executor,
  GatedPlaybook,
  Guard,
  MemoryStore,
  Watcher,
  closerOutputSchema,
  createControlLoop,
  createGovernor,
  createOtlpExporter,
  decideCompletion,
  governToolCalls,
  parseCloserOutput,
} from "agent-governor";
import { governTools } from "agent-governor/ai";
import { generateApproverKey, passkeyPublicKey } from "agent-governor/approver";
import { init } from "agent-governor/init";
import { governGraphTools } from "agent-governor/langgraph";
import { createMcpGateway } from "agent-governor/mcp";
import { governAgentTools } from "agent-governor/openai-agents";
import { sampleServer } from "./support/mcp-sample-server.mjs";

const keys = { approver: "0123456789abcdef0123456789abcdef-options" };
const store = () => new MemoryStore();
const skill = { preview: () => ({ current_status: "todo" }), apply: () => ({ status: 200, body: {} }) };
const llm = async () => ({ error: "not asked" });
const tools = { send_email: async () => ({ sent: true }) };

/** Asserts `run()` throws (or rejects with) an AgentGovernorError at `path`, whose message matches `message`. */
async function refused(run, path, message) {
  let thrown;
  try {
    await run();
  } catch (error) {
    thrown = error;
  }
  assert.ok(thrown, `expected a refusal at ${path}`);
  assert.equal(thrown.name, "AgentGovernorError", String(thrown));
  assert.ok(["invalid_input", "invalid_port", "invalid_key"].includes(thrown.code), `${thrown.code}: ${thrown.message}`);
  assert.match(thrown.path, new RegExp(`(^|\\.)${path.replace(/[.[\]]/g, "\\$&")}$`), `${thrown.path}: ${thrown.message}`);
  assert.match(thrown.message, message);
}

const meant = (name) => new RegExp(`did you mean \`${name}\``);

/**
 * Each API, with good options (`make(extra)` adds `extra` to them), a misspelling of one of its options and
 * the option it means, and an option given the wrong type.
 */
const APIS = [
  ["Executor", (extra) => new Executor({ store: store(), skill, keys, ...extra }), ["sealkey", "sealKey"], ["clockSkewMs", "5 minutes"]],
  ["Executor (audience)", (extra) => new Executor({ store: store(), skill, keys, ...extra }), ["audiance", "audience"], ["auditTimeoutMs", Number.NaN]],
  ["Guard", (extra) => new Guard({ keys, ...extra }), ["audiance", "audience"], ["clockSkewMs", Number.POSITIVE_INFINITY]],
  ["governToolCalls", (extra) => governToolCalls(tools, { store: store(), keys, ...extra }), ["whiteList", "whitelist"], ["keepOutputs", "yes"]],
  ["governToolCalls (Executor's)", (extra) => governToolCalls(tools, { store: store(), keys, ...extra }), ["clockSkew", "clockSkewMs"], ["sealKey", 42]],
  ["governTools", (extra) => governTools({ send_email: { execute: tools.send_email } }, { store: store(), keys, ...extra }), ["keepOutput", "keepOutputs"], ["whitelist", "send_email"]],
  ["governGraphTools", (extra) => governGraphTools(tools, { store: store(), keys, ...extra }), ["sealkey", "sealKey"], ["audience", 7]],
  ["governAgentTools", (extra) => governAgentTools([{ name: "send_email", description: "", parameters: { type: "object", properties: {} }, execute: tools.send_email }], { store: store(), keys, ...extra }), ["audiance", "audience"], ["now", 5]],
  ["createMcpGateway", (extra) => createMcpGateway({ upstream: {}, store: store(), keys, receiptKey: {}, ...extra }), ["approvalURL", "approvalUrl"], ["approvalUrl", "https://example.com"]],
  ["createControlLoop", (extra) => createControlLoop({ goal: "g", judge: llm, ...extra }), ["privilegedprefix", "privilegedPrefix"], ["memoryLimit", Number.NaN]],
  ["createControlLoop's reflection", (extra) => createControlLoop({ goal: "g", judge: llm, reflection: { reflector: { reflect: llm }, store: store(), ...extra } }), ["playbok", "playbook"], ["store", 5]],
  ["createOtlpExporter", (extra) => createOtlpExporter({ endpoint: "http://127.0.0.1:4318/v1/traces", fetch: async () => new Response(), ...extra }), ["maxQeue", "maxQueue"], ["maxQueue", "10"]],
  ["GatedPlaybook", (extra) => new GatedPlaybook({ ...extra }), ["polcy", "policy"], ["policy", 5]],
  ["Closer", (extra) => new Closer({ workingDir: "", agentId: "a", ...extra }), ["confidenceTreshold", "confidenceThreshold"], ["confidenceThreshold", Number.NaN]],
  ["Closer (port)", (extra) => new Closer({ workingDir: "", agentId: "a", ...extra }), ["loadprompt", "loadPrompt"], ["maxReasks", "2"]],
  ["Watcher", (extra) => new Watcher({ agentId: "a", store: store(), ...extra }), ["maxIssue", "maxIssues"], ["maxIssues", Number.POSITIVE_INFINITY]],
  ["createGovernor", (extra) => createGovernor({ llm, store: store(), ...extra }), ["promptroot", "promptRoot"], ["promptRoot", 3]],
  ["governor.reflector", (extra) => createGovernor({ llm, store: store() }).reflector({ ...extra }), ["earlyStp", "earlyStop"], ["rounds", Number.NaN]],
  ["governor.closer", (extra) => createGovernor({ llm, store: store() }).closer({ workingDir: "", agentId: "a", ...extra }), ["maxRetries", undefined], ["allowRepairs", "no"]],
  ["decideCompletion", (extra) => decideCompletion({ checklist: [], allComplete: false, confidence: 0.5, summary: "", pendingActions: [] }, { ...extra }), ["confidenceTreshold", "confidenceThreshold"], ["confidenceThreshold", Number.NaN]],
  ["parseCloserOutput", (extra) => parseCloserOutput("{}", { ...extra }), ["allowRepair", "allowRepairs"], ["allowRepairs", "yes"]],
  ["closerOutputSchema", (extra) => closerOutputSchema({ ...extra }), ["maxChecklistItem", "maxChecklistItems"], ["maxChecklistItems", Number.NaN]],
  ["generateApproverKey", (extra) => generateApproverKey({ ...extra }), ["keyid", "keyId"], ["extractable", "yes"]],
  ["passkeyPublicKey", (extra) => passkeyPublicKey({}, { rpId: "example.com", origins: ["https://example.com"], ...extra }), ["origin", "origins"], ["origins", "https://example.com"]],
  ["init", (extra) => init({ ...extra }), ["module_or_pth", "module_or_path"], null],
];

for (const [name, make, misspelt, wrongType] of APIS) {
  test(`${name}: a misspelt option is refused with the option meant; a wrong type is refused by name`, async () => {
    const [typo, intended] = misspelt;
    await refused(() => make({ [typo]: "x" }), typo, intended === undefined ? /is not an option of|is not a known field/ : meant(intended));
    if (wrongType !== null) {
      const [option, value] = wrongType;
      await refused(() => make({ [option]: value }), option, /./);
    }
  });
}

test("a misspelling far from every option lists the known ones instead", () => {
  assert.throws(() => new Executor({ store: store(), skill, keys, approvalSound: "on" }), (error) => {
    assert.equal(error.path, "approvalSound");
    assert.match(error.message, /is not an option of Executor \(known: store, skill, .*sealKey\)/);
    return true;
  });
});

test("an option set to undefined is an option not given, as TypeScript writes optional members", () => {
  const executor = new Executor({ store: store(), skill, keys, audience: undefined, sealKey: undefined });
  assert.ok(executor);
  assert.ok(governToolCalls(tools, { store: store(), keys, whitelist: undefined }));
});

test("a whitelisted tool governToolCalls is not given is named, with the tool meant", () => {
  assert.throws(() => governToolCalls(tools, { store: store(), keys, whitelist: ["send_emails"] }), (error) => {
    assert.equal(error.path, "options.whitelist");
    assert.match(error.message, /"send_emails", which is not one of the given tools; did you mean "send_email"\?/);
    return true;
  });
});

test("createMcpGateway starts when its whitelist names a tool the upstream lacks, and names that tool", async () => {
  const receiptPair = await crypto.subtle.generateKey({ name: "Ed25519" }, false, ["sign", "verify"]);
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await sampleServer().connect(serverSide);
  const upstream = new Client({ name: "options-test", version: "1" });
  await upstream.connect(clientSide);
  const warned = [];
  const warn = console.warn;
  console.warn = (message) => warned.push(message);
  let gateway;
  try {
    gateway = await createMcpGateway({ upstream, store: store(), keys, whitelist: ["lookup", "lookupp", "weather"], receiptKey: { keyId: "gateway", privateKey: receiptPair.privateKey } });
  } finally {
    console.warn = warn;
  }
  assert.equal(gateway.governed.isWhitelisted("lookup"), true);
  assert.deepEqual(gateway.warnings.map((warning) => [warning.code, warning.tool]), [
    ["whitelisted_tool_missing", "lookupp"],
    ["whitelisted_tool_missing", "weather"],
  ]);
  assert.match(gateway.warnings[0].message, /"lookupp", which the upstream server does not list: it is not forwarded until the upstream lists it; did you mean "lookup"\?/);
  assert.equal(warned.length, 2);
  await upstream.close();
});
