// Every export of the built package (both modules: `agent-governor` and `agent-governor/guard`), every
// parameter position, every kind of JS value: a typed error (or a documented valid result), never a trap, a
// bare TypeError or a coercion; and the instance still works.
import assert from "node:assert/strict";
import { createHmac } from "node:crypto";
import { test } from "node:test";
import * as fullApi from "agent-governor";
import * as guardApi from "agent-governor/guard";

const MODULES = [["agent-governor", fullApi], ["agent-governor/guard", guardApi]];
/** The module under test: the suites below run once per module, in order. */
let api = fullApi;

const { GatedPlaybook, MemoryStore, Playbook, issueConfirmation, requestFor, saveConfirmation } = fullApi;
/** A held-out set of one case and an evaluator that scores every playbook 1. */
const heldOutEvaluation = () => ({ cases: ["case"], evaluate: (playbook, cases) => cases.map(() => 1) });

const HUNDRED_MB = "x".repeat(100 * 1024 * 1024);

/** Every kind of value a JavaScript caller can pass. */
const VALUES = [
  ["undefined", undefined],
  ["null", null],
  ["boolean", true],
  ["number", 42],
  ["NaN", NaN],
  ["bigint", 10n],
  ["symbol", Symbol("s")],
  ["function", () => "x"],
  ["array", []],
  ["plain object", {}],
  ["class instance", new Date(0)],
  ["wasm class instance", new Playbook()],
  ["throwing proxy", new Proxy({}, { get() { throw new Error("proxy trap"); }, ownKeys() { throw new Error("proxy trap"); } })],
  ["lone surrogate", "ab\uD800cd"],
  ["100 MB string", HUNDRED_MB],
];

// ---- valid arguments, built fresh for each call ----
const signer = { keyId: "approver", secret: "0123456789abcdef0123456789abcdef-approval" };
const keys = { [signer.keyId]: signer.secret };
const draft = () => ({
  node_id: "node-1",
  proposed_change: { type: "status_change", from: "todo", to: "done" },
  intent: "all subtasks closed",
  reason: "checked by a human",
  ui_action: "approve_button",
});
const confirmation = () => issueConfirmation(draft(), signer);
const skill = () => ({ preview: () => ({ current_status: "todo" }), apply: () => ({ status: 200, body: { applied: true } }) });
const closerSetup = () => ({ workingDir: "/w", agentId: "a" });
const closerInput = () => ({ structuredOutput: { status: "implemented" }, stepId: "complete.issue", c3l: { c2: "complete", c3: "issue" } });
const closerAnswer = () => ({ checklist: [{ id: "impl", description: "impl", completed: true, evidence: null }], allComplete: true, summary: "done", pendingActions: [], confidence: 0.9 });
const query = () => () => ({ structuredOutput: closerAnswer() });
const persona = (name) => api.personaCatalog().find((p) => p.name === name);
const watcherInput = () => ({
  executor_result: { status: "completed", artifacts: ["api.md"], execution_log: "done", persona_applied: "Kent Beck" },
  original_request: "design the API",
  persona: persona("Martin Fowler"),
  executor_persona: persona("Kent Beck"),
  task_classification: "design",
});
const trajectory = () => ({ query: "q", generated_result: "r", reasoning_steps: ["s"], used_bullet_ids: [] });
const governor = () => api.createGovernor({ llm: query(), store: new MemoryStore() });
const waitAnswer = () => ({ decision: "wait", reply: null, action_type: null, summary: null, impact_scope: null, node_id: null, from: null, to: null, setting_key: null, setting_value: null, whitelist_add: null, whitelist_remove: null, reason: null });
const logRecord = () => ({ event_summary: "s", cause: "c", impact_scope: "i" });
const approverKey = await fullApi.generateApproverKey({ keyId: "alice-1" });
const humanAction = () => ({ action: "decline", approval_id: "c-1", version: "v-1", nonce: "nonce-0123456789abcdef", detail: "not now", at: new Date().toISOString(), key_id: null });
const receipt = () => ({ seq: 1, approval_id: "a-1", change_digest: "ab", approver: "alice/1", outcome: "applied", at: "2026-11-23T00:00:00.000Z", prev: null, key_id: "guard-1", signature: "" });
const assertionParts = () => ({ authenticator_data: fullApi.base64url(new Uint8Array(37)), client_data_json: "e30", signature: "AA" });
const registeredCredential = () => ({ response: { getPublicKey: () => new ArrayBuffer(91), getPublicKeyAlgorithm: () => -7 } });
const assertedCredential = () => ({ response: { authenticatorData: new ArrayBuffer(37), clientDataJSON: new ArrayBuffer(2), signature: new ArrayBuffer(8) } });
const passkeyRef = () => ({ keyId: "alice-passkey", rpId: "localhost" });
const mandate = () => ({ mandate_id: "mandate-0123456789ab", agents: ["agent-1"], action: "tool:send_email", constraints: [{ field: "/to", op: "ends_with", value: "@example.com" }], max_uses: 2, issued_at: new Date().toISOString(), expires_at: new Date(Date.now() + 3_600_000).toISOString(), key_id: null });
const mandateUse = () => ({ mandate_id: "mandate-0123456789ab", confirmation_id: "c-1", agent_id: "agent-1", node_id: "send_email", proposed_change: { type: "tool_call", from: "", to: "{}" }, intent: "i" });
const loopConfig = () => ({ goal: "g", judge: () => ({ structuredOutput: waitAnswer() }) });

