// Optional webhooks (WEBHOOK_URL: Slack-compatible `{ text }`; DISCORD_WEBHOOK_URL: a Discord channel) when a
// proposal arrives and when an Apply's outcome is unknown (a person must reconcile it). Sent after the change is stored, never
// awaited by the request that made it, and never retried: a webhook that fails is recorded in the audit trail.

const WEBHOOK_TIMEOUT_MS = 10_000;
/** Discord's message flag that shows no link previews. */
const SUPPRESS_EMBEDS = 4;

/** `text` with Discord's markdown characters escaped: shown as written, never formatted or linked. */
function escapeMarkdown(text) {
  return text.replace(/[\\`*_~|>#[\]()<:-]/g, (character) => `\\${character}`);
}

/** At most `limit` UTF-16 units of `text`, never splitting a character (an ellipsis marks a cut). */
function cutToCodePoints(text, limit) {
  if (text.length <= limit) return text;
  let cut = "";
  for (const character of text) {
    if (cut.length + character.length > limit - 1) break;
    cut += character;
  }
  return `${cut}…`;
}

/** POSTs `payload` as JSON to `url`; `onFailure(message)` hears of a failure. Never retried. */
function send(ctx, url, payload, onFailure) {
  const sending = (async () => {
    try {
      const response = await fetch(url, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(payload),
        signal: AbortSignal.timeout(WEBHOOK_TIMEOUT_MS),
      });
      if (!response.ok) onFailure(`the webhook answered HTTP ${response.status}`);
    } catch (error) {
      onFailure(`the webhook could not be reached: ${error?.message ?? error}`);
    }
  })();
  ctx.waitUntil(sending);
}

/**
 * Sends `text` about approval `approvalId` to the configured webhooks: WEBHOOK_URL (Slack-compatible `{ text }`)
 * and DISCORD_WEBHOOK_URL (a Discord channel's webhook: `{ content }`, with a link to the approval in the inbox
 * at INBOX_URL, and no mentions). `onFailure(message)` hears of a failure.
 */
export function notifyWebhook(env, ctx, text, onFailure, approvalId = null) {
  if (env.WEBHOOK_URL) send(ctx, env.WEBHOOK_URL, { text }, onFailure);
  if (env.DISCORD_WEBHOOK_URL) {
    const link = env.INBOX_URL && approvalId ? ` ${env.INBOX_URL.replace(/#.*$/, "")}#approval-${encodeURIComponent(approvalId)}` : "";
    // Markdown is escaped (an agent's text never becomes a link or a heading there), embeds are suppressed,
    // and a long text is cut before the link, so the link always arrives.
    const content = `${cutToCodePoints(escapeMarkdown(text), 2000 - link.length)}${link}`;
    send(ctx, env.DISCORD_WEBHOOK_URL, { content, flags: SUPPRESS_EMBEDS, allowed_mentions: { parse: [] } }, (message) => onFailure(`Discord: ${message}`));
  }
}

/** The message for a new proposal: the machine's two lines, never the agent's own words. */
export function proposalMessage(view) {
  return `New approval waiting: ${view.request.what} (${view.request.impact}). Approval ${view.approval_id}.`;
}

/** The message for an Apply whose outcome is unknown. */
export function unknownOutcomeMessage(view) {
  return `Outcome unknown, a person must reconcile: ${view.request.what}. Approval ${view.approval_id} is in flight.`;
}
