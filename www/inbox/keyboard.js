// The page's keys: y approves and n declines the focused approval only, j and k move between approvals;
// never from an editable field or with a modifier held, and a held key (a repeated press) does nothing.
import { approve, decline } from "./decide.js";

/** Listens for the page's keys on the whole document. */
export function listenForKeys(state) {
  // A held Enter or Space repeats a button's click: a repeated key press activates nothing on this page.
  document.addEventListener(
    "keydown",
    (event) => {
      if (event.repeat && (event.key === "Enter" || event.key === " ")) event.preventDefault();
    },
    { capture: true },
  );
  document.addEventListener("keydown", (event) => onKey(state, event));
}

/** y / n on the focused approval only, j / k between approvals: never from an editable field, never with a modifier held. */
function onKey(state, event) {
  if (event.defaultPrevented || event.repeat || event.ctrlKey || event.metaKey || event.altKey || event.shiftKey) return;
  const target = event.target;
  if (target instanceof HTMLElement && (target.isContentEditable || target.closest("input, textarea, select, [contenteditable]"))) return;
  const card = target instanceof HTMLElement ? target.closest(".approval") : null;
  if (event.key === "j" || event.key === "k") {
    const cards = [...document.querySelectorAll("#pending .approval, #history .approval")];
    if (cards.length === 0) return;
    event.preventDefault();
    const index = card ? cards.indexOf(card) : -1;
    const next = event.key === "j" ? cards[Math.min(cards.length - 1, index + 1)] : cards[Math.max(0, index - 1)];
    next?.focus();
    return;
  }
  if (!card || card.dataset.state !== "pending") return;
  if (event.key === "y") {
    event.preventDefault();
    approve(state, card.dataset.id, { viaKey: true });
  } else if (event.key === "n") {
    event.preventDefault();
    decline(state, card.dataset.id);
  }
}
