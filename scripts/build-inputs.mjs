// The fingerprint of everything the package build reads: the crate's sources, prompts and manifests, the
// JS entry points it copies, the build scripts, and the toolchain versions. `scripts/build.sh` skips the
// build when dist/ was made from the same inputs. Usage: node scripts/build-inputs.mjs  (prints the digest)
import { createHash } from "node:crypto";
import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const INPUTS = ["src", "js", "prompts", "Cargo.toml", "Cargo.lock", "scripts/build.sh", "scripts/release-wasm.sh", "scripts/size-budget.mjs", "scripts/build-inputs.mjs", "scripts/package-entries.mjs"];

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
