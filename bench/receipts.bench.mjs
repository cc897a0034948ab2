// Verifying an inbox's receipts offline: `verifyReceipts` over a chain of 10,000 receipts signed with a guard's
// Ed25519 key (every signature, the sequence and each link's digest, in the wasm core), against the host's own
// WebCrypto verifying the same 10,000 Ed25519 signatures alone (no chain, no parsing: the floor any verifier
// pays). In Node and in headless Chromium. Figures and ratios, never assertions:
// `node bench/receipts.bench.mjs` after `npm run build`.
import { startServer } from "../examples/serve.mjs";
import { launchChromium } from "../tests/js/helpers.mjs";

const COUNT = Number(process.env.COUNT ?? 10_000);

/** Runs in Node and in the page (serialised by Playwright): signs a chain, checks it verifies, then times. */
async function measure({ specifier, count }) {
  const { canonicalReceipt, generateApproverKey, receiptDigest, signReceipt, verifyReceipts } = await import(specifier);
  const subtle = globalThis.crypto.subtle;
  const guardKey = await generateApproverKey({ keyId: "guard-1" });
  const chain = [];
  for (let seq = 1; seq <= count; seq += 1) {
    const unsigned = {
      seq,
      approval_id: `approval-${seq}`,
      change_digest: "5f".repeat(32),
      approver: "alice/laptop",
      outcome: seq % 7 === 0 ? "rejected" : "applied",
      at: new Date(Date.UTC(2026, 10, 24) + seq * 1000).toISOString(),
      prev: chain.length === 0 ? null : receiptDigest(chain.at(-1)),
    };
    chain.push(await signReceipt(unsigned, guardKey));
  }
  const verdict = verifyReceipts(chain, guardKey.publicKey);
  if (verdict.verdict !== "valid" || verdict.count !== count) throw new Error(JSON.stringify(verdict));

  // The peer's inputs, prepared outside the timing: the signed bytes and the signatures as bytes.
  const publicKey = await subtle.importKey(
    "raw",
    Uint8Array.from(atob(guardKey.publicKey.public_key.replace(/-/g, "+").replace(/_/g, "/") + "="), (c) => c.charCodeAt(0)),
    { name: "Ed25519" },
    false,
    ["verify"],
  );
  const messages = chain.map((receipt) => canonicalReceipt(receipt));
  const signatures = chain.map((receipt) => Uint8Array.from(receipt.signature.match(/../g), (byte) => parseInt(byte, 16)));

  const rounds = 5;
  const ours = [];
  const peer = [];
  for (let round = 0; round < rounds; round += 1) {
    let started = performance.now();
    const result = verifyReceipts(chain, guardKey.publicKey);
    ours.push(performance.now() - started);
    if (result.verdict !== "valid") throw new Error("did not verify");
    started = performance.now();
    for (let index = 0; index < count; index += 1) {
      if (!(await subtle.verify({ name: "Ed25519" }, publicKey, signatures[index], messages[index]))) throw new Error("did not verify");
    }
    peer.push(performance.now() - started);
  }
  const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
  return { count, oursMs: median(ours), peerMs: median(peer) };
}

function print(host, { count, oursMs, peerMs }) {
  const perOurs = (oursMs / count) * 1000;
  const perPeer = (peerMs / count) * 1000;
  console.log(
    `${host.padEnd(28)} ${String(count).padStart(6)} receipts  verifyReceipts ${oursMs.toFixed(1).padStart(8)} ms (${perOurs.toFixed(1)} µs each)  WebCrypto Ed25519 verify alone ${peerMs.toFixed(1).padStart(8)} ms (${perPeer.toFixed(1)} µs each)  ratio ${(perOurs / perPeer).toFixed(2)}x`,
  );
}

console.log(`receipt chain verification: ${COUNT} receipts, median of 5 rounds`);
print(`Node ${process.version}`, await measure({ specifier: "agent-governor/guard", count: COUNT }));

const server = await startServer(0);
const baseUrl = `http://127.0.0.1:${server.address().port}/`;
const browser = await launchChromium();
try {
  const page = await browser.context.newPage();
  await page.route(`${baseUrl}bench.html`, (route) =>
    route.fulfill({ contentType: "text/html; charset=utf-8", body: "<!doctype html><title>bench</title>" }),
  );
  await page.goto(`${baseUrl}bench.html`);
  const version = await browser.context.browser()?.version();
  print(`Chromium ${version ?? "(Debian)"}`, await page.evaluate(measure, { specifier: "/pkg/guard/index.js", count: COUNT }));
} finally {
  await browser.close();
  server.close();
}
