/**
 * The organization's page after real flows (the harness: diffward against the sandbox and the GitHub
 * stand-in): a scan in flight shows its status and progress as the poll read it; its report is logged with
 * its conclusion, findings and push-to-report time (from the delivery diffward received); its spend counts its budget until the settlement
 * lands, then the settled spend; a repository with an invalid `.github/diffward.yml` is listed with its
 * first problem.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startHarness, type Harness } from "../../dev/harness/harness.js";
import { demoConfig } from "../../dev/harness/demo-repo.js";
import { createOrgPageDeps, loadInstallationPage, type OrgPageDeps } from "../../src/org-page/page-data.js";
import { PUSH_TO_REPORT_MEANING, renderInstallationPage } from "../../src/org-page/render-page.js";
import { escapeHtml } from "../../src/render/html.js";
import { completedRun, launchedScan, openPull, reportEnded, seedPull, sha } from "../support/pr.js";

describe("the organization's page after real flows", () => {
  let h: Harness;
  let deps: OrgPageDeps;
  const owner = { orgWide: true, repositories: "all" } as const;

  beforeAll(async () => {
    h = await startHarness({
      sandbox: { scenario: "demo", scanDurationMs: 4_000, retryAfterSeconds: 1, settlementDelayMs: 3_000 },
      settings: { settleDelayMs: 1_000 },
    });
    deps = createOrgPageDeps(h.booted.rt, {
      accountOf: async () => "Codertocat",
      githubUrl: "https://github.com",
      outsideBudgetMs: 10_000,
    });
  });
  afterAll(async () => {
    await h?.close();
  });

  it("shows the scan in flight, then its report and its spend, budget first and settled after", async () => {
    const head = sha(0x26a);
    const pr = await openPull(h, { head, repo: "org-spend", private: true });
    const installationId: number = pr.payload.installation.id;
    deps = createOrgPageDeps(h.booted.rt, {
      accountOf: async () => pr.owner,
      githubUrl: "https://github.com",
      outsideBudgetMs: 10_000,
    });
    const scanId = await launchedScan(h, head, 15_000);
    const live = await h.waitFor(
      async () => {
        const page = await loadInstallationPage(deps, installationId, owner);
        const s = page.inFlight.find((x) => x.scanId === scanId);
        return s && s.status !== "LAUNCHED" ? s : undefined;
      },
      15_000,
      "the scan's first poll on the page",
    );
    expect(live).toMatchObject({ repository: `${pr.owner}/org-spend`, pullNumber: pr.number, headSha: head });
    expect(["QUEUED", "PROCESSING", "REPORTING"]).toContain(live.status);

    const run = await completedRun(h, pr.owner, pr.repo, head, 30_000);
    await reportEnded(h, scanId);
    const reported = await loadInstallationPage(deps, installationId, owner);
    expect(reported.inFlight.map((s) => s.scanId)).not.toContain(scanId);
    const row = reported.reports.find((r) => r.scanId === scanId)!;
    const scan = h.sandbox.state.scans.get(scanId)!;
    expect(row).toMatchObject({
      repository: `${pr.owner}/org-spend`,
      pullNumber: pr.number,
      conclusion: run.conclusion,
    });
    const findings = Object.values(row.severities).reduce((a, b) => a + b, 0);
    expect(findings).toBeGreaterThan(0);
    expect(row.pushToReportMs).toBeGreaterThan(0);
    expect(row.pushToReportMs).toBeLessThan(120_000);

    await h.waitFor(() => scan.settled || undefined, 15_000, "the sandbox settling the scan");
    const spent = (scan.spentCredits ?? 0) - scan.refundedCredits;
    const settled = await h.waitFor(
      async () => {
        const page = await loadInstallationPage(deps, installationId, owner);
        const r = page.reports.find((x) => x.scanId === scanId);
        return r?.settled ? page : undefined;
      },
      20_000,
      "the settled spend on the page",
    );
    expect(settled.reports.find((r) => r.scanId === scanId)!.credits).toBe(spent);
    const repo = settled.spend.repositories.find((r) => r.repository === `${pr.owner}/org-spend`)!;
    expect(repo.months.at(-1)!.pulls).toEqual([{ pullNumber: pr.number, credits: spent, settled: true }]);
    expect(renderInstallationPage(settled, { user: pr.owner, logoutPath: "/logout" })).toContain(
      `<a href="https://github.com/${pr.owner}/org-spend/pull/${pr.number}">`,
    );
  });

  it("lists a repository whose .github/diffward.yml is invalid, until it is valid again", async () => {
    const pr = await openPull(h, { head: sha(0x26b), repo: "org-invalid", config: "failOn: sometimes\n" });
    const installationId: number = pr.payload.installation.id;
    const problem = await h.waitFor(
      async () =>
        (await loadInstallationPage(deps, installationId, owner)).problems.invalidConfigs.find(
          (c) => c.repository === `${pr.owner}/org-invalid`,
        ),
      15_000,
      "the invalid config on the page",
    );
    // the first problem, as the check run shows it
    expect(problem.problem).toBe("repositoryId: is required");
    const member = { orgWide: false, repositories: new Set([`${pr.owner}/org-spend`]) };
    const hidden = await loadInstallationPage(deps, installationId, member);
    expect(hidden.problems.invalidConfigs).toEqual([]);

    // the file fixed on the default branch: the next pull request's event forgets the problem
    const branch: string = pr.payload.repository.default_branch;
    h.github.state.setFile(pr.owner, pr.repo, branch, ".github/diffward.yml", demoConfig());
    await openPull(h, { head: sha(0x26c), repo: "org-invalid", number: pr.number + 1 });
    await h.waitFor(
      async () =>
        (await loadInstallationPage(deps, installationId, owner)).problems.invalidConfigs.every(
          (c) => c.repository !== `${pr.owner}/org-invalid`,
        ) || undefined,
      15_000,
      "the fixed config gone from the page",
    );
  });

  it("logs a scan that failed as a report with the check run's conclusion and no findings", async () => {
    const head = sha(0x26d);
    const pr = await openPull(h, { head, repo: "org-failed" });
    const installationId: number = pr.payload.installation.id;
    const scanId = await launchedScan(h, head, 15_000);
    h.sandbox.state.forceScanOutcome(scanId, "FAILED");
    const run = await completedRun(h, pr.owner, pr.repo, head, 30_000);
    expect(run.conclusion).toBe("failure");
    const row = await h.waitFor(
      async () =>
        (await loadInstallationPage(deps, installationId, owner)).reports.find((r) => r.scanId === scanId),
      15_000,
      "the failed scan's report on the page",
    );
    expect(row).toMatchObject({
      repository: `${pr.owner}/org-failed`,
      conclusion: "failure",
      severities: {},
    });
  });

  it("measures push → report from when diffward received the delivery, not from the payload's days-old timestamps", async () => {
    const head = sha(0x26e);
    const pr = seedPull(h, { head, repo: "org-old-dates" });
    const sixDaysAgo = new Date(Date.now() - 6 * 24 * 3600_000).toISOString();
    pr.payload.pull_request.created_at = sixDaysAgo;
    pr.payload.pull_request.updated_at = sixDaysAgo;
    pr.payload.repository.pushed_at = sixDaysAgo;
    const sent = Date.now();
    await h.send("pull_request", pr.payload);
    const installationId: number = pr.payload.installation.id;
    const scanId = await launchedScan(h, head, 15_000);
    await completedRun(h, pr.owner, pr.repo, head, 30_000);
    await reportEnded(h, scanId);
    const page = await loadInstallationPage(deps, installationId, owner);
    const row = page.reports.find((r) => r.scanId === scanId)!;
    // the scan takes seconds (scanDurationMs 4 s): the report is seconds after the delivery, not six days
    expect(row.pushToReportMs).toBeGreaterThan(0);
    expect(row.pushToReportMs).toBeLessThanOrEqual(Date.now() - sent);
    expect(row.pushToReportMs).toBeLessThan(60_000);
    expect(renderInstallationPage(page, { user: pr.owner, logoutPath: "/logout" })).toContain(
      `<span title="${escapeHtml(PUSH_TO_REPORT_MEANING)}">Push → report</span>`,
    );
  });
});
