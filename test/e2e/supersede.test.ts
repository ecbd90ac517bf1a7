import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startHarness, type Harness } from "../../dev/harness/harness.js";
import { webhookExample } from "../../dev/harness/examples.js";
import { writeConversationComment } from "../../dev/harness/triage.js";
import { jobId, pullKey } from "../../src/runtime/names.js";
import {
  type Payload,
  checkRuns,
  completedRun,
  launchedScan,
  openPull,
  pushPull,
  reportEnded,
  sha,
} from "../support/pr.js";
import { JOBS } from "../../src/job-catalogue/index.js";

/**
 * The old head's check run `run` is concluded cancelled, "Superseded by" the new head, and nothing of the
 * old head's report landed after: no review on its commit, and the stored report is another head's.
 */
async function expectSuperseded(
  h: Harness,
  pr: { owner: string; repo: string; number: number },
  run: { conclusion: string | null; output: { title: string | null } },
  old: string,
  next: string,
) {
  expect({ conclusion: run.conclusion, title: run.output.title }).toEqual({
    conclusion: "cancelled",
    title: `Superseded by ${next.slice(0, 7)}`,
  });
  expect(h.github.state.reviews(pr.owner, pr.repo, pr.number).filter((r) => r.commitId === old)).toEqual([]);
  const stored = await h.booted.rt.stores.reports.get(pullKey(pr.owner, pr.repo, pr.number));
  expect(stored?.headSha).not.toBe(old);
}

/**
 * What diffward writes about a head once it stops following it (a newer push, a close or a merge): the
 * superseded head's check run stays as the stop concluded it, its report never lands afterwards, and a scan
 * that already ended is never cancelled. Real webhooks against the GitHub stand-in, the sandbox over HTTP and
 * a real Redis; queues are paused to put the jobs in the order a loaded deployment runs them.
 */
