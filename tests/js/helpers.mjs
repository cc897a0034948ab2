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

