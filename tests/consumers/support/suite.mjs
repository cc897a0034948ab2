// What every consumer test file sets up once: the pinned tools, the packed package and (for browser bundles)
// Chromium; all released after the file's tests.
import { after, before } from "node:test";
import { launchChromium } from "./browser.mjs";
import { packPackage } from "./project.mjs";
import { ensureTools } from "./tools.mjs";

/** Registers the file's set-up; its `packed` and `browser` are filled in before the first test runs. */
export function consumerSuite({ browser = true } = {}) {
  const suite = { packed: null, browser: null };
  before(async () => {
    await ensureTools();
    suite.packed = packPackage();
    if (browser) suite.browser = await launchChromium();
  }, { timeout: 600_000 });
  after(async () => {
    await suite.browser?.close();
    suite.packed?.cleanup();
  });
  return suite;
}
