// Inviting a person (admins only): only the first approver of an inbox registers without a code; an admin
// signs an invitation naming the person and their roles, and the guard answers with a one-time code for them.
import { guardApi } from "./guard-api.js";
import { signHumanAction } from "./approver-keys.js";
import { element } from "./render.js";
import { $, announce, needApprover, words } from "./page.js";

export function setUpInvite(state) {
  $("invite-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    if (!needApprover(state) || state.inviting || !$("invite-name").reportValidity()) return;
    state.inviting = true;
    try {
      const approver = $("invite-name").value;
      const roles = $("invite-admin").checked ? ["admin"] : [];
      const enrollments = await guardApi.enrollments();
      if (enrollments.status !== 200) throw new Error(enrollments.body.message);
      // What is signed is exactly the person and roles the guard will make the code for.
      const detail = JSON.stringify({ approver, roles });
      const action = await signHumanAction(state.approver, { action: "enroll", approval_id: "enrollments", version: enrollments.body.version, detail, at: new Date().toISOString(), key_id: null });
      const made = await guardApi.invite({ approver, roles, action });
      if (made.status !== 201) throw new Error(made.body.message);
      // The guard's milliseconds, shown in the reader's locale (no time is parsed here).
      const shownAt = new Date(made.body.expires_at_ms).toLocaleTimeString(words(state).locale);
      $("invite-code").replaceChildren(
        words(state).inviteMade(made.body.approver, shownAt),
        " ",
        element("code", { "data-testid": "invite-code", text: made.body.enrollment_code }),
      );
      $("invite-code").hidden = false;
      $("invite-name").value = "";
      $("invite-admin").checked = false;
      announce(words(state).inviteMade(made.body.approver, shownAt));
    } catch (error) {
      announce(words(state).failed(error.message));
    } finally {
      state.inviting = false;
    }
  });
}
