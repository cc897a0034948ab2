// The options tables and the declarations say the same: every option a declaration names is accepted by its
// API (given as `undefined`, an option not given), and each table the package's JavaScript reads its
// options with holds exactly the members its declaration names. A typo is then a TypeScript error and a
// typed error alike.
import assert from "node:assert/strict";
import { join } from "node:path";
import { test } from "node:test";
import ts from "typescript";
import { Closer, Executor, GatedPlaybook, Guard, MemoryStore, Watcher, createControlLoop, createGovernor, createOtlpExporter, decideCompletion, governToolCalls } from "agent-governor";
import { governGraphTools } from "agent-governor/langgraph";
import { EXECUTOR_OPTIONS, GOVERN_TOOL_CALLS_OPTIONS } from "../../dist/approver/options.js";
import { repoRoot } from "./helpers.mjs";

const dist = (path) => join(repoRoot, "dist", path);
const program = ts.createProgram([dist("index.d.ts"), dist("langgraph/index.d.ts")], {
  strict: true,
  noEmit: true,
  target: ts.ScriptTarget.ES2022,
  module: ts.ModuleKind.NodeNext,
  moduleResolution: ts.ModuleResolutionKind.NodeNext,
  lib: ["lib.es2022.d.ts", "lib.esnext.disposable.d.ts", "lib.dom.d.ts"],
  types: [],
});
const checker = program.getTypeChecker();

/** The member names of the type `name` that `file` exports (its own or re-exported). */
function declared(file, name) {
  const module = checker.getSymbolAtLocation(program.getSourceFile(file));
  let symbol = checker.getExportsOfModule(module).find((exported) => exported.name === name);
  assert.ok(symbol, `${name} is not exported by ${file}`);
  if (symbol.flags & ts.SymbolFlags.Alias) symbol = checker.getAliasedSymbol(symbol);
  return checker
    .getPropertiesOfType(checker.getDeclaredTypeOfSymbol(symbol))
    .map((property) => property.name)
    .sort();
}

const keys = { approver: "0123456789abcdef0123456789abcdef-declared" };
const skill = { preview: () => ({ current_status: "todo" }), apply: () => ({ status: 200, body: {} }) };
const llm = async () => ({ error: "not asked" });

/** Each API, the declaration of its options, and a call with good options plus `extra`. */
const APIS = [
  ["Executor", "index.d.ts", "ExecutorPorts", (extra) => new Executor({ store: new MemoryStore(), skill, keys, ...extra })],
  ["Guard", "index.d.ts", "GuardSetup", (extra) => new Guard({ keys, ...extra })],
  ["Closer", "index.d.ts", "CloserSetup", (extra) => new Closer({ workingDir: "", agentId: "a", ...extra })],
  ["Watcher", "index.d.ts", "WatcherSetup", (extra) => new Watcher({ agentId: "a", store: new MemoryStore(), ...extra })],
  ["createGovernor", "index.d.ts", "GovernorPorts", (extra) => createGovernor({ llm, store: new MemoryStore(), ...extra })],
  ["GatedPlaybook", "index.d.ts", "GatedPlaybookSetup", (extra) => new GatedPlaybook({ ...extra })],
  ["decideCompletion", "index.d.ts", "DecisionOptions", (extra) => decideCompletion({ checklist: [], allComplete: false, confidence: 0.5, summary: "", pendingActions: [] }, extra)],
  ["governToolCalls", "index.d.ts", "GovernToolCallsOptions", (extra) => governToolCalls({}, { store: new MemoryStore(), keys, ...extra })],
  ["governGraphTools", "langgraph/index.d.ts", "GovernGraphToolsOptions", (extra) => governGraphTools({}, { store: new MemoryStore(), keys, ...extra })],
  ["createOtlpExporter", "index.d.ts", "OtlpExporterOptions", (extra) => createOtlpExporter({ endpoint: "http://127.0.0.1:4318/v1/traces", fetch: async () => new Response(), ...extra })],
  ["createControlLoop", "index.d.ts", "ControlLoopConfig", (extra) => createControlLoop({ goal: "g", judge: llm, ...extra }).stop?.()],
];

for (const [name, file, type, call] of APIS) {
  test(`${name}: every option ${type} declares is one it reads`, async () => {
    const members = declared(dist(file), type);
    assert.ok(members.length > 0, `${type} declares no members`);
    for (const member of members) {
      try {
        await call({ [member]: undefined });
      } catch (error) {
        assert.doesNotMatch(error.message, /is not an option|is not a known field/, `${type}.${member}`);
      }
    }
  });
}

test("the JavaScript tables hold exactly the members their declarations name", () => {
  assert.deepEqual(Object.keys(EXECUTOR_OPTIONS).sort(), declared(dist("index.d.ts"), "ExecutorPorts").filter((member) => member !== "skill" && member !== "skills"));
  assert.deepEqual(Object.keys(GOVERN_TOOL_CALLS_OPTIONS).sort(), declared(dist("index.d.ts"), "GovernToolCallsOptions"));
  assert.deepEqual(
    Object.keys(GOVERN_TOOL_CALLS_OPTIONS).filter((member) => member !== "keepOutputs").sort(),
    declared(dist("langgraph/index.d.ts"), "GovernGraphToolsOptions"),
  );
});
