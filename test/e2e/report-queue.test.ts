import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startHarness, type Harness } from "../../dev/harness/harness.js";
import { jobId } from "../../src/runtime/names.js";
import { checkRuns, completedRun, launchedScan, openPull, reportEnded, sha } from "../support/pr.js";

/**
 * polling never waits on GitHub. A terminal scan's report runs as its own job (queue
 * `diffward-reports`), so reports waiting for the installation's write lane do not hold the slots that poll
 * running scans. Counts and order only, no timing: the write lane is blocked on purpose while reports wait.
 */
describe("reports on their own queue", () => {
  let h: Harness;
  const LONG = sha(0x15a1);
  const SHORT = [sha(0x15b1), sha(0x15b2), sha(0x15b3)];
  const REPOS = ["alpha", "bravo1", "charlie12"];
  /** the scans-queue slots of the process: fewer than the reports that will wait */
  const POLL_SLOTS = 2;

  beforeAll(async () => {
    h = await startHarness({
      sandbox: {
        scenario: "demo",
        // the long scan runs for the whole test; the short ones end a few seconds after launch
        scanDurationMs: (scan) => (scan.commitHash === LONG ? 30 * 60_000 : 4_000),
        retryAfterSeconds: 0,
        seed: 15,
      },
      settings: { firstPollDelayMs: 100, pollFloorMs: 100, pollMarginMs: 0 },
      boot: {
        concurrency: { scans: POLL_SLOTS },
        // no pacing until the test blocks the lane (minGapMs is raised below)
        writeLimits: { minGapMs: 0, perMinute: 1_000_000, perHour: 1_000_000 },
      },
    });
  }, 30_000);
  afterAll(async () => {
    await h?.close();
  });

  it("a running scan is still polled while finished scans' reports wait for a blocked write lane", async () => {
    const lane = h.booted.rt.lane!;
    const long = await openPull(h, { head: LONG, repo: "long-scan" });
    const shorts: Array<Awaited<ReturnType<typeof openPull>>> = [];
    for (const [i, head] of SHORT.entries()) shorts.push(await openPull(h, { head, repo: REPOS[i]! }));
    // every check run exists (the only awaited write before a launch): block the lane from here on
    await h.waitFor(
      () => [long, ...shorts].every((p) => checkRuns(h, p.owner, p.repo).length === 1),
      15_000,
      "check runs created",
    );
    lane.limits.minGapMs = 3_600_000;
    try {
      expect(shorts.every((p) => checkRuns(h, p.owner, p.repo)[0]!.status !== "completed")).toBe(true);
      const longScanId = await launchedScan(h, LONG);
      // A report has started when it read its pull request's review comments (before any of its writes);
      // with the lane blocked, it then waits there. At least as many as there are poll slots.
      const reportStarted = (p: (typeof shorts)[number]): boolean =>
        h.github.requests.some(
          (r) => r.method === "GET" && r.path === `/repos/${p.owner}/${p.repo}/pulls/${p.number}/comments`,
        );
      await h.waitFor(
        () => shorts.filter(reportStarted).length >= POLL_SLOTS,
        30_000,
        `${POLL_SLOTS} reports waiting on the lane`,
      );
      const readsBefore = h.sandbox.state.scans.get(longScanId)!.polls;
      await h.waitFor(
        () => h.sandbox.state.scans.get(longScanId)!.polls >= readsBefore + 3,
        15_000,
        "the running scan read 3 more times while reports wait",
      );
      // the reads happened while the reports were still waiting: no short check run completed yet
      expect(shorts.map((p) => checkRuns(h, p.owner, p.repo)[0]!.status)).not.toContain("completed");
      // each report is its own job, one per scan (a short scan read last may hand its report over a moment later)
      for (const head of SHORT) {
        const scanId = await launchedScan(h, head);
        const report = await h.waitFor(
          () => h.booted.rt.queues.reports.getJob(jobId("report", scanId)),
          15_000,
          `the report job of ${scanId}`,
        );
        expect(report.id).toBe(jobId("report", scanId));
      }
    } finally {
      lane.limits.minGapMs = 0;
    }
    for (const p of shorts) {
      const run = await completedRun(h, p.owner, p.repo, p.payload.pull_request.head.sha as string, 30_000);
      expect(run.conclusion).toBe("failure"); // the demo scenario's confirmed critical finding
      expect(h.github.state.reviews(p.owner, p.repo)).toHaveLength(1);
    }
    expect(checkRuns(h, long.owner, long.repo)[0]!.status).not.toBe("completed");
  }, 90_000);

  it("a poll run again after it handed its report over (a crash before it completed) reports once", async () => {
    const head = sha(0x15c1);
    const p = await openPull(h, { head, repo: "delta" });
    const run = await completedRun(h, p.owner, p.repo, head);
    const scanId = run.externalId!;
    const poll = (await h.booted.rt.queues.scans.getJob(jobId("poll", scanId)))!;
    const report = (await h.booted.rt.queues.reports.getJob(jobId("report", scanId)))!;
    expect(poll.returnvalue).toBe("report-queued");
    expect(report.returnvalue).toBe("reported");
    const reads = h.sandbox.state.scans.get(scanId)!.polls;
    const writesBefore = h.github.requests.filter((r) => r.method !== "GET").length;

    // the poll job runs again as after a crash between the report job's add and the poll's completion
    await poll.retry("completed");
    await h.waitFor(
      async () => {
        const j = await h.booted.rt.queues.scans.getJob(jobId("poll", scanId));
        return (await j?.getState()) === "completed" && (j?.finishedOn ?? 0) > (poll.finishedOn ?? 0);
      },
      15_000,
      "poll job ran again",
    );
    await reportEnded(h, scanId);
    expect(h.sandbox.state.scans.get(scanId)!.polls).toBe(reads + 1); // it did run: one more read
    const again = (await h.booted.rt.queues.reports.getJob(jobId("report", scanId)))!;
    expect(again.finishedOn).toBe(report.finishedOn); // the add was deduplicated: not reported twice
    expect(again.attemptsMade).toBe(report.attemptsMade);
    expect(h.github.state.reviews(p.owner, p.repo)).toHaveLength(1);
    expect(h.github.requests.filter((r) => r.method !== "GET").length).toBe(writesBefore);
  }, 60_000);
});
