#!/usr/bin/env node
// An approver's command line: an Ed25519 key that only this approver holds, and the signed bodies the edge
// guard's decision, cancel and reconcile endpoints take. Nothing here talks to the network: pipe the
// output into curl.
//
//   node edge/approver.mjs keygen APPROVER/KEY KEY_FILE   writes the private key, prints the public key body
//   node edge/approver.mjs approve KEY_FILE APPROVAL_JSON [REASON]     prints { decision: "y", confirmation }
//   node edge/approver.mjs decline KEY_FILE APPROVAL_JSON [REASON]     prints { decision: "n", action }
//   node edge/approver.mjs cancel KEY_FILE APPROVAL_JSON [REASON]      prints { action }
//   node edge/approver.mjs reconcile KEY_FILE APPROVAL_JSON applied|not_applied [NOTE]   prints { action }
//
// Key ids are namespaced by their approver: `alice/laptop`. APPROVAL_JSON is a file holding the approval as
// GET /v1/approvals/{id} returns it (`-` reads stdin): a confirmation signs its `draft`, and every other action
// names its `version` (an action made for an earlier version of the approval is refused as stale) and carries
// a fresh nonce (it is used once).
import { readFileSync, writeFileSync } from "node:fs";
import { webcrypto } from "node:crypto";
import { base64url, fromBase64url, generateApproverKey, signAction, signConfirmation } from "agent-governor/guard";

const ED25519 = { name: "Ed25519" };

function usage(message) {
  process.stderr.write(`${message}\nusage: see the header of edge/approver.mjs\n`);
  process.exit(2);
}

async function loadKey(file) {
  const stored = JSON.parse(readFileSync(file, "utf8"));
  const privateKey = await webcrypto.subtle.importKey("pkcs8", fromBase64url(stored.private_key), ED25519, false, ["sign"]);
  return { keyId: stored.key_id, privateKey };
}

function readJson(file) {
  return JSON.parse(readFileSync(file === "-" ? 0 : file, "utf8"));
}

async function main([command, ...args]) {
  switch (command) {
    case "keygen": {
      const [keyId, file] = args;
      if (!keyId || !file) usage("keygen needs APPROVER/KEY and KEY_FILE");
      if (!/^[^/]+\/[^/]+$/.test(keyId)) usage("the key id is APPROVER/KEY, for example alice/laptop");
      const key = await generateApproverKey({ keyId, extractable: true });
      const pkcs8 = await webcrypto.subtle.exportKey("pkcs8", key.privateKey);
      writeFileSync(file, JSON.stringify({ key_id: keyId, private_key: base64url(pkcs8) }), { mode: 0o600 });
      return { key_id: keyId, ...key.publicKey };
    }
    case "approve": {
      const [file, approvalFile, reason = "approved"] = args;
      if (!file || !approvalFile) usage("approve needs KEY_FILE and APPROVAL_JSON");
      const approval = readJson(approvalFile);
      const draft = { ...approval.draft, reason, confirmed_at: new Date().toISOString(), ui_action: "approver_cli" };
      return { decision: "y", confirmation: await signConfirmation(draft, await loadKey(file)) };
    }
    case "decline":
    case "cancel": {
      const [file, approvalFile, reason = ""] = args;
      if (!file || !approvalFile) usage(`${command} needs KEY_FILE and APPROVAL_JSON`);
      const approval = readJson(approvalFile);
      const action = await signAction(
        { action: command, approval_id: approval.approval_id, version: approval.version, detail: reason, at: new Date().toISOString(), key_id: null },
        await loadKey(file),
      );
      return command === "decline" ? { decision: "n", action } : { action };
    }
    case "reconcile": {
      const [file, approvalFile, outcome, note = ""] = args;
      if (!file || !approvalFile || !["applied", "not_applied"].includes(outcome)) usage("reconcile needs KEY_FILE, APPROVAL_JSON and applied|not_applied");
      const approval = readJson(approvalFile);
      const action = await signAction(
        { action: `reconcile_${outcome}`, approval_id: approval.approval_id, version: approval.version, detail: note, at: new Date().toISOString(), key_id: null },
        await loadKey(file),
      );
      return { action };
    }
    default:
      return usage(`unknown command ${command ?? "(none)"}`);
  }
}

try {
  process.stdout.write(`${JSON.stringify(await main(process.argv.slice(2)))}\n`);
} catch (error) {
  process.stderr.write(`${error.code ? `${error.code}: ` : ""}${error.message}\n`);
  process.exit(1);
}
