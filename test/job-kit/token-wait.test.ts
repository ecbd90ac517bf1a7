import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startHarness, type Harness } from "../../dev/harness/harness.js";
import { completedRun, launchedScan, openPull, sha, type Payload } from "../support/pr.js";
import { webhookExample } from "../../dev/harness/examples.js";
import { jobId } from "../../src/runtime/names.js";

/**
 * The account's scanner token missing for a while (an entry of the tokens file removed, then put back): the
 * scan is paid and keeps running, so its poll and report wait for the token instead of giving up; a token
 * that stays away past the wait concludes the check run with the reason and stops following the scan.
 */
describe("a scanner token missing while a scan runs", () => {
  let h: Harness;
  let gap = false;
  // every pull request of these tests is in the real example's repository owner's account
  const owner = (webhookExample("pull_request", "opened") as Payload).repository.owner.login as string;
  beforeAll(async () => {
    h = await startHarness({
      sandbox: { scenario: "demo", scanDurationMs: 5_000, retryAfterSeconds: 1 },
      boot: {
        scannerToken: undefined,
        scannerTokens: () => (gap ? {} : { [owner]: "sandbox-token" }),
      },
      settings: { tokenGapWaitMs: 8_000 },
    });
  });
  afterAll(async () => h?.close());

  it(
    "a gap of 4 s: the scan is still followed and reported, and leaves the in-flight set",
    { timeout: 60_000 },
    async () => {
      const head = sha(0x4a1);
      const pr = await openPull(h, { head, repo: "token-gap" });
      const scanId = await launchedScan(h, head);
      const installationId = pr.payload.installation.id as number;
      gap = true;
      await new Promise((r) => setTimeout(r, 4_000)); // the poll reads the scan every second meanwhile
      gap = false;
      const run = await completedRun(h, pr.owner, pr.repo, head, 30_000);
      expect(run.conclusion).toBe("failure"); // the demo scenario's HIGH finding: reported
      expect(run.externalId).toBe(scanId);
      expect(h.github.state.reviews(pr.owner, pr.repo, pr.number)).toHaveLength(1);
      expect(await h.booted.rt.stores.scans.inflightScans(installationId)).not.toContain(scanId);
    },
  );

  it(
    "a token gone for good: the check run is concluded with the reason after the wait, and the scan is no longer in flight",
    { timeout: 60_000 },
    async () => {
      const head = sha(0x4a2);
      const pr = await openPull(h, { head, repo: "token-gone" });
      const scanId = await launchedScan(h, head);
      const installationId = pr.payload.installation.id as number;
      gap = true;
      try {
        const run = await completedRun(h, pr.owner, pr.repo, head, 30_000);
        expect(run.conclusion).toBe("failure");
        expect(run.output.title).toBe("Scanning service token missing");
        expect(run.output.summary).toContain(scanId);
        expect(await h.booted.rt.stores.scans.inflightScans(installationId)).not.toContain(scanId);
        const poll = await h.booted.rt.queues.scans.getJob(jobId("poll", scanId));
        expect(poll?.returnvalue).toBe("no-token");
        // nothing was cancelled: without a token diffward cannot speak for the account
        expect(h.sandbox.state.scans.get(scanId)!.final?.status ?? "RUNNING").not.toBe("CANCELLED");
      } finally {
        gap = false;
      }
    },
  );
  it(
    "a gap while the report job runs: the report waits for the token, then posts",
    { timeout: 60_000 },
    async () => {
      const head = sha(0x4a3);
      const pr = await openPull(h, { head, repo: "token-gap-report" });
      const scanId = await launchedScan(h, head);
      // the reports queue paused (no worker takes a job), the scan completes and its poll hands the report over
      const reports = h.booted.rt.queues.reports;
      await reports.pause();
      try {
        h.sandbox.state.completeNow(scanId);
        await h.waitFor(() => reports.getJob(jobId("report", scanId)), 15_000, "report job");
        gap = true;
      } finally {
        await reports.resume();
      }
      const report = (await h.booted.rt.queues.reports.getJob(jobId("report", scanId)))!;
      await h.waitFor(async () => (await report.getState()) === "delayed", 10_000, "the report waiting");
      gap = false;
      const run = await completedRun(h, pr.owner, pr.repo, head, 30_000);
      expect(run.conclusion).toBe("failure"); // the demo scenario's HIGH finding: reported
      expect(h.github.state.reviews(pr.owner, pr.repo, pr.number)).toHaveLength(1);
      expect((await h.booted.rt.queues.reports.getJob(jobId("report", scanId)))?.returnvalue).toBe(
        "reported",
      );
    },
  );
});
