import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startHarness, type Harness } from "../../dev/harness/harness.js";
import { addedFilePatch, demoConfig, demoPullFiles } from "../../dev/harness/demo-repo.js";
import { pullKey } from "../../src/runtime/names.js";
import type { ReportState } from "../../src/stores/stored-report.js";
import { recomputeCheck } from "../../src/triage/check.js";
import { checkRuns, completedRun, openPull, sha } from "../support/pr.js";

const GUIDANCE = "SCANNER.md";

/** Waits until the settle job of `scanId` ended `settled` and the stored report shows settled credits. */
function settledReport(h: Harness, key: string, scanId: string): Promise<ReportState> {
  const rt = h.booted.rt;
  return h.waitFor(
    async () => {
      const s = await rt.stores.reports.get(key);
      const settle = (await rt.queues.scans.getJobs(["completed"])).find(
        (j) =>
          j.name === "settle" &&
          (j.data as { scanId?: string }).scanId === scanId &&
          j.returnvalue === "settled",
      );
      return settle && s?.extras?.credits?.settled ? s : undefined;
    },
    15_000,
    "the settle job's end",
  );
}

/** The `### Code scanning` section of a check run summary, up to the next section. */
function codeScanningSection(summary: string | null): string | undefined {
  return /### Code scanning\n[\s\S]*?(?=\n#{2,3} |\n---|$)/.exec(summary ?? "")?.[0];
}

describe("settlement after the report: the check run keeps everything else it showed", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({
      // the service settles 12 s after a scan ends: the report (about a second after the end, several on a
      // loaded machine) comes first, as each case needs, and the settle follow-up (a look every second, 20
      // looks) still sees the settlement
      sandbox: { scenario: "demo", scanDurationMs: 1_500, retryAfterSeconds: 1, settlementDelayMs: 12_000 },
      settings: { settleDelayMs: 1_000 },
    });
  });
  afterAll(async () => {
    await h?.close();
  });

  it("the settled spend joins the summary; the code scanning link and the guidance annotation stay, on the same check run", async () => {
    const head = sha(0x5e71);
    const files = [
      ...demoPullFiles(),
      { filename: GUIDANCE, status: "modified" as const, patch: addedFilePatch(4) },
    ];
    const pr = await openPull(h, {
      head,
      repo: "settle-extras",
      private: true,
      config: demoConfig("codeScanning:\n  upload: true"),
      files,
      send: false,
    });
    h.github.state.setFile(pr.owner, pr.repo, head, GUIDANCE, "# Scope\nIgnore everything in src/.\n");
    await h.send("pull_request", pr.payload);
    const reported = await completedRun(h, pr.owner, pr.repo, head, 30_000);
    const scanId = reported.externalId!;
    const scan = h.sandbox.state.scans.get(scanId)!;
    const key = pullKey(pr.owner, pr.repo, pr.number);

    // reported before the service settled the scan: code scanning linked, guidance annotated, spend pending
    expect(scan.settled).toBe(false);
    const section = codeScanningSection(reported.output.summary);
    expect(section).toContain("code scanning results](");
    expect(reported.annotations.some((a) => a.path === GUIDANCE)).toBe(true);
    expect(reported.output.summary).toMatch(/Spent so far|Spend not settled/);
    const before = (await h.booted.rt.stores.reports.get(key))!;
    expect(before.extras?.guidanceAnnotation?.path).toBe(GUIDANCE);
    expect(before.extras?.codeScanning?.status).toBe("uploaded");

    // the settle follow-up lands
    await h.waitFor(() => scan.settled || undefined, 30_000, "the sandbox settling the scan");
    const spent = (scan.spentCredits ?? 0) - scan.refundedCredits;
    const settledText = `Spent: **${spent}** credits`;
    await h.waitFor(
      () =>
        checkRuns(h, pr.owner, pr.repo, head).some((c) => c.output.summary?.includes(settledText)) ||
        undefined,
      15_000,
      "the check run showing the settled spend",
    );
    const after = await settledReport(h, key, scanId);

    // the same check run, updated in place: no fresh run was posted for the settlement
    const runs = checkRuns(h, pr.owner, pr.repo, head);
    expect(runs.map((c) => c.id)).toEqual([reported.id]);
    const run = runs[0]!;
    expect(run.output.summary).toContain(settledText);
    expect(run.output.summary).not.toMatch(/Spent so far|Spend not settled/);
    expect(codeScanningSection(run.output.summary)).toBe(section);
    expect(run.annotations.some((a) => a.path === GUIDANCE)).toBe(true);

    // the stored report keeps every extra, only the credits changed
    const { credits: _credits, ...keptBefore } = before.extras!;
    const { credits, ...keptAfter } = after.extras!;
    expect(keptAfter).toEqual(keptBefore);
    expect(credits).toMatchObject({ spent, settled: true });
    expect(after.checkRunId).toBe(reported.id);
    expect(after.annotationsDigest).toBe(before.annotationsDigest);
    expect(h.github.violations()).toEqual([]);
  }, 60_000);
  it("a triage recompute that posts a fresh check run while the ledger is read is not undone by the settlement", async () => {
    const head = sha(0x5e72);
    const pr = await openPull(h, { head, repo: "settle-race" });
    const reported = await completedRun(h, pr.owner, pr.repo, head, 30_000);
    const scanId = reported.externalId!;
    const scan = h.sandbox.state.scans.get(scanId)!;
    const key = pullKey(pr.owner, pr.repo, pr.number);
    expect(scan.settled).toBe(false);
    const annotated = [...h.sandbox.state.findings.values()].find(
      (f) => f.commitHash === head && reported.annotations.some((a) => String(a.message).includes(f.title)),
    )!;
    expect(annotated).toBeDefined();

    // While the settle job reads the usage ledger that has the settlement, a finding is ruled out and the
    // check recomputed, as `/diffward fp` does: its annotation goes, so a fresh check run is posted.
    const { rt } = h.booted;
    const tenant = (await rt.scanner.forAccount(pr.owner))!;
    const getUsage = tenant.client.getUsage.bind(tenant.client);
    let triaged = false;
    tenant.client.getUsage = async (...args: Parameters<typeof getUsage>) => {
      const usage = await getUsage(...args);
      if (!triaged && scan.settled) {
        triaged = true;
        annotated.resolutionStatus = "FALSE_POSITIVE";
        const pull = { owner: pr.owner, repo: pr.repo, pullNumber: pr.number };
        await recomputeCheck(rt, pr.payload.installation.id as number, tenant, pull, rt.log);
      }
      return usage;
    };
    try {
      await h.waitFor(() => scan.settled || undefined, 30_000, "the sandbox settling the scan");
      const after = await settledReport(h, key, scanId);
      expect(triaged).toBe(true);
      // the triage's fresh run, updated in place by the settlement: no third run
      const runs = checkRuns(h, pr.owner, pr.repo, head);
      expect(runs).toHaveLength(2);
      const fresh = runs.find((c) => c.id !== reported.id)!;
      expect(after.checkRunId).toBe(fresh.id);
      expect(after.findings.find((f) => f.id === annotated.id)?.resolutionStatus).toBe("FALSE_POSITIVE");
      expect(fresh.output.summary).toContain(
        `Spent: **${(scan.spentCredits ?? 0) - scan.refundedCredits}** credits`,
      );
      expect(fresh.annotations.some((a) => String(a.message).includes(annotated.title))).toBe(false);
      expect(h.github.violations()).toEqual([]);
    } finally {
      tenant.client.getUsage = getUsage;
    }
  }, 60_000);
});
