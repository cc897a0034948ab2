// Every code block of the README runs as written, in the host it names (`<!-- runs in: node | browser | worker -->`
// above it), and prints what the README says it prints; an LLM endpoint is the scripted test server, an OTLP
// endpoint a local receiver. The npm page shows the README from the tarball alone, so its links and images are
// absolute.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdirSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { join } from "node:path";
import { promisify } from "node:util";
import { after, before, test } from "node:test";
import { buildSync } from "esbuild";
import { freePort, launchChromium, repoRoot, startEdgeWorker } from "./helpers.mjs";
import { startTaskBoard } from "../../examples/task-board.mjs";
import { INBOX, startGuardService } from "./edge-service-support.mjs";
import { PASSING_VERDICT, completeChecklist, modelUrl, startScriptedModel } from "./support/scripted-model.mjs";

const readme = readFileSync(join(repoRoot, "README.md"), "utf8");
const directory = join(repoRoot, "target", "readme");
/** The README, then every page of docs/ it links to: their code blocks run alike. */
const pages = [
  ["README.md", readme],
  ...readdirSync(join(repoRoot, "docs"))
    .filter((name) => name.endsWith(".md"))
    .sort()
    .map((name) => [`docs/${name}`, readFileSync(join(repoRoot, "docs", name), "utf8")]),
];

/**
 * Each ```js block with its host and, when the page shows one, the output that follows it ("prints"); `line`
 * names the page and the line (`docs/closer.md:42`). The README's blocks come first.
 */
function snippets() {
  const found = [];
  const block = /(?:<!-- runs in: (\w+) -->\n[ \t]*)?```js\n([\s\S]*?)[ \t]*```\n(?:\nprints\n\n```\n([\s\S]*?)```\n)?/g;
  for (const [file, text] of pages) {
    for (const match of text.matchAll(block)) {
      const line = `${file}:${text.slice(0, match.index).split("\n").length}`;
      found.push({ host: match[1], code: match[2], prints: match[3], line });
    }
  }
  return found;
}

const insight = { reasoning: "r", error_identification: "stopped at page 1", root_cause_analysis: "one page read", correct_approach: "read every page", key_insight: "Read every page before summing." };

/** The scripted model's answer for a structured-output request, by the shape its schema asks for. */
function answerFor(_name, schema) {
  const fields = Object.keys(schema.properties ?? {});
  if (fields.includes("checklist")) return completeChecklist("the login endpoint is implemented and tested");
  if (fields.includes("pass")) return PASSING_VERDICT;
  if (fields.includes("insights")) return { insights: [insight], bullet_evaluations: [] };
  throw new Error(`no scripted answer for a schema with ${fields.join(", ")}`);
}

/** The scripted model's tool call, for the adapter examples: the tool they offer, with fixed arguments. */
const TOOL_ARGUMENTS = { sendEmail: { to: "bob@example.com", subject: "Q3 numbers" }, send_email: { to: "bob@example.com", subject: "Q3 numbers" } };
function toolCallFor(body) {
  const name = body.tools.map((tool) => tool.function.name).find((offered) => offered in TOOL_ARGUMENTS);
  if (!name) throw new Error(`no scripted tool call among ${body.tools.map((tool) => tool.function.name).join(", ")}`);
  return { name, arguments: TOOL_ARGUMENTS[name] };
}

/** An OTLP/HTTP receiver for the telemetry example: it takes every request. */
function startOtlpReceiver() {
  const server = createServer((request, response) => {
    request.resume();
    request.on("end", () => {
      response.writeHead(200, { "content-type": "application/json" });
      response.end("{}");
    });
  });
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve(server)));
}

let model;
let board;
let guard;
let otlp;

before(async () => {
  rmSync(directory, { recursive: true, force: true });
  mkdirSync(join(directory, "node_modules"), { recursive: true });
  // The README's imports name the package: resolve it to this checkout, as an installed copy would be.
  symlinkSync(repoRoot, join(directory, "node_modules", "agent-governor"), "dir");
  model = await startScriptedModel(answerFor, { toolCallFor });
  board = await startTaskBoard();
  guard = await startGuardService(board);
  otlp = await startOtlpReceiver();
});

after(async () => {
  model?.close();
  await guard?.dispose();
  await board?.close();
  otlp?.close();
});

test("every code block names the host it runs in", () => {
  const all = snippets();
  assert.ok(all.length >= 8, `${all.length} code blocks`);
  for (const snippet of all) assert.ok(["node", "browser", "worker"].includes(snippet.host), `${snippet.line}: no host`);
  assert.equal(all.filter((snippet) => snippet.host === "browser").length, 1);
  assert.equal(all.filter((snippet) => snippet.host === "worker").length, 1);
});

test("the README starts with the install command and quick starts for Node, a browser bundler and a Worker", () => {
  const install = readme.indexOf("npm install agent-governor");
  assert.ok(install > 0 && install < readme.indexOf("## Quick start"));
  for (const heading of ["### Node", "### Browser", "### Cloudflare Worker"]) assert.ok(readme.includes(`\n${heading}`), heading);
  assert.ok(readme.indexOf("## The two commands") > readme.indexOf("### The control loop"), "the repository's own material comes last");
  assert.ok(readme.split("\n").length <= 450, "the README is a front door: the reference is in docs/");
  for (const quickStart of snippets().slice(0, 3)) {
    assert.ok(quickStart.code.trim().split("\n").length <= 12, `the quick start at ${quickStart.line} is short`);
  }
});

