import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startHarness, type Harness } from "../../dev/harness/harness.js";
import { demoConfig } from "../../dev/harness/demo-repo.js";
import { jobId } from "../../src/runtime/names.js";
import { completedRun, launchedScan, openPull, pushPull, sha } from "../support/pr.js";
import { quickRetryOctokit } from "../support/octokit.js";

function checkWrites(h: Harness, checkRunId: number) {
  return h.github.requests.filter(
    (r) => r.method === "PATCH" && r.path.endsWith(`/check-runs/${checkRunId}`),
  );
}

describe("following and reporting a scan", () => {
  let h: Harness;
  let n = 0;
  const repo = () => `report-${++n}`;
  beforeAll(async () => {
    h = await startHarness({
      sandbox: { scenario: "demo", scanDurationMs: 4_000, retryAfterSeconds: 1, seed: 31 },
      settings: { progressIntervalMs: 500 },
    });
  });
  afterAll(async () => h?.close());

  it("polls no sooner than Retry-After, shows progress at most 5 times, and reports once", async () => {
    const pr = await openPull(h, { head: sha(201), repo: repo() });
    const run = await completedRun(h, pr.owner, pr.repo, sha(201));
    expect(h.sandbox.state.stats.earlyPoll429s).toBe(0);
    const titles = checkWrites(h, run.id).map(
      (r) => (r.body as { output?: { title?: string } }).output?.title ?? "",
    );
    const progress = titles.filter((t) => /^Scanning: \d+%$/.test(t));
    expect(progress.length).toBeGreaterThan(0);
    expect(progress.length).toBeLessThanOrEqual(5);
    // a 4 s scan with Retry-After 1 s: a handful of polls, never a fixed fast interval
    const polls = h.sandbox.state.stats.requests["GET /projects/:projectId/scans/:scanId"]?.["200"] ?? 0;
    expect(polls).toBeGreaterThanOrEqual(2);
    expect(polls).toBeLessThanOrEqual(7);
    expect(h.github.state.reviews(pr.owner, pr.repo, pr.number)).toHaveLength(1);
  });

  it("a later push updates the comments of the same findings instead of posting again", async () => {
    const pr = await openPull(h, { head: sha(202), repo: repo() });
    await completedRun(h, pr.owner, pr.repo, sha(202));
    const first = h.github.state.reviewComments(pr.owner, pr.repo, pr.number).map((c) => c.id);
    expect(first.length).toBeGreaterThan(0);
    await pushPull(h, pr, sha(203));
    await completedRun(h, pr.owner, pr.repo, sha(203));
    const after = h.github.state.reviewComments(pr.owner, pr.repo, pr.number);
    expect(after.map((c) => c.id)).toEqual(first); // same comments, nothing new
    expect(h.github.state.reviews(pr.owner, pr.repo, pr.number)).toHaveLength(1);
    // the comments now name the later scan's findings (new ids, same fingerprint)
    const laterScanIds = [...h.sandbox.state.findings.values()]
      .filter((f) => f.commitHash === sha(203))
      .map((f) => f.id);
    expect(after.some((c) => laterScanIds.some((id) => c.body.includes(id)))).toBe(true);
  });

  it("public repositories default to summary disclosure: no inline comments, no descriptions", async () => {
    const pr = await openPull(h, {
      head: sha(204),
      repo: repo(),
      private: false,
      config: demoConfig().replace("disclosure: full\n", ""),
    });
    const run = await completedRun(h, pr.owner, pr.repo, sha(204));
    expect(run.conclusion).toBe("failure");
    expect(h.github.state.reviewComments(pr.owner, pr.repo, pr.number)).toHaveLength(0);
    expect(run.output.summary).not.toContain("SQL injection");
    // no annotation marks the vulnerable lines on a public pull request
    expect(run.annotations).toEqual([]);
    expect(run.output.summary).toContain("🔒 Details withheld");
  });

  it("comments.maxInline caps the review; the rest stay in the summary", async () => {
    const pr = await openPull(h, {
      head: sha(205),
      repo: repo(),
      config: demoConfig("comments:\n  maxInline: 2"),
    });
    const run = await completedRun(h, pr.owner, pr.repo, sha(205));
    expect(h.github.state.reviewComments(pr.owner, pr.repo, pr.number)).toHaveLength(2);
    expect(run.output.summary + (run.output.text ?? "")).toContain("Prototype pollution"); // outside the diff
  });

  it("a FAILED scan concludes the check with a clear message", async () => {
    const pr = await openPull(h, { head: sha(206), repo: repo() });
    const launched = { externalId: await launchedScan(h, sha(206)) };
    h.sandbox.state.forceScanOutcome(launched.externalId!, "FAILED");
    const run = await completedRun(h, pr.owner, pr.repo, sha(206));
    expect(run.conclusion).toBe("failure");
    expect(run.output.title).toMatch(/fail/i);
  });

  it("a scan still running after scanTimeoutMinutes is cancelled and concluded timed_out", async () => {
    const pr = await openPull(h, {
      head: sha(207),
      repo: repo(),
      config: demoConfig("scanTimeoutMinutes: 1"),
    });
    const launched = { externalId: await launchedScan(h, sha(207)) };
    // the poll job records its launch time when it is enqueued, just after the check run shows the scan id:
    // move the clock only once it exists
    await h.waitFor(
      () => h.booted.rt.queues.scans.getJob(jobId("poll", launched.externalId!)),
      10_000,
      "poll job",
    );
    const realNow = h.booted.rt.now;
    h.booted.rt.now = () => Date.now() + 2 * 60_000;
    try {
      const run = await completedRun(h, pr.owner, pr.repo, sha(207));
      expect(run.conclusion).toBe("timed_out");
      expect(h.sandbox.state.statusOf(h.sandbox.state.scans.get(launched.externalId!)!)).toBe("CANCELLED");
    } finally {
      h.booted.rt.now = realNow;
    }
  });
  it("a scan the service no longer knows (404 not_found) concludes the check run failure and is no longer followed", async () => {
    const pr = await openPull(h, { head: sha(208), repo: repo() });
    const scanId = await launchedScan(h, sha(208));
    // the service forgets the scan: GET /projects/{projectId}/scans/{scanId} now answers 404 not_found
    h.sandbox.state.scans.delete(scanId);
    const run = await completedRun(h, pr.owner, pr.repo, sha(208));
    expect(run.conclusion).toBe("failure");
    expect(JSON.stringify(run.output)).toContain("The service no longer knows this scan");
    expect(h.sandbox.state.stats.requests["GET /projects/:projectId/scans/:scanId"]?.["404"]).toBeGreaterThan(
      0,
    );
    const installationId = pr.payload.installation.id as number;
    expect(await h.booted.rt.stores.scans.inflightScans(installationId)).not.toContain(scanId);
    expect(h.github.state.reviews(pr.owner, pr.repo, pr.number)).toHaveLength(0);
  });
});