/**
 * One entry per export. `params` lists each position: its error `path` (null: any path), the values it
 * documents as valid (`accepts`), the error codes it may give (default `invalid_input`), and a valid value.
 * `target` gives the receiver of a method. `noParams` exports are called once with every value appended.
 */
const p = (path, valid, options = {}) => ({ path, valid, accepts: options.accepts ?? [], codes: options.codes ?? ["invalid_input"] });
const PORT = { codes: ["invalid_port"] };
// Any function is a QueryFn; one that answers nonsense gives a fail-closed result, not an error.
const CALLBACK = { codes: ["invalid_port"], accepts: ["function"] };
const OPTIONAL = ["undefined", "null"];
const OPTIONS = [...OPTIONAL, "plain object"];

const FUNCTIONS = {
  checkConfirmation: [p(null, () => ({ confirmation: confirmation(), request: requestFor(confirmation()), now: Date.now(), keys }))],
  issueConfirmation: [p("draft", draft), p("signer", () => signer, { codes: ["invalid_input", "invalid_key"] }), p("now", () => Date.now(), { accepts: [...OPTIONAL, "number"] })],
  requestFor: [p("confirmation", confirmation)],
  saveConfirmation: [p("store", () => new MemoryStore(), PORT), p("confirmation", confirmation)],
  applyDirectly: [p(null, () => ({ skill: skill() }), PORT), p("confirmation", confirmation)],
  decideCompletion: [p("output", closerAnswer), p("options", () => ({}), { accepts: OPTIONS })],
  // null (a refusal or a tool call) is not text: a typed invalid_input, never a verdict.
  parseCloserOutput: [p("text", () => JSON.stringify(closerAnswer())), p("options", () => ({}), { accepts: OPTIONS })],
  parseWatcherVerdict: [p("text", () => "{}"), p("options", () => ({}), { accepts: OPTIONS })],
  parseReflection: [p("text", () => "{}"), p("options", () => ({}), { accepts: OPTIONS })],
  closerOutputSchema: [],
  personaCatalog: [],
  formatIterationSummary: [p("result", null)],
  resolvePrompt: [p("query", () => ({ workingDir: "/w", agentId: "a", c2: "complete", c3: "issue" }), { codes: ["invalid_input", "invalid_port"] })],
  renderPrompt: [p("fileText", () => "hello"), p("variables", () => ({}), { accepts: ["plain object"] })],
  createCloser: [p(null, closerSetup, { codes: ["invalid_input", "invalid_port"] })],
  createGovernor: [p(null, () => ({ llm: query(), store: new MemoryStore() }), PORT)],
  openAICompatible: [p("config", () => ({ baseUrl: "http://127.0.0.1:9/v1", model: "m" }))],
  checkPersonaDivergence: [p("executorPersona", () => persona("Kent Beck"), { accepts: OPTIONAL }), p("watcherPersona", () => persona("Martin Fowler"), { accepts: OPTIONAL })],
  pickWatcherPersona: [p("executorPersona", () => persona("Kent Beck"), { accepts: OPTIONAL }), p("catalog", () => api.personaCatalog(), { accepts: ["undefined", "array"] })],
  newControlState: [p("setup", () => ({ goal: "g" }))],
  controlStep: [p("state", () => api.newControlState({ goal: "g" })), p("event", () => ({ event: "human_message", text: "hi" }))],
  judgeNextAction: [
    p("request", () => ({ situation: { goal: "g", external: null, internal: null } })),
    p("query", () => () => ({ structuredOutput: waitAnswer() }), CALLBACK),
    p("setup", () => ({}), { accepts: OPTIONS }),
  ],
  judgementSchema: [],
  newBootId: [],
  displaySafe: [p("text", () => "T-1\u202e")],
  executionLogLine: [p("time", () => "2026-11-23T00:00:00.000Z"), p("record", logRecord)],
  retainLog: [p("log", () => "a\n"), p("limitBytes", () => 10, { accepts: [...OPTIONAL, "number"] })],
  logTail: [p("log", () => "a\n"), p("lines", () => 300, { accepts: [...OPTIONAL, "number"] })],
  otelLogRecord: [p("channel", () => "execution"), p("record", logRecord), p("time", () => "t"), p("tool", () => ({ name: "n", callId: "a-1" }), { accepts: OPTIONAL })],
  createControlLoop: [p(null, () => loopConfig())],
  canonicalConfirmation: [p("confirmation", confirmation), p("keyId", () => "alice-1")],
  confirmationChallenge: [p("confirmation", confirmation), p("keyId", () => "alice-1")],
  canonicalAction: [p("action", humanAction), p("keyId", () => "alice-1")],
  actionChallenge: [p("action", humanAction), p("keyId", () => "alice-1")],
  passkeySignCount: [p("assertion", assertionParts)],
  generateApproverKey: [p("options", () => ({}), { accepts: ["undefined", "plain object"], codes: ["invalid_input", "invalid_key"] })],
  signConfirmation: [p("confirmation", confirmation), p("key", () => approverKey, { codes: ["invalid_key", "invalid_input"] })],
  signAction: [p("action", humanAction), p("key", () => approverKey, { codes: ["invalid_key", "invalid_input"] })],
  passkeyChallenge: [p("confirmation", confirmation), p("keyId", () => "alice-1")],
  passkeyActionChallenge: [p("action", humanAction), p("keyId", () => "alice-1")],
  passkeyAssertion: [p("credential", assertedCredential)],
  passkeyPublicKey: [p("credential", registeredCredential, { codes: ["invalid_input", "invalid_key"] }), p("relyingParty", () => ({ rpId: "localhost", origins: ["http://localhost:8080"] }))],
  // Node has no WebAuthn: with valid arguments the answer is a typed `unsupported`.
  approveWithPasskey: [p("confirmation", confirmation, { codes: ["invalid_input", "unsupported"] }), p("passkey", passkeyRef, { codes: ["invalid_input", "unsupported"] })],
  signActionWithPasskey: [p("action", humanAction, { codes: ["invalid_input", "unsupported"] }), p("passkey", passkeyRef, { codes: ["invalid_input", "unsupported"] })],
  signMandate: [p("mandate", mandate), p("key", () => approverKey, { codes: ["invalid_key", "invalid_input"] })],
  signMandateWithPasskey: [p("mandate", mandate, { codes: ["invalid_input", "unsupported"] }), p("passkey", passkeyRef, { codes: ["invalid_input", "unsupported"] })],
  parseTime: [p("text", () => "2026-11-23T00:00:00.000Z")],
  formatTime: [p("millis", () => 0, { accepts: ["number"] })],
  stateVersion: [p("text", () => "{}")],
  // A request that is not Discord's is a verdict; a configured key that is not one is `invalid_key`.
  verifyDiscordRequest: [
    p("publicKey", () => "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a", { codes: ["invalid_input", "invalid_key"] }),
    p("signature", () => ""),
    p("timestamp", () => ""),
    p("body", () => "{}"),
    p("now", () => Date.now(), { accepts: [...OPTIONAL, "number"] }),
  ],
  changeLines: [p("nodeId", () => "T-1"), p("change", () => ({ type: "status_change", from: "a", to: "b" }))],
  mandateLines: [p("mandate", mandate), p("language", () => "ja", { accepts: OPTIONAL })],
  mandateSigningBytes: [p("mandate", mandate), p("keyId", () => "alice-1")],
  changeDigest: [p("nodeId", () => "T-1"), p("change", () => ({ type: "status_change", from: "a", to: "b" }))],
  refusalOf: [p("call", () => ({ tool: "send_email", arguments: {}, callId: "c-1" }), { accepts: ["plain object"] }), p("outcome", () => ({ outcome: "rejected", result: null }), { accepts: ["plain object"] })],
  toolCallChange: [p("tool", () => "send_email"), p("arguments", () => ({ to: "bob", cc: [] }), { accepts: ["plain object"] })],
  readJson: [p("text", () => "{}"), p("maxDepth", () => 8, { accepts: [...OPTIONAL, "number"] })],
  canonicalReceipt: [p("receipt", receipt)],
  receiptDigest: [p("receipt", receipt)],
  verifyReceipts: [p("chain", () => [receipt()], { accepts: ["array"] }), p("publicKey", () => approverKey.publicKey, { codes: ["invalid_input", "invalid_key"] })],
  newNonce: [],
  signReceipt: [p("receipt", receipt), p("key", () => approverKey, { codes: ["invalid_key", "invalid_input"] })],
  base64url: [p("bytes", () => new Uint8Array(3))],
  fromBase64url: [p("text", () => "AQID")],
  memoryLogStore: [p("options", () => ({}), { accepts: OPTIONS })],
  createOtlpExporter: [p("options", () => ({ endpoint: "http://127.0.0.1:9/v1/traces" }))],
  ranOf: [p("result", () => ({ outcome: "rejected", rejection: { phase: "already_consumed", reason: "" } }), { accepts: ["plain object"] })],
  notSent: [p("error", () => new Error("connect ECONNREFUSED"))],
  toolCallActionId: [p("tool", () => "send_email"), p("callId", () => "call-1"), p("digest", () => "ab".repeat(32))],
  governToolCalls: [p("tools", () => ({ t: async () => 1 }), { accepts: ["plain object"] }), p("options", () => ({ store: new MemoryStore(), keys }), { accepts: ["plain object"], codes: ["invalid_input", "invalid_port", "invalid_key"] })],
  // Node has no IndexedDB: with valid options the answer is a typed `unsupported`.
  indexedDbLogStore: [p("options", () => ({}), { accepts: OPTIONS, codes: ["invalid_input", "unsupported"] })],
};
// formatIterationSummary needs a CloserResult; take one from a real check.
FUNCTIONS.formatIterationSummary[0].valid = null;

