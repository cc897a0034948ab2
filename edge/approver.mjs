#!/usr/bin/env node
// An approver's command line: an Ed25519 key that only this approver holds, and the signed bodies the edge
// guard's decision, cancel and reconcile endpoints take. Nothing here talks to the network: pipe the
// output into curl.
//
//   node edge/approver.mjs keygen KEY_ID KEY_FILE          writes the private key, prints the public key body
//   node edge/approver.mjs approve KEY_FILE APPROVAL_JSON [REASON]     prints { decision: "y", confirmation }
//   node edge/approver.mjs decline KEY_FILE APPROVAL_ID [REASON]       prints { decision: "n", action }
//   node edge/approver.mjs cancel KEY_FILE APPROVAL_ID [REASON]        prints { action }
//   node edge/approver.mjs reconcile KEY_FILE APPROVAL_ID applied|not_applied [NOTE]   prints { action }
//
// APPROVAL_JSON is a file holding the approval as GET /v1/approvals/{id} returns it (`-` reads stdin).
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
      if (!keyId || !file) usage("keygen needs KEY_ID and KEY_FILE");
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
      const [file, approvalId, reason = ""] = args;
      if (!file || !approvalId) usage(`${command} needs KEY_FILE and APPROVAL_ID`);
      const action = await signAction({ action: command, approval_id: approvalId, detail: reason, at: new Date().toISOString(), key_id: null }, await loadKey(file));
      return command === "decline" ? { decision: "n", action } : { action };
    }
    case "reconcile": {
      const [file, approvalId, outcome, note = ""] = args;
      if (!file || !approvalId || !["applied", "not_applied"].includes(outcome)) usage("reconcile needs KEY_FILE, APPROVAL_ID and applied|not_applied");
      const action = await signAction(
        { action: `reconcile_${outcome}`, approval_id: approvalId, detail: note, at: new Date().toISOString(), key_id: null },
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