describe("a report that throws on its last attempt", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({
      sandbox: { scenario: "demo", scanDurationMs: 1_000, retryAfterSeconds: 1, seed: 37 },
      settings: { reportAttempts: 2, reportBackoffMs: 200 },
      // each refused review is retried by Octokit (3 times, 1, 4 and 9 units apart): 50 ms units, not 1 s
      boot: { Octokit: quickRetryOctokit() },
    });
  });
  afterAll(async () => h?.close());

  it("concludes the check run failure with what happened and what to do, instead of staying in progress", async () => {
    // Every review this repository's report posts is refused: not a service error, so only the last-attempt
    // rule can end the check run.
    h.github.setFaults({
      next5xx: 1_000_000,
      status: 500,
      route: /\/repos\/[^/]+\/report-throws\/pulls\/\d+\/reviews$/,
    });
    const pr = await openPull(h, { head: sha(251), repo: "report-throws" });
    const run = await completedRun(h, pr.owner, pr.repo, sha(251), 60_000);
    h.github.setFaults({});
    expect(run.conclusion).toBe("failure");
    expect(run.output.title).toBe("Report could not be posted");
    expect(run.output.summary).toContain("Re-run");
    expect(h.github.state.reviews(pr.owner, pr.repo, pr.number)).toHaveLength(0);
    // the scan is no longer in flight
    const scanId = await launchedScan(h, sha(251));
    expect(await h.booted.rt.stores.scans.inflightScans(pr.payload.installation.id)).not.toContain(scanId);
  }, 90_000);
});
