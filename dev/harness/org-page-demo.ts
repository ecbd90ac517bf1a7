import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { hasChromium, openBrowser } from "./browser.js";
import type { Harness } from "./harness.js";
import { signInOverHttp } from "./sign-in.js";

/** What the demo's visit of the organization's page produced. */
export interface OrgPageVisit {
  /** the page's address on the demo's web server (alive while the demo runs) */
  url: string;
  /** the page as the signed-in account saw it */
  htmlFile: string;
  /** a screenshot by Debian's Chromium, when it is installed */
  screenshotFile: string | undefined;
  /** the page's JSON: this month's spend, reports and scans in flight */
  monthSpent: number | null;
  reports: number;
  inFlight: number;
}

/**
 * Signs `account` in to the organization's page of a harness started with `signIn: true` through the
 * stand-in's web flow (the account of a user installation sees it organization-wide), in Chromium when it is
 * installed (a screenshot) and over HTTP otherwise, and writes the page to `outDir`.
 * @throws Error when a sign-in hop or the page does not answer as it should
 */
export async function visitOrgPage(
  h: Harness,
  account: string,
  installationId: number,
  outDir: string,
): Promise<OrgPageVisit> {
  h.github.state.oauth.addUser({ login: account, installations: { [installationId]: "all" } });
  const path = `/installations/${installationId}`;
  const { cookie } = await signInOverHttp(h.web.url, account, path);
  const read = (accept: string) => fetch(`${h.web.url}${path}`, { headers: { cookie, accept } });
  const page = (await (await read("application/json")).json()) as {
    spend: { monthSpent: number | null };
    reports: unknown[];
    inFlight: unknown[];
  };
  const htmlFile = join(outDir, "org-page.html");
  writeFileSync(htmlFile, await (await read("text/html")).text());
  let screenshotFile: string | undefined;
  if (hasChromium()) {
    const browser = await openBrowser();
    try {
      const tab = await browser.context.newPage();
      await tab.goto(`${h.web.url}${path}`);
      await tab.getByRole("link", { name: `Sign in as ${account}` }).click();
      await tab.waitForURL(`${h.web.url}${path}`);
      screenshotFile = join(outDir, "org-page.png");
      await tab.screenshot({ path: screenshotFile, fullPage: true });
    } finally {
      await browser.close();
    }
  }
  return {
    url: `${h.web.url}${path}`,
    htmlFile,
    screenshotFile,
    monthSpent: page.spend.monthSpent,
    reports: page.reports.length,
    inFlight: page.inFlight.length,
  };
}
