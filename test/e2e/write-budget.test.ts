import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startHarness, type Harness } from "../../dev/harness/harness.js";
import { completedRun, openPull, sha } from "../support/pr.js";

/**
 * GitHub's hourly write budget (issue 15, item 3), with the lane's per-hour limit set to 3 so that one pull
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
