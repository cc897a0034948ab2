// Browser notifications of new approvals: offered with the page's button (opt-in), shown only when the page
// is not in view.
import { $, announce, words } from "./page.js";

/** The opt-in button, shown while the browser neither allows nor refuses notifications for this page. */
export function offerNotifications(state) {
  if (typeof Notification !== "undefined" && Notification.permission !== "denied") {
    $("notify").hidden = Notification.permission === "granted";
    $("notify").addEventListener("click", async () => {
      const permission = await Notification.requestPermission().catch(() => "denied");
      $("notify").hidden = true;
      if (permission === "granted") announce(words(state).notifyOn);
    });
  }
}

/** An opt-in browser notification for a new approval, when the page is not in view. */
export function notify(state, approval) {
  if (typeof Notification === "undefined" || Notification.permission !== "granted" || document.visibilityState === "visible") return;
  try {
    new Notification(words(state).newApproval(approval.request.what), { tag: approval.approval_id });
  } catch {
    // Some browsers allow notifications only from a service worker.
  }
}
