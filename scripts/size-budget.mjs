// Size budgets of the shipped WebAssembly modules, checked by every build (sizes are deterministic, so this
// is a check, not a timed test). Usage: node scripts/size-budget.mjs [--quiet] FULL_WASM GUARD_WASM
//
// `target` is the goal in gzip bytes (-9). `ceiling` is what the build enforces today: the measured size plus
// a little room, lowered as the module shrinks; raised only when a component is added, by its measured cost. While a module is
// above its target, the build says by how much; bench/size.sh shows where the bytes are (per crate).
import { readFileSync } from "node:fs";
import { gzipSync } from "node:zlib";

const budgets = {
  // measured 2026-11-23: 1,085,096 raw / 445,702 gzip; approver-held keys (Ed25519, WebAuthn ES256/EdDSA
  // verification, signed human actions) added about 42,800 gzip (see bench/RESULTS.md). Then the control
  // loop's write-ahead, machine-rendered approvals, reconcile and byte bounds: 1,171,057 raw / 475,714 gzip
  // (+30,012, of which +692 the 64 MiB log helpers; mostly serde code for the new state, events and effects)
  // Then the model-answer formats (final answers decide, templates refused, reasoning as servers emit it,
  // finish_reason, display noise, tool-call wrappers in the text) and the receipt key as served:
  // 1,266,900 raw / 514,199 gzip (+21,664 over 492,535), with the rules three rounds of attacks added.
  // Then the seeds as written (list bounds as named options in every schema, the Watcher's seed output shape
  // and approval criteria, executor results with other fields, persona prompts resolved apart, the async
  // completion handler): 1,284,585 raw / 522,134 gzip (+7,935). Then the person's side of the control loop
  // (the command action kind, a withdrawn request, log lines, Japanese change lines): 1,288,806 / 523,247.
  // Then governed tool calls (toolCallChange, 526,689) and Discord's request signatures (verifyDiscordRequest,
  // 527,726: +1,037).
  full: { target: 150_000, ceiling: 528_000 },
  // measured 2026-11-23: 345,593 raw / 149,319 gzip with approver-held keys (+40,959 over 108,360)
  // Then the edge guard's trust work (170,100), Discord's request signatures (verifyDiscordRequest:
  // 171,617 -> 173,512, +1,895), and tool calls as changes for the edge's MCP gateway (toolCallChange:
  // 179,735, +6,223: RFC 8785 canonical JSON, its UTF-16 member sort and ES number digits).
  guard: { target: 50_000, ceiling: 180_000 },
};

const args = process.argv.slice(2);
// --quiet: say nothing unless a module is over its ceiling (the build's check); the figures are for tests and bench/.
const quiet = args[0] === "--quiet";
const [fullPath, guardPath] = quiet ? args.slice(1) : args;
if (!fullPath || !guardPath) {
  console.error("usage: node scripts/size-budget.mjs [--quiet] FULL_WASM GUARD_WASM");
  process.exit(2);
}

let failed = false;
for (const [name, path] of [["full", fullPath], ["guard", guardPath]]) {
  const bytes = readFileSync(path);
  const gzip = gzipSync(bytes, { level: 9 }).length;
  const { target, ceiling } = budgets[name];
  const status = gzip <= target ? "within target" : `${gzip - target} bytes above the ${target}-byte target`;
  if (!quiet) console.log(`[size] ${name}: ${bytes.length} bytes raw, ${gzip} bytes gzip; ${status}; ceiling ${ceiling}`);
  if (gzip > ceiling) {
    console.error(`[size] ${name} module grew past its ceiling (${gzip} > ${ceiling} bytes gzip): see bench/size.sh`);
    failed = true;
  }
}
process.exit(failed ? 1 : 0);
