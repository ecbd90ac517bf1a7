import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startHarness, type Harness } from "../../dev/harness/harness.js";
import { progressOff } from "../../src/runtime/apply-writes.js";
import { flushPrefix } from "../support/flush.js";
import { checkRuns, completedRun, launchedScan, openPull, sha } from "../support/pr.js";

/**
 * GitHub's hourly write budget, with the lane's per-hour limit set to 3 so that one pull
 * request meets it: the check run's creation and the scan-id progress write use two writes, the completion
 * the third; the review is folded into the check run, which says so.
 */
describe("the hourly write budget degrades in its stated order and says so", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({
      sandbox: { scenario: "demo", scanDurationMs: 2_500, retryAfterSeconds: 1 },
      boot: { writeLimits: { perHour: 3 } },
    });
  });
  afterAll(async () => h?.close());

  it("progress off, then the review folded into the check run: no review, the summary says why", async () => {
    const pr = await openPull(h, { head: sha(901), repo: "budget" });
    const run = await completedRun(h, pr.owner, pr.repo, sha(901));
    expect(run.conclusion).toBe("failure");
    expect(run.output.summary).toContain("GitHub allows an app 3 content-creating requests an hour");
    expect(run.output.summary).toContain("were not posted as a review");
    expect(h.github.state.reviews(pr.owner, pr.repo, pr.number)).toHaveLength(0);
    const writes = h.github.requests.filter((r) => r.method !== "GET" && r.path.includes(`/${pr.repo}/`));
    expect(writes.length).toBeLessThanOrEqual(3);
    expect(run.externalId).toMatch(/\S/); // the scan id reached GitHub all the same
  });
});

/**
 * The write that links a check run to its scan (`external_id`) is what reconciliation finds a paid scan by
 * after diffward's Redis state is lost: a tight hourly budget (here, many scans in flight) turns progress
 * off, never that write.
 */
describe("a tight hourly budget never drops the scan id from the check run", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ sandbox: { scenario: "demo", scanDurationMs: 4_000, retryAfterSeconds: 1 } });
  });
  afterAll(async () => h?.close());

  it("progress off: the scan id reaches the check run while the scan runs, and a flush then loses nothing", async () => {
    const installationId = 80_421;
    const head = sha(0x90a);
    // 260 scans in flight: 500 writes an hour cannot give each its completion and review, so progress is off
    for (let i = 0; i < 260; i += 1)
      await h.booted.rt.stores.scans.linkScan({
        scanId: `ghost-${i}`,
        projectId: "proj_demo",
        installationId,
        accountLogin: "Codertocat",
        owner: "Codertocat",
        repo: "ghosts",
        pullNumber: i + 1,
        headSha: sha(0x90b),
        checkRunId: i + 1,
      });
    expect(await progressOff(h.booted.rt, installationId)).toBe(true);

    const pr = await openPull(h, { head, repo: "budget-link", installationId });
    const scanId = await launchedScan(h, head);
    const linked = await h.waitFor(
      () => checkRuns(h, pr.owner, pr.repo, head).find((c) => c.externalId === scanId),
      10_000,
      "the scan id on the check run",
    );
    expect(linked.status).toBe("in_progress");
    expect(TERMINAL).not.toContain(h.sandbox.state.statusOf(h.sandbox.state.scans.get(scanId)!));

    expect(await flushPrefix(h.prefix)).toBeGreaterThan(0);
    const summary = await h.booted.reconcile();
    expect(summary.resumed).toEqual([scanId]);
    const done = await completedRun(h, pr.owner, pr.repo, head, 30_000);
    expect(done.externalId).toBe(scanId);
    expect(done.conclusion).toBe("failure");
    expect([...h.sandbox.state.scans.values()].filter((s) => s.commitHash === head)).toHaveLength(1);
  });
});

const TERMINAL = ["COMPLETED", "FAILED", "CANCELLED"];
