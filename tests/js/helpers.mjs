// Shared by the JS tests: starting the real hosts (Chromium, workerd) the way a user would.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";

export const repoRoot = fileURLToPath(new URL("../..", import.meta.url));
export { freePort, startEdgeWorker, waitForHttp } from "../../scripts/wrangler-dev.mjs";
/** Headless Debian Chromium with the flags this machine's closed network needs. */
export async function launchChromium() {
  const userDataDir = await mkdtemp(join(tmpdir(), "agent-governor-chromium-"));
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium",
    headless: true,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
  return {
    context,
    async close() {
      await context.close();
      await rm(userDataDir, { recursive: true, force: true });
    },
  };
}


/**
 * axe-core's serious and critical violations on `page` in every colour scheme and every language of the page's
 * `#language` picker given, as `scheme language: rule: targets` lines (empty when clean); leaves the page in
 * English, light.
 */
export async function axeViolations(page, { schemes = ["light", "dark"], languages = ["en", "ja"] } = {}) {
  const found = [];
  for (const colorScheme of schemes) {
    for (const language of languages) {
      await page.emulateMedia({ colorScheme });
      await page.selectOption("#language", language);
      await page.addScriptTag({ path: join(repoRoot, "node_modules", "axe-core", "axe.min.js") });
      const violations = await page.evaluate(async () => {
        const result = await window.axe.run(document, { resultTypes: ["violations"] });
        return result.violations
          .filter((violation) => ["serious", "critical"].includes(violation.impact))
          .map((violation) => `${violation.id}: ${violation.nodes.map((node) => node.target.join(" ")).join(", ")}`);
      });
      found.push(...violations.map((violation) => `${colorScheme} ${language}: ${violation}`));
    }
  }
  await page.selectOption("#language", "en");
  await page.emulateMedia({ colorScheme: "light" });
  return found;
}