describe("a head diffward stops following", () => {
  let h: Harness;
  let n = 0;
  const repo = () => `supersede-${++n}`;

  beforeAll(async () => {
    h = await startHarness({
      // scans end only when a test completes them (completeNow) or diffward cancels them
      sandbox: { scenario: "demo", scanDurationMs: 10 * 60_000, retryAfterSeconds: 0, seed: 21 },
      settings: { firstPollDelayMs: 100, pollFloorMs: 200, pollMarginMs: 0 },
      // no pacing, except where a test blocks the write lane (minGapMs raised)
      boot: { writeLimits: { minGapMs: 0, perMinute: 1_000_000, perHour: 1_000_000 } },
    });
  });
  afterAll(async () => h?.close());

  /** The writes (not GET) the stand-in received for check run `id`, as sent. */
  const checkRunWrites = (owner: string, name: string, id: number) =>
    h.github.requests.filter(
      (r) => r.method !== "GET" && r.path === `/repos/${owner}/${name}/check-runs/${id}`,
    );

  it("a superseded scan's report that runs after the push writes nothing: check run, review and stored report stay the new head's", async () => {
    const old = sha(0x2161a000);
    const next = sha(0x2162b000);
    const pr = await openPull(h, { head: old, repo: repo() });
    const scanId = await launchedScan(h, old);
    const { reports, launch } = h.booted.rt.queues;
    // The reports worker is behind: the old scan completes and its report waits in the queue; the new head's
    // launch waits too, so the new head has no scan yet when the old report runs.
    await reports.pause();
    await launch.pause();
    try {
      h.sandbox.state.completeNow(scanId);
      await h.waitFor(() => reports.getJob(jobId("report", scanId)), 15_000, "the old scan's report job");
      await pushPull(h, pr, next);
      const stopped = await h.waitFor(
        () => checkRuns(h, pr.owner, pr.repo, old).find((c) => c.status === "completed"),
        15_000,
        "the old head's check run concluded by the push",
      );
      expect(stopped.conclusion).toBe("cancelled");
      expect(stopped.output.title).toBe(`Superseded by ${next.slice(0, 7)}`);
      await reports.resume();
      await h.waitFor(
        async () => {
          const job = await reports.getJob(jobId("report", scanId));
          return !job || ["completed", "failed"].includes(await job.getState());
        },
        15_000,
        "the old scan's report job to end",
      );
      const after = checkRuns(h, pr.owner, pr.repo, old).find((c) => c.id === stopped.id)!;
      await expectSuperseded(h, pr, after, old, next);
    } finally {
      await reports.resume();
      await launch.resume();
    }
    // the new head is scanned and reported as usual
    const nextScan = await launchedScan(h, next, 15_000);
    h.sandbox.state.completeNow(nextScan);
    const run = await completedRun(h, pr.owner, pr.repo, next);
    expect(run.conclusion).toBe("failure"); // the demo scenario's confirmed critical finding
    const stored = await h.booted.rt.stores.reports.get(pullKey(pr.owner, pr.repo, pr.number));
    expect(stored?.headSha).toBe(next);
  }, 90_000);

  it("a report already running when the push lands (waiting for the write lane) sends none of its writes", async () => {
    const old = sha(0x2163a000);
    const next = sha(0x2164b000);
    const pr = await openPull(h, { head: old, repo: repo() });
    const scanId = await launchedScan(h, old);
    await h.waitFor(
      () => checkRuns(h, pr.owner, pr.repo, old).find((c) => c.externalId === scanId),
      15_000,
      "the old check run naming its scan",
    );
    const lane = h.booted.rt.lane!;
    lane.limits.minGapMs = 3_600_000; // the installation's write lane is blocked: every write waits
    try {
      h.sandbox.state.completeNow(scanId);
      // The report has started when it read the pull request's review comments (before its first write).
      await h.waitFor(
        () =>
          h.github.requests.some(
            (r) =>
              r.method === "GET" && r.path === `/repos/${pr.owner}/${pr.repo}/pulls/${pr.number}/comments`,
          ),
        15_000,
        "the old scan's report waiting for the lane",
      );
      await pushPull(h, pr, next);
      // the push's job has stopped the old scan and waits for the lane with its own writes, behind the report's
      const installationId = pr.payload.installation.id as number;
      await h.waitFor(
        async () => (await lane.usage(installationId)).waiting >= 2,
        15_000,
        "the push's writes waiting behind the report's",
      );
    } finally {
      lane.limits.minGapMs = 0;
    }
    await h.waitFor(
      async () => (await h.booted.rt.queues.reports.getJob(jobId("report", scanId)))?.finishedOn,
      15_000,
      "the old report job to end",
    );
    expect((await h.booted.rt.queues.reports.getJob(jobId("report", scanId)))!.returnvalue).toBe(
      "superseded",
    );
    const run = await h.waitFor(
      () => checkRuns(h, pr.owner, pr.repo, old).find((c) => c.status === "completed"),
      15_000,
      "the old head's check run concluded",
    );
    await expectSuperseded(h, pr, run, old, next);
    const nextScan = await launchedScan(h, next, 15_000);
    h.sandbox.state.completeNow(nextScan);
    await completedRun(h, pr.owner, pr.repo, next);
  }, 90_000);

  it("the superseded scan's CANCELLED status, read after the push, leaves its concluded check run as it is", async () => {
    const old = sha(0x2171a000);
    const next = sha(0x2172b000);
    const pr = await openPull(h, { head: old, repo: repo() });
    const scanId = await launchedScan(h, old);
    const { scans, launch } = h.booted.rt.queues;
    const run = await h.waitFor(
      () => checkRuns(h, pr.owner, pr.repo, old).find((c) => c.externalId === scanId),
      15_000,
      "the old check run naming its scan",
    );
    // The poll slots are busy (queue paused) when the old scan's next read is due: its poll job waits, not
    // delayed, when the push stops the scan; it reads the scan once the slots are free again.
    await scans.pause();
    await launch.pause();
    try {
      const poll = (await scans.getJob(jobId("poll", scanId)))!;
      // a read in progress (active) ends on its own; on a loaded machine one read can take seconds
      await h.waitFor(
        async () => ["delayed", "waiting"].includes(await poll.getState()),
        30_000,
        "poll between reads",
      );
      if ((await poll.getState()) === "delayed") await poll.promote();
      await pushPull(h, pr, next);
      await h.waitFor(
        () => checkRuns(h, pr.owner, pr.repo, old).find((c) => c.id === run.id && c.status === "completed"),
        15_000,
        "the old head's check run concluded by the push",
      );
      expect(h.sandbox.state.statusOf(h.sandbox.state.scans.get(scanId)!)).toBe("CANCELLED");
      const writesAtStop = checkRunWrites(pr.owner, pr.repo, run.id).length;
      await scans.resume();
      await h.waitFor(
        async () => {
          const job = await scans.getJob(jobId("poll", scanId));
          const report = await h.booted.rt.queues.reports.getJob(jobId("report", scanId));
          const ended = async (j: typeof job) => !j || ["completed", "failed"].includes(await j.getState());
          return (await ended(job)) && (await ended(report));
        },
        15_000,
        "the old scan's poll (and any report) to end",
      );
      expect(checkRunWrites(pr.owner, pr.repo, run.id).length).toBe(writesAtStop);
      const after = checkRuns(h, pr.owner, pr.repo, old).find((c) => c.id === run.id)!;
      expect({ conclusion: after.conclusion, title: after.output.title }).toEqual({
        conclusion: "cancelled",
        title: `Superseded by ${next.slice(0, 7)}`,
      });
      expect(after.output.summary).not.toContain("Someone cancelled it");
    } finally {
      await scans.resume();
      await launch.resume();
    }
    const nextScan = await launchedScan(h, next, 15_000);
    h.sandbox.state.completeNow(nextScan);
    await completedRun(h, pr.owner, pr.repo, next);
  }, 90_000);

  it("/diffward cancel of a scan that ended while its report waits cancels nothing and says it finished", async () => {
    const head = sha(0x219a);
    const pr = await openPull(h, { head, repo: repo(), permissions: { maintainer: "maintain" } });
    const scanId = await launchedScan(h, head);
    const { reports } = h.booted.rt.queues;
    await reports.pause();
    try {
      h.sandbox.state.completeNow(scanId);
      await h.waitFor(() => reports.getJob(jobId("report", scanId)), 15_000, "the report job waiting");
      const p = writeConversationComment(h, {
        owner: pr.owner,
        repo: pr.repo,
        pullNumber: pr.number,
        login: "maintainer",
        body: "/diffward cancel",
      });
      await h.send("issue_comment", p);
      const answer = await h.waitFor(
        () =>
          h.github.state
            .issueComments(pr.owner, pr.repo, pr.number)
            .find((c) => c.body.includes("nothing to cancel") || c.body.includes("Cancelled scan")),
        15_000,
        "the answer to /diffward cancel",
      );
      expect(answer.body).toContain(`Scan \`${scanId}\` has already finished`);
      expect(h.sandbox.state.scans.get(scanId)!.cancelRequests).toBe(0);
    } finally {
      await reports.resume();
    }
    const run = await completedRun(h, pr.owner, pr.repo, head);
    expect(run.conclusion).toBe("failure"); // reported as usual
  }, 60_000);

  it("a rescan retried after a busy lock replaces the queued check run with its own, never adopting it", async () => {
    const head = sha(0x21a1);
    const { launch, events } = h.booted.rt.queues;
    // the first check run stays queued without a scan id: its launch waits
    await launch.pause();
    try {
      const pr = await openPull(h, { head, repo: repo(), permissions: { maintainer: "maintain" } });
      const first = await h.waitFor(
        () => checkRuns(h, pr.owner, pr.repo, head)[0],
        15_000,
        "the first check run",
      );
      // Another job holds the pull request's lock when the rescan's job first runs: it runs again (attempt 2).
      let release!: () => void;
      const held = new Promise<void>((r) => (release = r));
      let holding: Promise<void> | undefined;
      await h.waitFor(
        async () => {
          const attempt = h.booted.rt.stores.pulls.withPullLock(
            pullKey(pr.owner, pr.repo, pr.number),
            () => held,
          );
          const got = await Promise.race([
            attempt.then(
              () => false,
              () => false, // busy: the opening's own job still holds it
            ),
            new Promise<boolean>((ok) => setTimeout(() => ok(true), 100)),
          ]);
          if (got) holding = attempt;
          return got;
        },
        10_000,
        "the pull request's lock",
      );
      try {
        await h.send(
          "issue_comment",
          writeConversationComment(h, {
            owner: pr.owner,
            repo: pr.repo,
            pullNumber: pr.number,
            login: "maintainer",
            body: "/diffward rescan",
          }),
        );
        await h.waitFor(
          async () => (await events.getJobs(["delayed"])).some((j) => j.name === JOBS.rerequest.name),
          15_000,
          "the rescan's job waiting for the lock",
        );
      } finally {
        release();
        await holding;
      }
      const replaced = await h.waitFor(
        () => checkRuns(h, pr.owner, pr.repo, head).find((c) => c.id !== first.id),
        15_000,
        "the rescan's own check run",
      );
      expect(first.status).toBe("completed");
      expect({ conclusion: first.conclusion, title: first.output.title }).toEqual({
        conclusion: "cancelled",
        title: "Replaced by a new scan of this commit",
      });
      await launch.resume();
      const scanId = await launchedScan(h, head, 15_000);
      h.sandbox.state.completeNow(scanId);
      await h.waitFor(() => replaced.status === "completed", 15_000, "the rescan's check run completed");
      await reportEnded(h, scanId);
      expect(replaced.externalId).toBe(scanId);
      expect(replaced.conclusion).toBe("failure"); // the demo scenario's confirmed critical finding
      expect({ conclusion: first.conclusion, title: first.output.title }).toEqual({
        conclusion: "cancelled",
        title: "Replaced by a new scan of this commit",
      });
    } finally {
      await launch.resume();
    }
  }, 60_000);

  it("a cancel diffward made is told in its words: /diffward cancel names who cancelled, a close says it was closed", async () => {
    const cancelled = sha(0x21b1);
    const a = await openPull(h, { head: cancelled, repo: repo(), permissions: { maintainer: "maintain" } });
    const scanId = await launchedScan(h, cancelled);
    await h.send(
      "issue_comment",
      writeConversationComment(h, {
        owner: a.owner,
        repo: a.repo,
        pullNumber: a.number,
        login: "maintainer",
        body: "/diffward cancel",
      }),
    );
    const byCommand = await completedRun(h, a.owner, a.repo, cancelled);
    expect(h.sandbox.state.statusOf(h.sandbox.state.scans.get(scanId)!)).toBe("CANCELLED");
    expect(byCommand.conclusion).toBe("cancelled");
    expect(byCommand.output.summary).toContain("`@maintainer` cancelled it with `/diffward cancel`");
    expect(byCommand.output.summary).not.toContain("Someone cancelled it");

    const closedHead = sha(0x21b2);
    const b = await openPull(h, { head: closedHead, repo: repo() });
    await launchedScan(h, closedHead);
    const p: Payload = webhookExample("pull_request", "closed");
    p.repository = b.payload.repository;
    p.installation = b.payload.installation;
    p.number = b.number;
    p.pull_request = { ...b.payload.pull_request, state: "closed" };
    p.pull_request.updated_at = new Date(Date.now() + 2_000).toISOString();
    await h.send("pull_request", p);
    const byClose = await completedRun(h, b.owner, b.repo, closedHead);
    expect(byClose.conclusion).toBe("cancelled");
    expect(byClose.output.summary).toContain("The pull request was closed, so diffward cancelled the scan");
    expect(byClose.output.summary).not.toContain("Someone cancelled it");
  }, 60_000);

  it("closing (merging) a pull request whose report is complete cancels nothing: its scan has ended", async () => {
    const head = sha(0x2191);
    const pr = await openPull(h, { head, repo: repo() });
    const scanId = await launchedScan(h, head);
    h.sandbox.state.completeNow(scanId);
    const run = await completedRun(h, pr.owner, pr.repo, head);
    expect(run.conclusion).toBe("failure");
    const p: Payload = webhookExample("pull_request", "closed");
    p.repository = pr.payload.repository;
    p.installation = pr.payload.installation;
    p.number = pr.number;
    p.pull_request = {
      ...pr.payload.pull_request,
      state: "closed",
      merged: true,
      merged_at: new Date().toISOString(),
    };
    p.pull_request.updated_at = new Date(Date.now() + 2_000).toISOString();
    const delivery = randomUUID();
    await h.send("pull_request", p, delivery);
    await h.waitFor(
      async () => (await h.booted.rt.queues.events.getJob(jobId("closed", delivery)))?.finishedOn,
      10_000,
      "close job finished",
    );
    expect(h.sandbox.state.scans.get(scanId)!.cancelRequests).toBe(0);
    expect(checkRuns(h, pr.owner, pr.repo, head).find((c) => c.id === run.id)!.conclusion).toBe("failure");
  }, 60_000);
});