const CLASSES = {
  Executor: {
    construct: [p(null, () => ({ store: new MemoryStore(), skill: skill(), keys }), { codes: ["invalid_port", "invalid_input", "invalid_key"] })],
    instance: () => {
      const store = new MemoryStore();
      const executor = new api.Executor({ store, skill: skill(), keys });
      executor.store = store;
      return executor;
    },
    methods: {
      execute: [p("request", () => requestFor(confirmation()))],
      executeBatch: [p("requests", () => [requestFor(confirmation())], { accepts: ["array"] })],
      save: [p("confirmation", confirmation)],
      takeAction: [p("action", humanAction), p("options", () => ({ version: "v-1" }), { accepts: OPTIONS })],
      confirmationVersion: [p("confirmationId", () => "c-1")],
      saveMandate: [p("mandate", mandate, { codes: ["invalid_input", "signature_invalid"] })],
      mandateRecord: [p("mandateId", () => "mandate-0123456789ab")],
      confirmByMandate: [p("request", mandateUse)],
    },
    // The same Executor still applies a fresh approval exactly once.
    healthy: async (executor) => {
      const fresh = confirmation();
      await saveConfirmation(executor.store, fresh);
      const first = await executor.execute(requestFor(fresh));
      const second = await executor.execute(requestFor(fresh));
      return first.outcome === "applied" && second.rejection?.phase === "already_consumed";
    },
  },
  Guard: {
    construct: [p(null, () => ({ keys }), { codes: ["invalid_input", "invalid_key"] })],
    instance: () => new api.Guard({ keys }),
    healthy: (guard) => {
      const fresh = confirmation();
      return guard.check(fresh, requestFor(fresh), { currentStatus: "todo" }).verdict === "pass";
    },
    methods: {
      check: [
        p("confirmation", confirmation, { accepts: ["null"] }),
        p("request", () => requestFor(confirmation())),
        p("options", () => ({ currentStatus: "todo" }), { accepts: OPTIONS }),
      ],
      checkAsync: [
        p("confirmation", confirmation, { accepts: ["null"] }),
        p("request", () => requestFor(confirmation())),
        p("options", () => ({ currentStatus: "todo" }), { accepts: OPTIONS }),
      ],
      checkAction: [p("action", humanAction), p("options", () => ({ version: "v-1" }))],
    },
  },
  MemoryStore: {
    construct: [],
    instance: () => { const store = new MemoryStore(); store.put("k", "v"); return store; },
    methods: {
      get: [p("key", () => "k")],
      put: [p("key", () => "k2"), p("value", () => "v2")],
      compareAndSwap: [p("key", () => "k3"), p("expected", () => null, { accepts: OPTIONAL }), p("next", () => "n")],
      keys: [],
    },
    healthy: (store) => store.get("k") === "v",
  },
  Closer: {
    construct: [p(null, closerSetup, { codes: ["invalid_input", "invalid_port"] })],
    instance: () => new api.Closer(closerSetup()),
    healthy: async (closer) => (await closer.check(closerInput(), query())).complete === true,
    methods: {
      check: [p("input", closerInput), p("query", query, CALLBACK)],
      completionHandler: [p("setup", () => ({ stepId: "complete.issue", c3l: { c2: "complete", c3: "issue" } }))],
    },
  },
  CloserCompletionHandler: {
    construct: "factory",
    instance: () => new api.Closer(closerSetup()).completionHandler({ stepId: "s", c3l: { c2: "complete", c3: "issue" } }),
    methods: {
      checkCompletion: [p("summary", () => ({ structuredOutput: { status: "x" } }), { accepts: ["plain object"] }), p("query", query, CALLBACK)],
      isComplete: [], isExhausted: [], getCompletionDescription: [],
    },
  },
  Watcher: {
    construct: [p(null, () => ({ agentId: "w", store: new MemoryStore() }), { codes: ["invalid_input", "invalid_port"] })],
    instance: () => new api.Watcher({ agentId: "w", store: new MemoryStore() }),
    healthy: async (watcher) => Array.isArray(await watcher.ledger()),
    methods: {
      inspect: [p("input", watcherInput), p("query", query, CALLBACK)],
      runProtocol: [p("input", watcherInput), p("query", query, CALLBACK), p("rerunExecutor", () => () => watcherInput().executor_result, CALLBACK)],
      ledger: [],
    },
  },
  Governor: {
    construct: "factory",
    instance: governor,
    methods: {
      closer: [p("options", closerSetup)],
      watcher: [p("options", () => ({ agentId: "w" }))],
      reflector: [p("options", () => ({}), { accepts: ["undefined", "plain object"] })],
      loop: [p(null, () => loopConfig())],
    },
  },
  Reflector: {
    construct: "factory",
    instance: () => governor().reflector(),
    methods: {
      reflect: [p("trajectory", trajectory), p("groundTruth", () => "gt"), p("testReport", () => "report"), p("dataset", () => "default", { accepts: OPTIONAL })],
    },
  },
  Playbook: {
    construct: [],
    instance: () => new Playbook(),
    healthy: (playbook) => typeof playbook.render() === "string" && playbook.applyDeltas([]).applied.length === 0,
    statics: {
      fromJSON: [p("playbook", () => new Playbook().toJSON())],
      load: [p("store", () => new MemoryStore(), PORT), p("name", () => "default")],
    },
    methods: {
      save: [p("store", () => new MemoryStore(), PORT), p("name", () => "default")],
      applyReflection: [p("result", null)],
      curate: [p("reflectionId", () => "r-1"), p("insights", () => [], { accepts: ["array"] })],
      applyDeltas: [p("ops", () => [], { accepts: ["array"] })],
      pruneHarmful: [p("policy", () => ({}), { accepts: OPTIONS })],
      enforceBudget: [p("policy", () => ({}), { accepts: OPTIONS })],
      dedup: [], render: [], toJSON: [],
    },
  },
  GatedPlaybook: {
    construct: [p("setup", () => ({}), { accepts: OPTIONS })],
    // One previous version, so that `revert` (which has no parameter) has something to restore.
    instance: () => GatedPlaybook.fromJSON({ ...new GatedPlaybook().toJSON(), previous: [{ version: 0, nextId: 0, bullets: [], auditLength: 0, addedOps: [] }] }),
    healthy: (gated) => typeof gated.prompt() === "string" && Array.isArray(gated.playbook().bullets),
    statics: {
      fromJSON: [p("gate", () => new GatedPlaybook().toJSON())],
      load: [p("store", () => new MemoryStore(), PORT), p("name", () => "default"), p("policy", () => ({}), { accepts: OPTIONS })],
    },
    methods: {
      save: [p("store", () => new MemoryStore(), PORT), p("name", () => "default")],
      propose: [p("ops", () => [], { accepts: ["array"] }), p("evaluation", heldOutEvaluation, { codes: ["invalid_input", "invalid_port"] })],
      proposeReflection: [p("reflectionId", () => "r-1"), p("reflection", null), p("evaluation", heldOutEvaluation, { codes: ["invalid_input", "invalid_port"] })],
      retire: [p("evaluation", heldOutEvaluation, { codes: ["invalid_input", "invalid_port"] })],
      revert: [], prompt: [], playbook: [], toJSON: [],
    },
  },
};
CLASSES.Playbook.methods.applyReflection[0].valid = null;

