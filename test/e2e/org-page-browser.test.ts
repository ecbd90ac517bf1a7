/**
 * The organization's page in a real browser (Debian's Chromium through playwright-core) against diffward's
 * web server, the GitHub stand-in's web flow and the sandbox: an organization owner signs in, sees the
 * month's spend, the cap forecast, the per-repository chart and the scan in flight, and signs out; a user of
 * another organization sees nothing of it (404); a visitor without a session is sent to sign in.
 * Screenshots go to out/org-page/.
 */
import { mkdirSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openBrowser, type FreshBrowser } from "../../dev/harness/browser.js";
import { demoConfig } from "../../dev/harness/demo-repo.js";
import { startHarness, type Harness } from "../../dev/harness/harness.js";
import { completedRun, launchedScan, openPull, sha } from "../support/pr.js";

const OUT = "out/org-page";
const ACME = 4100;
const GLOBEX = 4200;
const REPORTED_HEAD = sha(0xb10);
const IN_FLIGHT_HEAD = sha(0xb11);

describe("the organization's page in Chromium", () => {
  let h: Harness;
  const browsers: FreshBrowser[] = [];
  let pr: Awaited<ReturnType<typeof openPull>>;
  let scanId = "";

  beforeAll(async () => {
    mkdirSync(OUT, { recursive: true });
    h = await startHarness({
      signIn: true,
      // the first pull request's scan is reported (its spend is on the chart); the second's is still in flight
      // while the browser looks
      sandbox: {
        scenario: "demo",
        scanDurationMs: (scan) => (scan.commitHash === IN_FLIGHT_HEAD ? 300_000 : 2_000),
        retryAfterSeconds: 1,
      },
    });
    h.github.state.addInstallation({ id: GLOBEX, account: { login: "globex", type: "Organization" } });
    h.github.state.addRepository({ owner: "globex", name: "vault", installationId: GLOBEX, private: true });
    h.github.state.oauth.addUser({
      login: "acme-owner",
      installations: { [ACME]: "all" },
      orgs: { "acme-corp": "admin" },
    });
    h.github.state.oauth.addUser({
      login: "globex-owner",
      installations: { [GLOBEX]: "all" },
      orgs: { globex: "admin" },
    });
    const shop = {
      repo: "shop",
      installationId: ACME,
      owner: { login: "acme-corp", type: "Organization" as const },
      config: demoConfig("creditCap:\n  monthly: 5000"),
    };
    const reported = await openPull(h, { ...shop, head: REPORTED_HEAD });
    await completedRun(h, reported.owner, reported.repo, REPORTED_HEAD, 30_000);
    pr = await openPull(h, { ...shop, head: IN_FLIGHT_HEAD, number: reported.number + 1 });
    scanId = await launchedScan(h, IN_FLIGHT_HEAD, 20_000);
  }, 60_000);

  afterAll(async () => {
    for (const b of browsers) await b.close();
    await h?.close();
  });

  const browser = async (viewport?: { width: number; height: number }) => {
    const b = await openBrowser(viewport);
    browsers.push(b);
    return b;
  };

  /** Goes to `path` without a session: the stand-in's sign-in page; picks `login` there. */
  async function signIn(b: FreshBrowser, path: string, login: string) {
    const page = await b.context.newPage();
    await page.goto(`${h.web.url}${path}`);
    const authorize = new URL(page.url());
    expect(`${authorize.origin}${authorize.pathname}`).toBe(`${h.github.url}/login/oauth/authorize`);
    expect(authorize.searchParams.get("client_id")).toMatch(/^Iv/);
    expect(authorize.searchParams.get("state")).toBeTruthy();
    await page.getByRole("link", { name: `Sign in as ${login}` }).click();
    await page.waitForURL(`${h.web.url}${path}`);
    return page;
  }

  it("shows an organization owner the month's spend, the cap forecast, the chart and the scan in flight, then signs out", async () => {
    const b = await browser();
    const page = await signIn(b, `/installations/${ACME}`, "acme-owner");
    // the scan is listed once its launch is linked; the section's JSON says when
    await h.waitFor(
      async () => {
        const res = await b.context.request.get(`${h.web.url}/installations/${ACME}/in-flight`);
        return res.ok() && JSON.stringify(await res.json()).includes(scanId);
      },
      20_000,
      "the scan in flight on the page",
    );
    await page.reload();
    const spend = page.locator("section#spend");
    await expect(spend.locator('svg[role="img"]').count()).resolves.toBe(1);
    const spendText = await spend.innerText();
    expect(spendText).toMatch(/Spent in \d{4}-\d{2}/);
    expect(spendText).toContain("acme-corp/shop");
    expect(spendText).toMatch(/5,?000/); // the cap, with its forecast beside it
    expect(spendText).toMatch(/not reached this month|reached around \d{4}-\d{2}-\d{2}|cap reached/);
    const inFlight = await page.locator("section#in-flight").innerText();
    expect(inFlight).toContain("acme-corp/shop");
    expect(inFlight).toContain(`#${pr.number}`);
    await page.screenshot({ path: `${OUT}/owner.png`, fullPage: true });

    await page.getByRole("button", { name: "Sign out" }).click();
    await page.waitForURL(`${h.web.url}/logout`);
    await expect(page.getByRole("heading", { name: "Signed out" }).count()).resolves.toBe(1);
    await page.goto(`${h.web.url}/installations/${ACME}`);
    expect(page.url().startsWith(`${h.github.url}/login/oauth/authorize?`)).toBe(true);
  }, 90_000);

  it("is readable on a phone: nothing wider than the screen but the tables, which scroll in their box", async () => {
    const b = await browser({ width: 390, height: 844 });
    const page = await signIn(b, `/installations/${ACME}`, "acme-owner");
    const overflow = await page.evaluate<number>(
      "document.documentElement.scrollWidth - window.innerWidth", // runs in the page (the DOM is not in our lib)
    );
    expect(overflow).toBeLessThanOrEqual(0);
    await page.screenshot({ path: `${OUT}/owner-phone.png`, fullPage: true });
  }, 90_000);

  it("shows a user of another organization nothing of it: 404 for the page and its JSON", async () => {
    const b = await browser();
    const page = await b.context.newPage();
    const response = await page.goto(`${h.web.url}/installations/${ACME}`);
    expect(response?.url().startsWith(`${h.github.url}/login/oauth/authorize?`)).toBe(true);
    await page.getByRole("link", { name: "Sign in as globex-owner" }).click();
    await page.waitForURL(`${h.web.url}/installations/${ACME}`);
    const again = await page.reload();
    expect(again?.status()).toBe(404);
    expect(await page.content()).not.toContain("acme-corp");
    await page.screenshot({ path: `${OUT}/other-organization.png`, fullPage: true });
    const json = await b.context.request.get(`${h.web.url}/installations/${ACME}`, {
      headers: { accept: "application/json" },
    });
    expect(json.status()).toBe(404);
    const spendJson = await b.context.request.get(`${h.web.url}/installations/${ACME}/spend`);
    expect(spendJson.status()).toBe(404);
    await page.goto(`${h.web.url}/`);
    const list = await page.content();
    expect(list).toContain("globex");
    expect(list).not.toContain("acme-corp");
    expect((await b.context.request.get(`${h.web.url}/installations/${GLOBEX}/spend`)).status()).toBe(200);
    // every request the sign-ins sent to GitHub, the browser's included, is one GitHub knows
    expect(h.github.violations()).toEqual([]);
  }, 90_000);
});
