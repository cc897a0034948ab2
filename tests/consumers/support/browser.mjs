// Loads a consumer's page in headless Chromium and waits for the verdict it reports (`document.body.dataset.verdict`);
// a timeout or a thrown error fails with what the page and its workers logged and the requests that failed.
import { launchChromium } from "../../js/helpers.mjs";
import { serveStatic } from "./serve.mjs";

export { launchChromium };

/**
 * Opens `url` in a new page of `browser` (from launchChromium) and resolves to the parsed verdict. An uncaught
 * error in the page or a worker fails the wait `settleMs` after it (time for a reload to recover), else after `timeoutMs`.
 */
export async function pageVerdict(browser, url, { timeoutMs = 30_000, settleMs = 5_000, server = null } = {}) {
  const page = await browser.context.newPage();
  const log = [];
  let failSoon;
  const failed = new Promise((_, reject) => {
    failSoon = (what) => setTimeout(() => reject(new Error(`no verdict ${settleMs} ms after ${what}`)), settleMs).unref();
  });
  failed.catch(() => {});
  const listen = (target, label) => {
    target.on("console", (message) => {
      if (["error", "warning"].includes(message.type())) log.push(`${label} console.${message.type()}: ${message.text()}`);
    });
  };
  listen(page, "page");
  page.on("pageerror", (error) => {
    log.push(`page error: ${error.name}: ${error.message}${error.stack ? `\n${error.stack}` : ""}`);
    failSoon("an uncaught error in the page");
  });
  page.on("worker", (worker) => {
    log.push(`worker started: ${worker.url()}`);
    listen(worker, "worker");
  });
  page.on("requestfailed", (request) => log.push(`request failed: ${request.url()} (${request.failure()?.errorText})`));
  page.on("response", (response) => {
    if (response.status() >= 400) log.push(`HTTP ${response.status()}: ${response.url()}`);
    const type = response.headers()["content-type"] ?? "";
    if (/\.wasm(\?|$)/.test(response.url()) && !type.startsWith("application/wasm")) {
      log.push(`wasm served as ${type}: ${response.url()}`);
    }
  });
  try {
    await page.goto(url);
    const reported = page.waitForFunction(() => document.body?.dataset.verdict ?? document.body?.dataset.error, null, {
      timeout: timeoutMs,
    });
    reported.catch(() => {}); // Handled by the race below; the page may close while it still waits.
    const text = await (await Promise.race([reported, failed])).jsonValue();
    const error = await page.evaluate(() => document.body.dataset.error ?? null);
    if (error !== null) throw new Error(`the page reported an error: ${error}`);
    return JSON.parse(text);
  } catch (error) {
    const missing = server?.missing?.length ? `\nnot found on the server: ${server.missing.join(", ")}` : "";
    throw new Error(`${error.message}\n--- ${url} ---\n${log.join("\n") || "(nothing logged)"}${missing}`);
  } finally {
    await page.close();
  }
}

const shell = (body) => `<!doctype html>\n<html lang="en">\n<head><meta charset="utf-8"><title>consumer</title></head>\n<body>\n${body}\n</body>\n</html>\n`;

/** A page that loads `src` as a module script. */
export const modulePage = (src) => shell(`<script type="module" src="${src}"></script>`);

/** A page that loads `src` as a classic script. */
export const classicPage = (src) => shell(`<script src="${src}"></script>`);

/** A page that starts `src` as a classic web worker and shows the verdict the worker posts. */
export const workerPage = (src) =>
  shell(`<script>
const worker = new Worker(${JSON.stringify(src)});
worker.onmessage = (event) => { document.body.dataset.verdict = JSON.stringify(event.data); };
worker.onerror = (event) => { document.body.dataset.error = "worker error: " + event.message + " (" + event.filename + ":" + event.lineno + ")"; };
</script>`);

/** Serves `directory` (a build's output) and resolves to the verdict its index page reports. */
export async function servedPageVerdict(browser, directory, options = {}) {
  const server = await serveStatic(directory);
  try {
    return await pageVerdict(browser, `${server.url}/`, { ...options, server });
  } finally {
    await server.close();
  }
}