/** Exports that are not ours to validate: wasm-bindgen's loader, documented as a no-op once loaded, and constants. */
const LOADER = new Set(["initSync", "LOG_CHANNELS", "DEFAULT_LOG_LIMIT_BYTES"]);

async function outcome(call) {
  try {
    const value = call();
    return { value: value && typeof value.then === "function" ? await value : value };
  } catch (error) {
    return { error };
  }
}

function assertTyped(error, position, label) {
  assert.ok(!(error instanceof WebAssembly.RuntimeError), `${label}: trapped (${error?.message})`);
  assert.ok(error instanceof Error, `${label}: threw a non-Error ${String(error)}`);
  assert.equal(error.name, "AgentGovernorError", `${label}: ${error.name}: ${error.message}`);
  assert.ok(position.codes.includes(error.code), `${label}: code ${error.code} (${error.message})`);
  assert.equal(typeof error.path, "string", `${label}: path`);
  if (position.path !== null && position.path !== "") {
    const { path } = error;
    assert.ok(path === position.path || path.startsWith(`${position.path}.`) || path.startsWith(`${position.path}[`), `${label}: path \`${path}\`, expected \`${position.path}\``);
  }
}

/** The same module instance still answers a normal call correctly. */
function assertModuleHealthy(label) {
  const verdict = api.checkConfirmation({ confirmation: confirmation(), request: requestFor(confirmation()), now: Date.now(), keys });
  assert.equal(verdict.verdict, "rejected", `${label}: module still answers`);
  const store = new MemoryStore();
  store.put("a", "b");
  assert.equal(store.get("a"), "b", `${label}: module still answers`);
}

