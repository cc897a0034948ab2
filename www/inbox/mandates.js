// Standing approvals in the inbox: a person writes a bounded permission (which agent, which change type or
// tool, conditions, how many runs, for how long), reads it in words rendered by the guard's core from the
// exact terms, signs it with their own key, and later sees each one's uses left and revokes it with one
// signed action.
import { guardApi } from "./guard-api.js";
import { signHumanAction, signMandateAs } from "./approver-keys.js";
import { element } from "./render.js";
import { $, announce, needApprover, words } from "./page.js";

const OPS = ["equals", "one_of", "starts_with", "ends_with", "at_most", "at_least"];

/** One condition line, `field op value` (`to ends_with @example.com`, `amount at_most 50`, `node_id one_of a,b`). */
function readCondition(line, index, w) {
  const match = /^\s*(\S+)\s+(\S+)\s+(.*?)\s*$/.exec(line);
  if (match === null || !OPS.includes(match[2]) || match[3] === "") throw new Error(w.mandateBadCondition(index + 1, OPS.join(", ")));
  const [, name, op, text] = match;
  const field = name.startsWith("/") ? name : `/${name.replaceAll("~", "~0").replaceAll("/", "~1")}`;
  if (op === "at_most" || op === "at_least") {
    // A decimal number as written (JSON's form): `0x10`, `Infinity` or `1_000` is not read as some other number.
    const number = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?$/.test(text) ? Number(text) : NaN;
    if (!Number.isFinite(number)) throw new Error(w.mandateBadNumber(index + 1, text));
    return { field, op, value: number };
  }
  if (op === "one_of") return { field, op, value: text.split(",").map((part) => part.trim()).filter((part) => part !== "") };
  return { field, op, value: text };
}

/** The terms the form describes now: what is previewed is exactly what is signed. */
function termsOf(audience, w) {
  const hours = Number($("mandate-hours").value);
  const uses = Number($("mandate-uses").value);
  const now = Date.now();
  const constraints = $("mandate-conditions").value.split("\n").filter((line) => line.trim() !== "").map((line, index) => readCondition(line, index, w));
  return {
    mandate_id: `mandate-${crypto.randomUUID()}`,
    audience,
    agents: [$("mandate-agent").value.trim()],
    action: $("mandate-action").value.trim(),
    constraints,
    max_uses: uses,
    issued_at: new Date(now).toISOString(),
    expires_at: new Date(now + hours * 3_600_000).toISOString(),
  };
}

function showDraft(state, lines) {
  $("mandate-lines").replaceChildren(...lines.map((line) => element("li", { text: line })));
  $("mandate-draft").hidden = false;
}

export async function loadMandates(state) {
  const answer = await guardApi.mandates().catch(() => null);
  if (answer?.status !== 200) return;
  state.mandates = answer.body;
  showMandates(state);
}

export function showMandates(state) {
  const w = words(state);
  const list = state.mandates?.mandates ?? [];
  const me = state.approver?.approver;
  $("mandate-list").replaceChildren(
    ...list.map((mandate) => {
      const lines = state.language === "ja" ? mandate.lines.ja : mandate.lines.en;
      const item = element("li", { class: "mandate", "data-testid": "mandate", "data-state": mandate.state },
        element("ol", {}, ...lines.map((line) => element("li", { text: line }))),
        element("p", { class: "muted", "data-testid": "mandate-uses", text: w.mandateUses(mandate.uses_left, mandate.max_uses, mandate.state, mandate.approver) }),
      );
      if (mandate.state !== "revoked" && state.approver && (mandate.approver === me || state.isAdmin)) {
        const revoke = element("button", { type: "button", text: w.mandateRevoke, "data-testid": "mandate-revoke" });
        revoke.addEventListener("click", () => revokeMandate(state, mandate, revoke));
        item.append(revoke);
      }
      return item;
    }),
  );
  $("mandate-empty").hidden = list.length > 0;
}

async function revokeMandate(state, mandate, button) {
  if (!needApprover(state) || button.disabled) return;
  button.disabled = true;
  try {
    const action = await signHumanAction(state.approver, { action: "revoke_mandate", approval_id: mandate.mandate_id, version: mandate.version, detail: "", at: new Date().toISOString(), key_id: null });
    const done = await guardApi.revokeMandate(mandate.mandate_id, action);
    if (done.status !== 200) throw new Error(done.body.message);
    announce(words(state).mandateRevoked);
    await loadMandates(state);
  } catch (error) {
    button.disabled = false;
    announce(words(state).failed(error.message));
  }
}

export function setUpMandates(state) {
  $("mandate-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    const w = words(state);
    if (!needApprover(state) || !$("mandate-form").reportValidity()) return;
    try {
      const audience = state.mandates?.audience;
      if (typeof audience !== "string") throw new Error(w.mandateNoGuard);
      const terms = termsOf(audience, w);
      const preview = await guardApi.previewMandate(terms);
      if (preview.status !== 200) throw new Error(preview.body.message);
      state.mandateDraft = { terms, lines: preview.body.lines };
      showDraft(state, state.language === "ja" ? preview.body.lines.ja : preview.body.lines.en);
    } catch (error) {
      state.mandateDraft = null;
      $("mandate-draft").hidden = true;
      announce(w.failed(error.message));
    }
  });
  // Any change to the form withdraws the draft: only what was shown is ever signed.
  $("mandate-form").addEventListener("input", () => {
    state.mandateDraft = null;
    $("mandate-draft").hidden = true;
  });
  $("mandate-sign").addEventListener("click", async () => {
    const draft = state.mandateDraft;
    if (!needApprover(state) || draft === null || draft === undefined || state.signingMandate) return;
    state.signingMandate = true;
    try {
      const mandate = await signMandateAs(state.approver, draft.terms);
      const made = await guardApi.createMandate(mandate);
      if (made.status !== 201) throw new Error(made.body.message);
      state.mandateDraft = null;
      $("mandate-draft").hidden = true;
      announce(words(state).mandateMade);
      await loadMandates(state);
    } catch (error) {
      announce(words(state).failed(error.message));
    } finally {
      state.signingMandate = false;
    }
  });
}
