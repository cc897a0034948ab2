// Running the guard for real: `wrangler deploy --dry-run` bundles the service with no account and no
// network, and never ships the local demo secrets; the same bundle serves on the open-source workerd with
// the config edge/service/self-host.mjs writes (SQLite Durable Objects on local disk, secrets from the
// environment).
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn, execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { freePort, waitForHttp } from "../../scripts/wrangler-dev.mjs";
import { bundle } from "../../edge/service/self-host.mjs";

const repoRoot = fileURLToPath(new URL("../..", import.meta.url));
const serviceDir = join(repoRoot, "edge", "service");
const workerd = join(repoRoot, "node_modules", "@cloudflare", "workerd-linux-64", "bin", "workerd");

test("wrangler deploy --dry-run bundles the service with its wasm, the Durable Object and no demo secret", () => {
  const out = mkdtempSync(join(tmpdir(), "guard-deploy-"));
  try {
    const printed = execFileSync(join(repoRoot, "node_modules", ".bin", "wrangler"), ["deploy", "--dry-run", "--outdir", out], {
      cwd: serviceDir,
      encoding: "utf8",
      env: { ...process.env, WRANGLER_SEND_METRICS: "false" },
    });
    const files = readdirSync(out);
    assert.ok(files.includes("worker.js"), files.join(", "));
    assert.equal(files.filter((name) => name.endsWith(".wasm")).length, 1, "the guard module's wasm is bundled beside the worker");
    assert.match(printed, /env\.INBOX \(ApprovalInbox\)\s+Durable Object/);
    for (const secret of ["AGENT_TOKENS", "INBOX_TOKEN", "ADMIN_TOKEN", "SEAL_KEY"]) assert.doesNotMatch(printed, new RegExp(`env\\.${secret}\\b`), `${secret} is a secret, never a var`);
    const worker = readFileSync(join(out, "worker.js"), "utf8");
    assert.doesNotMatch(worker, /demo-token|demo-seal-key/);
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
});

test("the bundle serves on the open-source workerd: SQLite state on disk, secrets from the environment", async () => {
  const out = mkdtempSync(join(tmpdir(), "guard-selfhost-"));
  const port = await freePort();
  const config = bundle({ out, port, state: join(out, "state") });
  const env = {
    ...process.env,
    INBOX_NAME: "default",
    SKILLS: JSON.stringify({ status_change: "http://127.0.0.1:9" }),
    RP_ID: "localhost",
    ORIGINS: "http://localhost:8080",
    MAX_BODY_BYTES: "65536",
    AGENT_TOKENS: "self-host-agent",
    INBOX_TOKEN: "self-host-inbox",
    ADMIN_TOKEN: "self-host-admin",
    SEAL_KEY: "self-host-seal-key-0123456789abcdef0123456789",
    RECEIPT_SIGNING_KEY: "",
    SKILL_TOKEN: "",
    AUDIENCE: "",
  };
  const server = spawn(workerd, ["serve", config, "--experimental"], { cwd: out, env, stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  server.stdout.on("data", (chunk) => (output += chunk));
  server.stderr.on("data", (chunk) => (output += chunk));
  let exited = false;
  server.on("exit", () => (exited = true));
  try {
    const base = `http://127.0.0.1:${port}`;
    const root = await waitForHttp(`${base}/`, 20_000, () => !exited);
    assert.equal(root.status, 200, output);
    assert.equal((await root.json()).service, "agent-governor edge guard");
    const enroll = (token) =>
      fetch(`${base}/v1/enrollments`, {
        method: "POST",
        headers: { "content-type": "application/json", ...(token ? { authorization: `Bearer ${token}` } : {}) },
        body: JSON.stringify({ approver: "alice" }),
      });
    assert.equal((await enroll(null)).status, 401);
    const enrolled = await enroll("self-host-admin");
    assert.equal(enrolled.status, 201, output);
    assert.match((await enrolled.json()).enrollment_code, /^[0-9a-f-]{36}$/);
    const key = await fetch(`${base}/v1/receipts/key`);
    assert.equal((await key.json()).type, "ed25519");
    assert.ok(readdirSync(join(out, "state"), { recursive: true }).some((name) => String(name).endsWith(".sqlite")), "the inbox's SQLite database is on disk");
  } finally {
    server.kill("SIGKILL");
    rmSync(out, { recursive: true, force: true });
  }
});
