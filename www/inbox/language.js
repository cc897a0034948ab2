// The page's language: the one chosen before on this browser, else the browser's own (Japanese or English);
// choosing another saves it and shows every text of the page again in it.
import { TEXT } from "./i18n.js";
import { showApprover } from "./approver.js";
import { render } from "./approval-list.js";
import { $, words } from "./page.js";
import { showConnection } from "./connection.js";
import { showStateOptions } from "./history-filter.js";
import { showMandates } from "./mandates.js";
import { showDecisionMetrics } from "./decision-metrics.js";

/** Sets the page's language and follows the language picker (the texts are shown by `applyLanguage`). */
export function chooseLanguage(state) {
  const saved = localStorage.getItem("inbox-language");
  state.language = saved in TEXT ? saved : navigator.language?.startsWith("ja") ? "ja" : "en";
  $("language").value = state.language;
  $("language").addEventListener("change", (event) => {
    state.language = event.target.value;
    localStorage.setItem("inbox-language", state.language);
    applyLanguage(state);
  });
}

export function applyLanguage(state) {
  document.documentElement.lang = state.language;
  // What was announced in the other language is not left behind.
  $("announcer").textContent = "";
  for (const node of document.querySelectorAll("[data-text]")) {
    const value = words(state)[node.dataset.text];
    if (typeof value === "string") node.textContent = value;
  }
  showApprover(state);
  showConnection(state);
  showStateOptions(state);
  showMandates(state);
  showDecisionMetrics(state);
  render(state);
}
