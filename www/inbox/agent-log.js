// The tail of the governed agent's logs (seed 002's JSON lines: time, event, cause, impact scope), the
// execution, developer and chat channels merged (proposals, decisions, applies, failures, stops, commands),
// read from the local server that runs the agent beside the inbox; newest last, as a log reads. The channel and
// the time are the page's words; each record is the agent's own, shown as it wrote it.
import { element, shown } from "./render.js";

export async function fetchAgentLog() {
  const response = await fetch("/agent/log", { cache: "no-store" });
  if (response.status === 503) return null;
  if (!response.ok) throw new Error(`HTTP ${response.status}`);
  const body = await response.json();
  return Array.isArray(body.records) ? body.records : [];
}

/** Replaces the list's lines with the records; says so when no agent runs or nothing is logged yet. */
export function showAgentLog(list, records, words) {
  if (records === null) {
    list.replaceChildren(element("li", { class: "muted", text: words.noAgent }));
    return;
  }
  if (records.length === 0) {
    list.replaceChildren(element("li", { class: "muted", text: words.logEmpty }));
    return;
  }
  list.replaceChildren(
    ...records.map((record) =>
      element(
        "li",
        { "data-channel": record.channel ?? "execution" },
        element("time", { datetime: record.time, text: typeof record.time_ms === "number" ? new Date(record.time_ms).toLocaleTimeString(words.locale) : "" }),
        ` ${words.logChannels[record.channel ?? "execution"] ?? shown(record.channel)} · `,
        // The record itself is the agent's own words, in the language it writes its log in.
        element("span", { class: "agent-text", text: shown(`${record.event_summary} · ${record.cause} · ${record.impact_scope}`) }),
      ),
    ),
  );
}
