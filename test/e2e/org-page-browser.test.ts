/**
 * The organization's page in a real browser (Debian's Chromium through playwright-core) against diffward's
 * web server, the GitHub stand-in's web flow and the sandbox: an organization owner signs in, sees the
 * month's spend, the cap forecast, the per-repository chart, the scan in flight, a dismissal held for
 * approval and an acceptance expiring in 14 days (both written as review replies through the app) and a
 * repository whose config is invalid, and signs out; a user of another organization sees nothing of it (404);
 * a visitor without a session is sent to sign in. Screenshots go to out/org-page/ (owner.png is the README's docs/org-page.png).
 */
import { mkdirSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openBrowser, type FreshBrowser } from "../../dev/harness/browser.js";
import { demoConfig } from "../../dev/harness/demo-repo.js";
import { startHarness, type Harness } from "../../dev/harness/harness.js";
import { addOrgOwner } from "../../dev/harness/sign-in.js";
import {
  DEMO_APPROVAL_CONFIG,
  demoReplyCommand,
  findingComments,
  type DemoReplyResult,
} from "../../dev/harness/triage.js";
import { completedRun, launchedScan, openPull, sha } from "../support/pr.js";

const OUT = "out/org-page";
const ACME = 4100;
const GLOBEX = 4200;
const REPORTED_HEAD = sha(0xb10);
const IN_FLIGHT_HEAD = sha(0xb11);
const MISCONFIGURED_HEAD = sha(0xb12);
/** the writer whose dismissal is held and whose acceptance expires */
const DEVELOPER = "acme-dev";
const DAY_MS = 24 * 3600_000;

describe("the organization's page in Chromium", () => {
  let h: Harness;
  const browsers: FreshBrowser[] = [];
  let pr: Awaited<ReturnType<typeof openPull>>;
  let scanId = "";
  let reportedNumber = 0;
  let held: DemoReplyResult;
  let accepted: DemoReplyResult;

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
    addOrgOwner(h.github, "acme-owner", "acme-corp", ACME);
    addOrgOwner(h.github, "globex-owner", "globex", GLOBEX);
    const shop = {
      repo: "shop",
      installationId: ACME,
      owner: { login: "acme-corp", type: "Organization" as const },
      config: demoConfig(`creditCap:\n  monthly: 5000\n${DEMO_APPROVAL_CONFIG}`),
    };
    const reported = await openPull(h, { ...shop, head: REPORTED_HEAD });
    await completedRun(h, reported.owner, reported.repo, REPORTED_HEAD, 30_000);
    reportedNumber = reported.number;
    // a writer's /fp on a HIGH finding waits for a maintainer (triage.approval); their /wontfix on a MEDIUM
    // finding, below the approval's minSeverity, is applied and expires in 14 days
    const at = { owner: reported.owner, repo: reported.repo, pullNumber: reported.number };
    const commented = (severity: string) =>
      findingComments(h, at).find((c) => h.sandbox.state.findings.get(c.findingId)?.severity === severity)!
        .findingId;
    const reply = (command: string, severity: string) =>
      demoReplyCommand(h, { ...at, login: DEVELOPER, command, findingId: commented(severity) });
    held = await reply("/fp not_reachable", "HIGH");
    expect(held.resolutionStatus).toBe("NOT_STARTED");
    accepted = await reply("/wontfix risk_accepted for 14d", "MEDIUM");
    expect(accepted.resolutionStatus).toBe("WONT_FIX");
    // another repository's .github/diffward.yml is invalid: its check fails before any credit is reserved
    const billing = { ...shop, repo: "billing", config: demoConfig("triage:\n  maxAcceptanceDays: 0") };
    await openPull(h, { ...billing, head: MISCONFIGURED_HEAD });
    await completedRun(h, "acme-corp", "billing", MISCONFIGURED_HEAD, 30_000);
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

  it("shows an organization owner the month's spend, the cap forecast, the chart, the scan in flight, the held approval, the expiring acceptance and the invalid config, then signs out", async () => {
    const b = await browser();
    const page = await signIn(b, `/installations/${ACME}`, "acme-owner");
    // the scan is listed once its launch is linked; the section's JSON says when
    const listed = async (section: string, id: string) => {
      const res = await b.context.request.get(`${h.web.url}/installations/${ACME}/${section}`);
      return res.ok() && JSON.stringify(await res.json()).includes(id);
    };
    await h.waitFor(() => listed("in-flight", scanId), 20_000, "the scan in flight on the page");
    expect(await listed("approvals", held.findingId)).toBe(true);
    expect(await listed("expiring", accepted.findingId)).toBe(true);
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
    const problems = await page.locator("section#problems").innerText();
    expect(problems).toMatch(/acme-corp\/billing\s+triage\.maxAcceptanceDays/);
    await expectDecisions(page);
    await page.screenshot({ path: `${OUT}/owner.png`, fullPage: true });

    await page.getByRole("button", { name: "Sign out" }).click();
    await page.waitForURL(`${h.web.url}/logout`);
    await expect(page.getByRole("heading", { name: "Signed out" }).count()).resolves.toBe(1);
    await page.goto(`${h.web.url}/installations/${ACME}`);
    expect(page.url().startsWith(`${h.github.url}/login/oauth/authorize?`)).toBe(true);
  }, 90_000);

  /** The held approval and the expiring acceptance, each linking to its finding's review thread. */
  async function expectDecisions(page: Awaited<ReturnType<typeof signIn>>) {
    const approvals = page.locator("section#approvals");
    const approvalsText = await approvals.innerText();
    for (const part of [`#${reportedNumber}`, held.findingId, "HIGH", "FALSE_POSITIVE", DEVELOPER])
      expect(approvalsText).toContain(part);
    const expiring = page.locator("section#expiring");
    const expiringText = await expiring.innerText();
    for (const part of [`#${reportedNumber}`, accepted.findingId, "WONT_FIX", DEVELOPER])
      expect(expiringText).toContain(part);
    // "for 14d" counts from the command: the day shown is 14 days ahead (or the next, past midnight UTC)
    const days = [0, 1].map((d) =>
      new Date(Date.now() + 14 * DAY_MS + d * DAY_MS).toISOString().slice(0, 10),
    );
    expect(days.some((d) => expiringText.includes(d))).toBe(true);
    for (const [section, findingId] of [
      [approvals, held.findingId],
      [expiring, accepted.findingId],
    ] as const) {
      const href = await section.getByRole("link", { name: findingId }).getAttribute("href");
      expect(href).toMatch(new RegExp(`/acme-corp/shop/pull/${reportedNumber}#discussion_r\\d+$`));
    }
  }

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
