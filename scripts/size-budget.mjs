// Size budgets of the shipped WebAssembly modules, checked by every build (sizes are deterministic, so this
// is a check, not a timed test). Usage: node scripts/size-budget.mjs [--quiet] FULL_WASM GUARD_WASM
//
// Gzip bytes (-9). `budget` is the size the modules must come down to; until they do, the build enforces
// `ceiling` (the measured size plus a little room, lowered as a module shrinks, raised only when a component
// is added, by its measured cost); once a module is within its budget, its ceiling is removed and the budget
// is what the build enforces.
// `longTerm` is the goal beyond the budget. The build says how far each module is from each;
// bench/size.sh shows where the bytes are (per crate) and bench/RESULTS.md keeps the ledger of every change.
import { readFileSync } from "node:fs";
import { gzipSync } from "node:zlib";

const budgets = {
  // 2026-11-25: 1,302,393 raw / 527,726 gzip on stable Rust; 1,143,057 / 467,924 with the release toolchain
  // rebuilding std for size with the immediate-abort panic strategy (scripts/release-wasm.sh). Then
  // `Guard.checkAsync` (ES256 verified by the host's WebCrypto): 1,150,559 / 471,661 (+3,737). Then the
  // playbook's acceptance gate (`GatedPlaybook`): 1,211,726 / 495,514 (+23,853). Then the change digest, who
  // approved and the outcome on the loop's telemetry records: 496,433 (+919). The gated playbook's storage
  // in the core instead of the binding: 496,822 (+389). One action, one run (the action ledger, the signed
  // action id, the idempotency key): 502,333 (+5,511). Numbers read correctly rounded (serde_json's
  // `float_roundtrip`): 510,366 (+8,033). Only JSON crosses into an approval (the exact reader of tool
  // arguments) and refusals that name the action's run: 512,707 (+2,341). Corrections never ignored: 517,182
  // (+4,475). The person and the agent talk (a decline's words and memory, replies in their own quoted
  // section, an edit before the y): 524,785 (+7,603). A change the world moved away from is not applied and no failure
  // (`ExecutionFinished.not_applied`): 525,270 (+485).
  full: { budget: 260_000, longTerm: 150_000, ceiling: 542_000 },
  // 2026-11-25: 420,163 raw / 179,735 gzip on stable Rust; 366,867 / 160,349 with std rebuilt for size.
  // Then `Guard.checkAsync`: 374,380 / 163,828 (+3,479). Then one action, one run: 385,296 / 169,302 (+5,474).
  // Then numbers read correctly rounded: 400,243 / 177,455 (+8,153). Then the exact JSON reader of tool
  // arguments and refusals that name the action's run: 405,148 / 179,293 (+1,838).
  guard: { budget: 90_000, longTerm: 50_000, ceiling: 203_000 },
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
  const { budget, longTerm, ceiling } = budgets[name];
  const enforced = ceiling ?? budget;
  const distance = (goal, label) => (gzip <= goal ? `within the ${goal}-byte ${label}` : `${gzip - goal} bytes above the ${goal}-byte ${label}`);
  if (!quiet) {
    console.log(`[size] ${name}: ${bytes.length} bytes raw, ${gzip} bytes gzip; ${distance(budget, "budget")}; ${distance(longTerm, "long-term target")}; enforced: ${enforced}`);
  }
  if (gzip > enforced) {
    console.error(`[size] ${name} module grew past its enforced size (${gzip} > ${enforced} bytes gzip): see bench/size.sh`);
    failed = true;
  }
}
process.exit(failed ? 1 : 0);
