// Keyboard shortcuts that can never act by accident: a key counts only when the person is not typing
// (focus outside every editable element), holds no modifier, is not composing text, and is not repeating.

const EDITABLE = "input, textarea, select, [contenteditable]:not([contenteditable='false'])";

/** True when the event comes from a field the person is typing into. */
export function fromEditableField(event) {
  const target = event.target;
  if (!(target instanceof Element)) return false;
  return target.isContentEditable || target.closest(EDITABLE) !== null;
}

/** Calls `actions[key]` for a bare, deliberate key press outside editable fields. */
export function onShortcut(actions) {
  document.addEventListener("keydown", (event) => {
    if (event.ctrlKey || event.metaKey || event.altKey || event.shiftKey) return;
    if (event.isComposing || event.repeat || event.defaultPrevented) return;
    if (fromEditableField(event)) return;
    const action = actions[event.key];
    if (action) action(event);
  });
}
