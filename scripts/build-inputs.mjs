// The fingerprint of what the package build reads. `scripts/build.sh` skips a stage whose inputs are unchanged:
//   wasm     what the two WebAssembly modules are made from: the crate's sources, prompts and manifests, the
//            scripts that compile them, and the toolchain versions
//   package  all of the above, and the JavaScript it copies beside them and the script writing the entries
// Usage: node scripts/build-inputs.mjs [wasm|package]  (prints the digest; package by default)
import { createHash } from "node:crypto";
import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const WASM_INPUTS = ["src", "prompts", "Cargo.toml", "Cargo.lock", "scripts/build.sh", "scripts/release-wasm.sh", "scripts/build-inputs.mjs"];
const PACKAGE_INPUTS = [...WASM_INPUTS, "js", "scripts/size-budget.mjs", "scripts/package-entries.mjs"];
const stage = process.argv[2] ?? "package";
if (stage !== "wasm" && stage !== "package") {
  console.error("usage: node scripts/build-inputs.mjs [wasm|package]");
  process.exit(2);
}
const INPUTS = stage === "wasm" ? WASM_INPUTS : PACKAGE_INPUTS;

function files(path) {
  const stat = statSync(path, { throwIfNoEntry: false });
  if (!stat) return [];
  if (stat.isFile()) return [path];
  return readdirSync(path)
    .sort()
    .flatMap((name) => files(join(path, name)));
}

function version(command, args) {
  try {
    return execFileSync(command, args, { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim();
  } catch {
    return `${command}: missing`;
  }
}

const hash = createHash("sha256");
for (const file of INPUTS.flatMap((input) => files(join(root, input)))) {
  hash.update(relative(root, file));
  hash.update("\0");
  hash.update(readFileSync(file));
  hash.update("\0");
}
hash.update(version("rustc", ["-V"]));
const releaseToolchain = /^RELEASE_TOOLCHAIN=(\S+)$/m.exec(readFileSync(join(root, "scripts/release-wasm.sh"), "utf8"))?.[1];
hash.update(version("rustc", [`+${releaseToolchain}`, "-V"]));
hash.update(version("wasm-bindgen", ["--version"]));
console.log(hash.digest("hex"));
