import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { applyFaults } from "../../dev/sandbox/index.js";
import { mergeGroupPayload } from "../../dev/github-standin/index.js";
import { startHarness, type Harness } from "../../dev/harness/harness.js";
import { demoConfig } from "../../dev/harness/demo-repo.js";
import { jobId } from "../../src/runtime/names.js";
import { DEFAULT_BREAKER_TIMINGS } from "../../src/stores/service-breaker.js";
import { checkRuns, completedRun, launchPosts, launchedScan, openPull, sha } from "../support/pr.js";
import { addGroup } from "../support/merge-group.js";

const UNAVAILABLE = "Scanning service unavailable";
const PLAIN = "The scanning service is unavailable; diffward retries and resumes on its own.";

function scansOf(h: Harness, head: string): number {
  return [...h.sandbox.state.scans.values()].filter((s) => s.commitHash === head).length;
}

/** Requests the sandbox answered with the outage's status so far. */
function outageRequests(h: Harness): number {
  return h.sandbox.state.faults.outage?.requests ?? 0;
}

/**
 * Every service route answering 503 (the sandbox's outage fault, with `Retry-After`) while pull requests of
 * one installation open: the check runs exist and say so, the service gets one probe per breaker interval
 * (not one retry stream per pull request), and each pull request launches exactly once when it is back.
 */