test("every page of docs/ is linked from the README, and every docs link names a page that exists", () => {
  for (const [file] of pages.slice(1)) {
    assert.ok(readme.includes(`https://github.com/agent-governor/agent-governor/blob/main/${file})`), `${file} is linked from the README`);
  }
  for (const [, page] of [...readme.matchAll(/blob\/main\/(docs\/[\w.-]+\.md)/g)]) {
    assert.ok(pages.some(([file]) => file === page), `${page} exists`);
  }
});

test("links and images are absolute (the npm page has no repository files)", () => {
  const relative = [...readme.matchAll(/\]\(([^)#][^)]*)\)|src="([^"]+)"/g)]
    .map((match) => match[1] ?? match[2])
    .filter((target) => !/^https:\/\//.test(target));
  assert.deepEqual(relative, []);
});

test("the Node blocks run as written and print what the README shows", async () => {
  const env = { ...process.env, LLM_BASE_URL: modelUrl(model), GUARD_URL: guard.url, INBOX_TOKEN: INBOX, OTLP_ENDPOINT: `http://127.0.0.1:${otlp.address().port}/v1/traces` };
  for (const [index, snippet] of snippets().entries()) {
    if (snippet.host !== "node") continue;
    const file = join(directory, `block-${index}.mjs`);
    writeFileSync(file, snippet.code);
    // Not spawnSync: the scripted model answers from this process's event loop.
    const run = await promisify(execFile)(process.execPath, [file], { encoding: "utf8", env, timeout: 60_000 }).catch((error) => error);
    assert.equal(run.code ?? 0, 0, `${snippet.line}: ${run.stderr}`);
    if (snippet.prints !== undefined) assert.equal(run.stdout, snippet.prints, `${snippet.line}`);
    else assert.notEqual(run.stdout.trim(), "", `${snippet.line} prints something`);
  }
});

test("the browser block, bundled by esbuild with its defaults, runs in Chromium and logs pass", async () => {
  const snippet = snippets().find((candidate) => candidate.host === "browser");
  writeFileSync(join(directory, "browser.js"), snippet.code);
  buildSync({ entryPoints: [join(directory, "browser.js")], bundle: true, outfile: join(directory, "browser-bundle.js"), logLevel: "warning" });
  const files = {
    "/": ["text/html", '<!doctype html><meta charset="utf-8"><title>readme</title><script src="/bundle.js"></script>'],
    "/bundle.js": ["text/javascript", readFileSync(join(directory, "browser-bundle.js"))],
  };
  const server = createServer((request, response) => {
    const file = files[request.url];
    response.writeHead(file ? 200 : 404, { "content-type": file?.[0] ?? "text/plain" });
    response.end(file?.[1] ?? "");
  });
  const port = await freePort();
  await new Promise((resolve) => server.listen(port, "127.0.0.1", resolve));
  const browser = await launchChromium();
  try {
    const page = await browser.context.newPage();
    const logged = [];
    const errors = [];
    page.on("console", (message) => logged.push(message.text()));
    page.on("pageerror", (error) => errors.push(error.message));
    const printed = new Promise((resolve) => page.on("console", (message) => resolve(message.text())));
    // 127.0.0.1 is a secure context, so WebCrypto's Ed25519 is there.
    await page.goto(`http://127.0.0.1:${port}/`);
    const first = await Promise.race([printed, new Promise((resolve) => setTimeout(() => resolve(`nothing logged; errors: ${errors.join("; ")}`), 15_000))]);
    assert.equal(first, "pass", `logged: ${logged.join(" | ")}; errors: ${errors.join("; ")}`);
  } finally {
    await browser.close();
    server.close();
  }
});

test("the Worker block runs in workerd (wrangler dev): a signed confirmation passes, an altered one is 403", async () => {
  const snippet = snippets().find((candidate) => candidate.host === "worker");
  const workerDirectory = join(directory, "worker");
  mkdirSync(workerDirectory, { recursive: true });
  writeFileSync(join(workerDirectory, "worker.js"), snippet.code);
  writeFileSync(join(workerDirectory, "wrangler.toml"), 'name = "readme-worker"\nmain = "worker.js"\ncompatibility_date = "2025-09-01"\n');
  const approver = { keyId: "dashboard", secret: "at-least-32-bytes-of-secret-for-hmac!" };
  const worker = await startEdgeWorker({ APPROVER_KEY_ID: approver.keyId, APPROVER_SECRET: approver.secret }, { dir: join("target", "readme", "worker") });
  try {
    const { issueConfirmation } = await import("agent-governor/guard");
    const confirmation = issueConfirmation(
      { node_id: "T-1", proposed_change: { type: "status_change", from: "todo", to: "done" }, intent: "i", reason: "r", ui_action: "approve_button" },
      approver,
    );
    const ask = (body) => fetch(worker.url, { method: "POST", body: JSON.stringify(body) });
    const passed = await ask({ confirmation, currentStatus: "todo" });
    assert.equal(passed.status, 200);
    assert.equal((await passed.json()).verdict, "pass");
    const altered = await ask({ confirmation: { ...confirmation, intent: "something else" }, currentStatus: "todo" });
    assert.equal(altered.status, 403);
    assert.equal((await altered.json()).phase, "signature_invalid");
  } finally {
    await worker.stop();
  }
});
