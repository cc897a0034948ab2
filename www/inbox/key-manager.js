// The approver's keys as the guard holds them: which is this device's, when each was added, which are
// revoked; revoking one is a `revoke_key` action signed with this device's key (or passkey), made for the key
// set's current version. Another device is added by registering there with the same name: the local server
// gives it a code, or an admin gives one (the enrollment code field).
import { element, shown } from "./render.js";

/** Fills `list` with the keys of `view` ({ keys }) for `approver` (this device's record). */
export function showKeys(list, view, approver, words, onRevoke, onRename) {
  if (!view) {
    list.replaceChildren();
    return;
  }
  list.replaceChildren(
    ...view.keys.map((key) => {
      const mine = key.key_id === approver.keyId;
      const item = element(
        "li",
        { "data-key": key.key_id },
        key.label ? element("strong", { class: "agent-text", "data-testid": "key-label", text: `${shown(key.label)} ` }) : null,
        element("code", { text: key.key_id }),
        element("span", { text: ` · ${key.type === "webauthn" ? words.passkeyKind : words.deviceKind}` }),
        element("span", { class: "muted", text: ` · ${words.keyAdded(new Date(key.created_at_ms).toLocaleDateString(words.locale))}` }),
        mine ? element("strong", { text: ` · ${words.thisDevice}` }) : null,
        key.revoked_at ? element("span", { class: "warning", text: ` · ${words.keyRevoked}` }) : null,
      );
      if (!key.revoked_at) {
        // Two presses: the first arms the button for a few seconds, the second revokes.
        const label = mine ? words.revokeThisKey : words.revokeKey;
        const button = element("button", { type: "button", class: "secondary", "data-action": "revoke-key", text: label });
        let armed = null;
        let armedAt = 0;
        button.addEventListener("click", () => {
          // A double-click is one press: the second must come a moment later.
          if (armed !== null && Date.now() - armedAt < 500) return;
          if (armed === null) {
            armedAt = Date.now();
            button.textContent = words.revokeAgain;
            button.classList.add("confirming");
            armed = setTimeout(() => {
              armed = null;
              button.textContent = label;
              button.classList.remove("confirming");
            }, 4000);
            return;
          }
          clearTimeout(armed);
          armed = null;
          onRevoke(key);
        });
        item.append(" ", button, " ", renameControl(key, words, onRename));
      }
      return item;
    }),
  );
}

/**
 * A Rename button that becomes a name field, filled with the key's name now, with Save and Cancel: Save (or
 * Enter) signs the new name, Cancel (or Escape) leaves it as it was.
 */
function renameControl(key, words, onRename) {
  const box = element("span", { class: "rename" });
  const button = element("button", { type: "button", class: "secondary", "data-action": "rename-key", text: words.renameKey });
  button.addEventListener("click", () => {
    const id = `rename-${key.key_id}`;
    const current = key.label || key.key_id.slice(key.key_id.indexOf("/") + 1);
    const input = element("input", { id, maxlength: "64", "aria-label": words.keyName, enterkeyhint: "done" });
    input.value = current;
    const save = element("button", { type: "button", "data-action": "rename-save", text: words.renameSave });
    const cancel = element("button", { type: "button", class: "secondary", "data-action": "rename-cancel", text: words.renameCancel });
    const close = () => {
      box.replaceChildren(button);
      button.focus();
    };
    const submit = () => {
      if (input.value.trim() !== "") onRename(key, input.value.trim());
    };
    input.addEventListener("keydown", (event) => {
      if (event.key === "Enter" && !event.isComposing) {
        event.preventDefault();
        submit();
      } else if (event.key === "Escape") {
        close();
      }
    });
    save.addEventListener("click", submit);
    cancel.addEventListener("click", close);
    box.replaceChildren(input, " ", save, " ", cancel);
    input.focus();
    input.select();
  });
  box.append(button);
  return box;
}
