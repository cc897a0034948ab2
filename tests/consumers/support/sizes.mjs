// What a consumer's build emitted, in bytes (raw and gzip -9, summed per file as a server sends them), reported as
// a `[consumer] name js=... wasm=...` line and kept in tests/consumers/results.json (one entry per consumer).
import { existsSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { extname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";

const resultsFile = fileURLToPath(new URL("../results.json", import.meta.url));
const kinds = { ".js": "js", ".mjs": "js", ".cjs": "js", ".wasm": "wasm" };

function* walk(directory) {
  for (const entry of readdirSync(directory, { withFileTypes: true })) {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) yield* walk(path);
    else yield path;
  }
}

/** JS and wasm bytes of every file under `directory` (source maps and HTML left out). */
export function measure(directory) {
  const sizes = { js: { raw: 0, gzip: 0 }, wasm: { raw: 0, gzip: 0 }, files: {} };
  for (const path of walk(directory)) {
    const kind = kinds[extname(path)];
    if (!kind) continue;
    const bytes = readFileSync(path);
    const gzip = gzipSync(bytes, { level: 9 }).length;
    sizes[kind].raw += bytes.length;
    sizes[kind].gzip += gzip;
    sizes.files[relative(directory, path)] = { raw: bytes.length, gzip };
  }
  return sizes;
}

const kb = (bytes) => `${(bytes / 1024).toFixed(1)}K`;

/** Reports `sizes` for consumer `name` on the test `t` and in results.json. */
export function recordSizes(t, name, sizes) {
  const line = `[consumer] ${name} js=${kb(sizes.js.raw)} (gzip ${kb(sizes.js.gzip)}) wasm=${kb(sizes.wasm.raw)} (gzip ${kb(sizes.wasm.gzip)})`;
  t.diagnostic(line);
  let results = {};
  try {
    if (existsSync(resultsFile)) results = JSON.parse(readFileSync(resultsFile, "utf8"));
  } catch {
    results = {};
  }
  results[name] = { ...sizes, at: new Date().toISOString() };
  writeFileSync(resultsFile, `${JSON.stringify(results, null, 2)}\n`);
}