describe("a scanning-service outage", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({
      sandbox: { scenario: "demo", scanDurationMs: 1_000, retryAfterSeconds: 1, seed: 23 },
    });
  });
  afterAll(async () => h?.close());

  it("keeps every check run in progress saying so, bounds the requests, then launches each pull request once", async () => {
    const retryAfterSeconds = 2;
    const heads = [0, 1, 2, 3].map((i) => sha(2300 + i));
    const postsBefore = launchPosts(h);
    applyFaults(h.sandbox.state, { outage: { durationMs: 10 * 60_000, retryAfterSeconds } });
    const started = Date.now();
    const prs = [];
    for (const [i, head] of heads.entries()) prs.push(await openPull(h, { head, repo: `outage-${i}` }));

    for (const [i, pr] of prs.entries()) {
      const run = await h.waitFor(
        () => checkRuns(h, pr.owner, pr.repo, heads[i]).find((c) => c.output?.title === UNAVAILABLE),
        20_000,
        `check run of ${pr.repo} saying the service is unavailable`,
      );
      expect(run.status).toBe("in_progress");
      expect(run.output?.summary).toContain(PLAIN);
    }
    // Several probe intervals pass in the outage.
    await new Promise((r) => setTimeout(r, 3 * retryAfterSeconds * 1000));
    const during = outageRequests(h);
    const elapsedMs = Date.now() - started;
    // at most one first contact per pull request (before the breaker opened), then one probe per interval
    expect(during).toBeGreaterThan(0);
    expect(during).toBeLessThanOrEqual(prs.length + Math.ceil(elapsedMs / (retryAfterSeconds * 1000)) + 1);
    for (const [i, pr] of prs.entries())
      expect(checkRuns(h, pr.owner, pr.repo, heads[i]).filter((c) => c.status === "completed")).toEqual([]);
    expect(launchPosts(h)).toBe(postsBefore);

    applyFaults(h.sandbox.state, { outage: null });
    for (const [i, pr] of prs.entries()) {
      const run = await completedRun(h, pr.owner, pr.repo, heads[i]!, 40_000);
      expect(run.externalId).toBeTruthy();
      expect(run.output?.title).not.toContain(UNAVAILABLE);
      expect(checkRuns(h, pr.owner, pr.repo, heads[i])).toHaveLength(1);
      expect(scansOf(h, heads[i]!)).toBe(1);
    }
    expect(launchPosts(h) - postsBefore).toBe(prs.length);
  }, 90_000);

  it("a scan in flight waits the outage out without spending its poll's attempts, then reports", async () => {
    const head = sha(2310);
    const pr = await openPull(h, { head, repo: "outage-inflight" });
    const scanId = await launchedScan(h, head);
    applyFaults(h.sandbox.state, { outage: { durationMs: 10 * 60_000, retryAfterSeconds: 1 } });
    const started = Date.now();
    const poll = () => h.booted.rt.queues.scans.getJob(jobId("poll", scanId));
    // the poll has met the outage (a scan read answered 503)
    const readsRefused = () =>
      h.sandbox.state.stats.requests["GET /projects/:projectId/scans/:scanId"]?.["503"] ?? 0;
    await h.waitFor(() => readsRefused() > 0, 20_000, "a scan read answered 503");
    await new Promise((r) => setTimeout(r, 3_000));
    expect((await poll())?.attemptsMade).toBe(0);
    expect(outageRequests(h)).toBeLessThanOrEqual(Math.ceil((Date.now() - started) / 1000) + 1);
    expect(checkRuns(h, pr.owner, pr.repo, head).filter((c) => c.status === "completed")).toEqual([]);
    applyFaults(h.sandbox.state, { outage: null });
    const run = await completedRun(h, pr.owner, pr.repo, head, 40_000);
    expect(run.externalId).toBe(scanId);
    expect(run.output?.title).not.toMatch(/unavailable|could not be read|unreadable/i);
    expect(scansOf(h, head)).toBe(1);
  }, 90_000);

  it("a report meeting the outage waits it out without spending its attempts, then reports once", async () => {
    const head = sha(2311);
    const pr = await openPull(h, { head, repo: "outage-report" });
    const scanId = await launchedScan(h, head);
    const { reports } = h.booted.rt.queues;
    const report = () => reports.getJob(jobId("report", scanId));
    await reports.pause();
    try {
      h.sandbox.state.completeNow(scanId);
      await h.waitFor(report, 15_000, "the scan's report job");
      applyFaults(h.sandbox.state, { outage: { durationMs: 10 * 60_000, retryAfterSeconds: 1 } });
    } finally {
      await reports.resume();
    }
    const before = outageRequests(h);
    await h.waitFor(() => outageRequests(h) > before, 20_000, "the report met the outage");
    await new Promise((r) => setTimeout(r, 3_000));
    expect((await report())?.attemptsMade).toBe(0);
    expect(checkRuns(h, pr.owner, pr.repo, head).filter((c) => c.status === "completed")).toEqual([]);
    applyFaults(h.sandbox.state, { outage: null });
    const run = await completedRun(h, pr.owner, pr.repo, head, 40_000);
    expect(run.externalId).toBe(scanId);
    expect(run.output?.title).not.toMatch(/unavailable|could not be|unreadable/i);
    expect(h.github.state.reviews(pr.owner, pr.repo, pr.number).length).toBeLessThanOrEqual(1);
  }, 90_000);

  it("one 503 with a long Retry-After holds the tenant back for the breaker's cap at most, not for the header's", async () => {
    const { capMs } = DEFAULT_BREAKER_TIMINGS;
    const first = await openPull(h, { head: sha(2320), repo: "retry-after-first" });
    await completedRun(h, first.owner, first.repo, sha(2320));
    h.booted.rt.scanner.invalidate(); // no GET /token answer cached: the next launch sends a request
    applyFaults(h.sandbox.state, { outage: { durationMs: 10 * 60_000, retryAfterSeconds: 3_600 } });
    const before = outageRequests(h);
    const refused = await openPull(h, { head: sha(2321), repo: "retry-after-refused" });
    await h.waitFor(() => outageRequests(h) > before, 20_000, "one request answered 503, Retry-After: 3600");
    const openedAt = Date.now();
    const refusals = outageRequests(h) - before;
    applyFaults(h.sandbox.state, { outage: null }); // the service answers normally right after
    expect(refusals).toBe(1);
    const next = await openPull(h, { head: sha(2322), repo: "retry-after-next" });
    for (const [pr, head] of [
      [next, sha(2322)],
      [refused, sha(2321)],
    ] as const) {
      const run = await completedRun(h, pr.owner, pr.repo, head, capMs + 20_000);
      expect(run.externalId).toBeTruthy();
      expect(run.output?.title).not.toContain(UNAVAILABLE);
      expect(scansOf(h, head)).toBe(1);
    }
    // scanned within the cap (plus the probe, the 1 s scan and its report), not an hour later
    expect(Date.now() - openedAt).toBeLessThan(capMs + 15_000);
  }, 120_000);

  it("a launch that meets the outage before its pull request's state is saved waits for the service, then launches once", async () => {
    const head = sha(2330);
    const { launch } = h.booted.rt.queues;
    const add = launch.add.bind(launch);
    // The pull-request job adds the launch, then saves the state naming it, holding the pull request's lock
    // throughout: here the add returns only once the launch has taken its first turn (anything but waiting).
    launch.add = (async (...args: Parameters<typeof add>) => {
      const job = await add(...args);
      await h.waitFor(
        async () => !["waiting", "prioritized", "active"].includes(await job.getState()),
        10_000,
        "the launch's first turn",
      );
      return job;
    }) as typeof launch.add;
    try {
      h.booted.rt.scanner.invalidate(); // the pull request's job reads the token: the breaker opens
      applyFaults(h.sandbox.state, { outage: { durationMs: 10 * 60_000, retryAfterSeconds: 1 } });
      const pr = await openPull(h, { head, repo: "outage-unsaved" });
      await h.waitFor(
        () => checkRuns(h, pr.owner, pr.repo, head).find((c) => c.output?.title === UNAVAILABLE),
        20_000,
        "the check run saying the service is unavailable",
      );
      applyFaults(h.sandbox.state, { outage: null });
      const run = await completedRun(h, pr.owner, pr.repo, head, 40_000);
      expect(run.externalId).toBeTruthy();
      expect(run.output?.title).not.toContain(UNAVAILABLE);
      expect(scansOf(h, head)).toBe(1);
    } finally {
      launch.add = add;
    }
  }, 90_000);
});

