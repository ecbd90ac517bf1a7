import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium, type BrowserContext } from "playwright-core";

/** Debian's Chromium (`apt-get install chromium`; `.ci/run` installs it when missing). */
export const CHROMIUM_PATH = "/usr/bin/chromium";

/** Whether Debian's Chromium is installed. */
export function hasChromium(): boolean {
  return existsSync(CHROMIUM_PATH);
}

/** A browser with its own fresh profile; `close()` ends it and deletes the profile. */
export interface FreshBrowser {
  context: BrowserContext;
  close(): Promise<void>;
}

/**
 * Starts Debian's Chromium headless through `playwright-core` (no browser download) with a fresh user data
 * directory, so each browser is a new visitor: no cookies, no cache. `--no-sandbox` because CI runs as root.
 * @throws Error when Chromium is not installed or does not start
 */
export async function openBrowser(viewport = { width: 1280, height: 900 }): Promise<FreshBrowser> {
  if (!hasChromium()) throw new Error(`${CHROMIUM_PATH} is missing: apt-get install -y chromium`);
  const profile = mkdtempSync(join(tmpdir(), "diffward-chromium-"));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM_PATH,
    headless: true,
    viewport,
    args: [
      "--no-sandbox",
      "--headless",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--no-first-run",
    ],
  });
  return {
    context,
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}