let cases = 0;

async function throwEverything(label, positions, invoke, healthy) {
  for (let index = 0; index < positions.length; index += 1) {
    const position = positions[index];
    for (const [name, bad] of VALUES) {
      const args = positions.map((other) => (other.valid ? other.valid() : undefined));
      args[index] = bad;
      const caseLabel = `${label} #${index} (${position.path ?? "value"}) <- ${name}`;
      const { error } = await outcome(() => invoke(args));
      cases += 1;
      if (position.accepts.includes(name)) {
        // A documented valid value: a result, or a domain answer (not_found, ...) as a typed error.
        if (error !== undefined) {
          assert.equal(error.name, "AgentGovernorError", `${caseLabel}: documented as valid, but threw ${error?.message}`);
          assert.notEqual(error.code, "invalid_input", `${caseLabel}: documented as valid, but refused: ${error.message}`);
        }
      } else {
        assert.ok(error !== undefined, `${caseLabel}: accepted a bad value`);
        assertTyped(error, position, caseLabel);
      }
      await healthy(caseLabel);
    }
  }
}

for (const [moduleName, module] of MODULES) {
test(`${moduleName}: every export is covered by a case`, () => {
  api = module;
  const covered = new Set([...Object.keys(FUNCTIONS), ...Object.keys(CLASSES), ...LOADER]);
  const missing = Object.keys(api).filter((name) => !covered.has(name));
  assert.deepEqual(missing, [], "exports without a case in tests/js/boundary.test.mjs");
  for (const [name, spec] of Object.entries(CLASSES).filter(([name]) => name in api)) {
    const prototype = api[name].prototype;
    const methods = Object.getOwnPropertyNames(prototype).filter((m) => m !== "constructor" && typeof Object.getOwnPropertyDescriptor(prototype, m).value === "function" && !m.startsWith("__") && m !== "free" && typeof m === "string");
    const missingMethods = methods.filter((m) => !(m in spec.methods));
    assert.deepEqual(missingMethods, [], `${name} methods without a case`);
    const statics = Object.getOwnPropertyNames(api[name]).filter((m) => typeof api[name][m] === "function" && !m.startsWith("__"));
    assert.deepEqual(statics.filter((m) => !(m in (spec.statics ?? {}))), [], `${name} static methods without a case`);
  }
});

test(`${moduleName}: functions: every position, every value`, async () => {
  api = module;
  // A real CloserResult for formatIterationSummary and a real ReflectionResult for applyReflection.
  const closerResult = await new fullApi.Closer(closerSetup()).check(closerInput(), query());
  FUNCTIONS.formatIterationSummary[0].valid = () => closerResult;
  const reflection = await fullApi.createGovernor({ llm: query(), store: new MemoryStore() }).reflector().reflect(trajectory(), "gt", "report");
  CLASSES.Playbook.methods.applyReflection[0].valid = () => reflection;
  CLASSES.GatedPlaybook.methods.proposeReflection[1].valid = () => reflection;
  for (const [name, positions] of Object.entries(FUNCTIONS).filter(([name]) => name in api)) {
    await throwEverything(name, positions, (args) => api[name](...args), assertModuleHealthy);
    if (positions.length === 0) {
      const { error } = await outcome(() => api[name](...VALUES.map(([, value]) => value)));
      assert.equal(error, undefined, `${name} ignores extra arguments`);
      cases += 1;
    }
  }
});

test(`${moduleName}: classes: constructors, static methods and methods, every position, every value`, async () => {
  api = module;
  for (const [name, spec] of Object.entries(CLASSES).filter(([name]) => name in api)) {
    const Class = api[name];
    if (spec.construct === "factory") {
      for (const [valueName, value] of VALUES) {
        const { error } = await outcome(() => new Class(value));
        cases += 1;
        assertTyped(error, { path: null, codes: ["invalid_input"] }, `new ${name}(${valueName})`);
      }
    } else {
      await throwEverything(`new ${name}`, spec.construct, (args) => new Class(...args), assertModuleHealthy);
    }
    for (const [method, positions] of Object.entries(spec.statics ?? {})) {
      await throwEverything(`${name}.${method}`, positions, (args) => Class[method](...args), assertModuleHealthy);
    }
    for (const [method, positions] of Object.entries(spec.methods)) {
      const instance = spec.instance();
      const healthy = async (label) => {
        assertModuleHealthy(label);
        if (spec.healthy) assert.ok(await spec.healthy(instance), `${label}: the instance still answers`);
      };
      await throwEverything(`${name}.prototype.${method}`, positions, (args) => instance[method](...args), healthy);
      if (positions.length === 0) {
        const { error } = await outcome(() => instance[method](...VALUES.map(([, value]) => value)));
        assert.equal(error, undefined, `${name}.${method} ignores extra arguments`);
        cases += 1;
      }
    }
  }
});

test(`${moduleName}: wasm-bindgen's loader is not part of the API`, () => {
  for (const name of ["initSync", "default", "__wbg_init"]) {
    cases += 1;
    assert.equal(module[name], undefined, `${name} is not exported`);
  }
});
}