describe("a scanning-service outage when a merge group is checked", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({
      sandbox: { scenario: "demo", scanDurationMs: 1_000, retryAfterSeconds: 1, seed: 31 },
    });
  });
  afterAll(async () => h?.close());

  it("the group's check run says the service is unavailable, and its scan launches once after", async () => {
    const config = demoConfig("mergeQueue: scan").replace("failOn: high", "failOn: none");
    const pr = await openPull(h, { head: sha(3101), repo: "outage-mq", config });
    await completedRun(h, pr.owner, pr.repo, sha(3101));
    h.booted.rt.scanner.invalidate(); // no GET /token answer cached: the group's job reads the token
    applyFaults(h.sandbox.state, { outage: { durationMs: 10 * 60_000, retryAfterSeconds: 1 } });
    const group = addGroup(h, pr, sha(3102), sha(3100));
    expect(
      (await h.send("merge_group", mergeGroupPayload(h.github.state, group, "checks_requested"))).status,
    ).toBe(200);
    const waiting = await h.waitFor(
      () => checkRuns(h, pr.owner, pr.repo, sha(3102)).find((c) => c.output?.title === UNAVAILABLE),
      20_000,
      "the group's check run saying the service is unavailable",
    );
    expect(waiting.status).toBe("in_progress");
    applyFaults(h.sandbox.state, { outage: null });
    const run = await completedRun(h, pr.owner, pr.repo, sha(3102), 40_000);
    expect(run.externalId).toBeTruthy();
    expect(scansOf(h, sha(3102))).toBe(1);
  }, 90_000);
});

describe("a scanning-service outage longer than DIFFWARD_SERVICE_OUTAGE_MAX_WAIT", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({
      sandbox: { scenario: "demo", scanDurationMs: 1_000, retryAfterSeconds: 1, seed: 29 },
      settings: { serviceOutageMaxWaitMs: 3_000 },
    });
  });
  afterAll(async () => h?.close());

  it("concludes each check run by onServiceOutage (failure by default, or neutral) and launches nothing", async () => {
    applyFaults(h.sandbox.state, { outage: { durationMs: 10 * 60_000, retryAfterSeconds: 1 } });
    const byDefault = await openPull(h, { head: sha(2901), repo: "outage-default" });
    const neutral = await openPull(h, {
      head: sha(2902),
      repo: "outage-neutral",
      config: demoConfig("onServiceOutage: neutral"),
    });
    const failed = await completedRun(h, byDefault.owner, byDefault.repo, sha(2901), 30_000);
    const neutralRun = await completedRun(h, neutral.owner, neutral.repo, sha(2902), 30_000);
    expect(failed.conclusion).toBe("failure");
    expect(neutralRun.conclusion).toBe("neutral");
    for (const run of [failed, neutralRun]) {
      expect(run.output?.title).toBe("Scanning service unavailable: not scanned");
      expect(run.output?.summary).toContain("Re-run");
    }
    applyFaults(h.sandbox.state, { outage: null });
    // the launches ended with their check runs: nothing is launched once the service is back
    await new Promise((r) => setTimeout(r, 2_500));
    expect(scansOf(h, sha(2901)) + scansOf(h, sha(2902))).toBe(0);
  }, 60_000);
});
