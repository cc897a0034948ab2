// An optional webhook (WEBHOOK_URL): a Slack-compatible JSON message `{ text }` when a proposal arrives and
// when an Apply's outcome is unknown (a person must reconcile it). Sent after the change is stored, never
// awaited by the request that made it, and never retried: a webhook that fails is recorded in the audit trail.

const WEBHOOK_TIMEOUT_MS = 10_000;

/** Sends `text` to the configured webhook, if any; `onFailure(message)` hears of a failure. */
export function notifyWebhook(env, ctx, text, onFailure) {
  const url = env.WEBHOOK_URL;
  if (!url) return;
  const sending = (async () => {
    try {
      const response = await fetch(url, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ text }),
        signal: AbortSignal.timeout(WEBHOOK_TIMEOUT_MS),
      });
      if (!response.ok) onFailure(`the webhook answered HTTP ${response.status}`);
    } catch (error) {
      onFailure(`the webhook could not be reached: ${error?.message ?? error}`);
    }
  })();
  ctx.waitUntil(sending);
}

/** The message for a new proposal: the machine's two lines, never the agent's own words. */
export function proposalMessage(view) {
  return `New approval waiting: ${view.request.what} (${view.request.impact}). Approval ${view.approval_id}.`;
}

/** The message for an Apply whose outcome is unknown. */
export function unknownOutcomeMessage(view) {
  return `Outcome unknown, a person must reconcile: ${view.request.what}. Approval ${view.approval_id} is in flight.`;
}
