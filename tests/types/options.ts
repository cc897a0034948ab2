// A misspelt option is a type error as well as a typed error at run time: the options' declarations name
// every option and nothing else (no index signature), so `tsc --strict` refuses each line marked below.
import { Closer, Executor, GatedPlaybook, Guard, MemoryStore, createControlLoop, createOtlpExporter, governToolCalls } from "agent-governor";
import { generateApproverKey } from "agent-governor/approver";
import { init } from "agent-governor/init";

const store = new MemoryStore();
const skill = { preview: async () => ({ current_status: "" }), apply: async () => ({ status: 200, body: {} }) };

new Executor({ store, skill, keys: {}, audience: "inbox", sealKey: "k".repeat(32) });
// @ts-expect-error `sealkey` is not an option (`sealKey` is)
new Executor({ store, skill, keys: {}, sealkey: "k".repeat(32) });
// @ts-expect-error `audiance` is not an option (`audience` is)
new Guard({ keys: {}, audiance: "inbox" });
// @ts-expect-error `whiteList` is not an option (`whitelist` is)
governToolCalls({}, { store, keys: {}, whiteList: [] });
// @ts-expect-error `clockSkew` is not an option (`clockSkewMs` is)
governToolCalls({}, { store, keys: {}, clockSkew: 1 });
// @ts-expect-error `confidenceTreshold` is not an option (`confidenceThreshold` is)
new Closer({ workingDir: "", agentId: "a", confidenceTreshold: 0.9 });
// @ts-expect-error `polcy` is not an option (`policy` is)
new GatedPlaybook({ polcy: {} });
// @ts-expect-error `maxQeue` is not an option (`maxQueue` is)
createOtlpExporter({ endpoint: "http://127.0.0.1:4318/v1/traces", maxQeue: 10 });
// @ts-expect-error `privilegedprefix` is not an option (`privilegedPrefix` is)
createControlLoop({ goal: "g", judge: async () => ({}), privilegedprefix: "/dev" });
// @ts-expect-error `keyid` is not an option (`keyId` is)
void generateApproverKey({ keyid: "a" });
// @ts-expect-error `module_or_pth` is not an option (`module_or_path` is)
void init({ module_or_pth: "x.wasm" });
