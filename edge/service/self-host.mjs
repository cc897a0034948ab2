#!/usr/bin/env node
// Self-hosting the edge guard on the open-source workerd (no Cloudflare account): bundles the service with
// `wrangler deploy --dry-run` and writes a workerd config beside the bundle, with SQLite-backed Durable Object
// storage on local disk and every secret read from the environment.
//
//   node edge/service/self-host.mjs OUT_DIR [--port 8787] [--state STATE_DIR]
//   AGENT_TOKENS=... INBOX_TOKEN=... ADMIN_TOKEN=... SEAL_KEY=... RECEIPT_SIGNING_KEY=... \
//     npx workerd serve OUT_DIR/workerd.capnp --experimental
//
// The vars of wrangler.toml (SKILLS, RP_ID, ORIGINS, INBOX_NAME, MAX_BODY_BYTES) are read from the
// environment too, with wrangler.toml's values as defaults.
import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { isAbsolute, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const serviceDir = fileURLToPath(new URL(".", import.meta.url));
const SECRETS = ["AGENT_TOKENS", "INBOX_TOKEN", "ADMIN_TOKEN", "SEAL_KEY", "RECEIPT_SIGNING_KEY", "SKILL_TOKEN", "AUDIENCE"];

function options(argv) {
  const [outDir, ...rest] = argv;
  if (!outDir) throw new Error("usage: node edge/service/self-host.mjs OUT_DIR [--port 8787] [--state STATE_DIR]");
  const flag = (name, fallback) => {
    const at = rest.indexOf(name);
    return at === -1 ? fallback : rest[at + 1];
  };
  const out = resolve(outDir);
  const state = flag("--state", join(out, "state"));
  return { out, port: Number(flag("--port", "8787")), state: isAbsolute(state) ? state : resolve(state) };
}

/** The [vars] of wrangler.toml: simple `NAME = "value"` lines (the file's own format). */
function wranglerVars() {
  const text = readFileSync(join(serviceDir, "wrangler.toml"), "utf8");
  const section = text.split(/^\[vars\]\s*$/m)[1]?.split(/^\[/m)[0] ?? "";
  const vars = {};
  for (const match of section.matchAll(/^([A-Z_]+)\s*=\s*(?:'([^']*)'|"([^"]*)")\s*$/gm)) vars[match[1]] = match[2] ?? match[3];
  return vars;
}

const capnpText = (value) => JSON.stringify(String(value));

export function bundle({ out, port, state }) {
  mkdirSync(out, { recursive: true });
  mkdirSync(state, { recursive: true });
  const wrangler = join(serviceDir, "..", "..", "node_modules", ".bin", "wrangler");
  execFileSync(wrangler, ["deploy", "--dry-run", "--outdir", out], { cwd: serviceDir, stdio: "pipe" });
  const wasm = readdirSync(out).filter((name) => name.endsWith(".wasm"));
  const bindings = [
    `(name = "INBOX", durableObjectNamespace = "ApprovalInbox")`,
    ...Object.entries(wranglerVars()).map(([name, value]) => `(name = ${capnpText(name)}, fromEnvironment = ${capnpText(name)})`),
    ...SECRETS.map((name) => `(name = ${capnpText(name)}, fromEnvironment = ${capnpText(name)})`),
  ];
  const config = `# The edge guard on workerd: written by edge/service/self-host.mjs.
using Workerd = import "/workerd/workerd.capnp";

const config :Workerd.Config = (
  services = [
    (name = "guard", worker = .guard),
    (name = "state", disk = (path = ${capnpText(state)}, writable = true)),
    (name = "internet", network = (allow = ["public", "private", "local"])),
  ],
  sockets = [(name = "http", address = ${capnpText(`*:${port}`)}, http = (), service = "guard")],
);

const guard :Workerd.Worker = (
  modules = [
    (name = "worker.js", esModule = embed "worker.js"),
${wasm.map((name) => `    (name = ${capnpText(name)}, wasm = embed ${capnpText(name)}),`).join("\n")}
  ],
  compatibilityDate = "2026-04-01",
  bindings = [
${bindings.map((binding) => `    ${binding},`).join("\n")}
  ],
  durableObjectNamespaces = [(className = "ApprovalInbox", uniqueKey = "agent-governor-approval-inbox", enableSql = true)],
  durableObjectStorage = (localDisk = "state"),
  globalOutbound = "internet",
);
`;
  writeFileSync(join(out, "workerd.capnp"), config);
  // The defaults of wrangler.toml's vars, for a shell to source before `workerd serve`.
  const defaults = Object.entries(wranglerVars()).map(([name, value]) => `export ${name}=${JSON.stringify(value)}`);
  writeFileSync(join(out, "vars.sh"), `# wrangler.toml's [vars] as defaults; override any before serving.\n${defaults.join("\n")}\n`);
  return join(out, "workerd.capnp");
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  try {
    const config = bundle(options(process.argv.slice(2)));
    process.stdout.write(`${config}\n`);
  } catch (error) {
    process.stderr.write(`${error.message}\n`);
    process.exit(1);
  }
}