test("the number of cases run", () => {
  assert.ok(cases > 500, `only ${cases} cases`);
  console.log(`[boundary] ${cases} (export, position, value) cases run`);
});

test("a reconcile after an unknown Apply is a signed action: a wrong type anywhere is refused, never coerced", async () => {
  const store = new MemoryStore();
  const issued = confirmation();
  await saveConfirmation(store, issued);
  let applies = 0;
  const gateway = { preview: () => ({ current_status: "todo" }), apply: () => { applies += 1; return { status: 504, body: {} }; } };
  const executor = new api.Executor({ store, skill: gateway, keys });
  const first = await executor.execute(requestFor(issued));
  assert.equal(first.confirmation_state, "in_flight");
  const unsigned = { action: "reconcile_applied", approval_id: issued.confirmation_id, version: await executor.confirmationVersion(issued.confirmation_id), nonce: "nonce-0123456789abcdef", detail: "", at: new Date().toISOString(), key_id: null };
  const action = { ...unsigned, key_id: signer.keyId, signature: createHmac("sha256", signer.secret).update(api.canonicalAction(unsigned, signer.keyId)).digest("hex") };
  for (const [field, spelling] of [["action", "reconcile applied"], ["version", 1], ["nonce", "short"], ["at", "2026-11-23_00:00:00Z"], ["detail", false]]) {
    await assert.rejects(async () => executor.takeAction({ ...action, [field]: spelling }), (error) => error.code === "invalid_input" && error.path === `action.${field}`, field);
  }
  for (const spelling of ["3", true, -1, 1.5]) {
    await assert.rejects(async () => executor.takeAction(action, { lastSignCount: spelling }), (error) => error.code === "invalid_input" && error.path === "options.lastSignCount");
  }
  const unsignedOutcome = await executor.takeAction(unsigned);
  assert.equal(unsignedOutcome.phase, "signature_invalid");
  const again = await executor.execute(requestFor(issued));
  assert.equal(again.rejection.phase, "in_flight", "still in flight after the refused reconciles");
  const settled = await executor.takeAction(action);
  assert.equal(settled.outcome, "taken");
  assert.equal(settled.confirmation.consumed, true);
  assert.equal((await executor.execute(requestFor(issued))).rejection.phase, "already_consumed");
  assert.equal(applies, 1, "applied once");
});
