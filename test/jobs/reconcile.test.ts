import { Worker } from "bullmq";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startHarness, type Harness } from "../../dev/harness/harness.js";
import { expectExactlyOnce, openPull, waitCompleted } from "../faults/helpers.js";
import { flushPrefix } from "../support/flush.js";
import { checkRuns, completedRun, launchedScan, openPull as sendOpened, sha } from "../support/pr.js";
import { jobId } from "../../src/runtime/names.js";
import { demoConfig } from "../../dev/harness/demo-repo.js";

describe("reconciliation after a Redis flush (issue 6 item 3)", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ sandbox: { scenario: "demo", scanDurationMs: 3_000, retryAfterSeconds: 1 } });
  });
  afterAll(async () => {
    await h?.close();
  });

  it("flush mid-scan, reconcile: the scan is resumed and reported exactly once, a redelivery launches nothing", async () => {
    const head = "e".repeat(39) + "1";
    const p = openPull(h, head);
    const owner = p.repository.owner.login as string;
    const name = p.repository.name as string;
    expect((await h.send("pull_request", p)).status).toBe(200);
    const running = await h.waitFor(
      () => h.github.state.checkRuns(owner, name).find((c) => c.headSha === head && c.externalId),
      15_000,
      "check run with the scan id",
    );
    expect(running.status).not.toBe("completed");

    expect(await flushPrefix(h.prefix)).toBeGreaterThan(0);
    expect(await h.booted.rt.state.getPull(`${owner}/${name}#${p.number}`)).toBeUndefined();

    // Two reconciliations racing: one poll job (BullMQ job id `poll-<scanId>`).
    const [a, b] = await Promise.all([h.booted.reconcile(), h.booted.reconcile()]);
    expect(a.installations).toBeGreaterThanOrEqual(1);
    expect(a.pulls).toBeGreaterThanOrEqual(1);
    expect([...a.resumed, ...a.alreadyFollowed]).toEqual([running.externalId]);
    expect([...b.resumed, ...b.alreadyFollowed]).toEqual([running.externalId]);
    expect(a.errors + b.errors).toBe(0);

    // GitHub redelivers the opened event (new delivery id): the rebuilt state says it is followed.
    expect((await h.send("pull_request", p)).status).toBe(200);

    const done = await waitCompleted(h, p, head);
    expect(done.conclusion).toBe("failure");
    expectExactlyOnce(h, p, head);

    // A later reconciliation finds nothing in flight.
    const after = await h.booted.reconcile();
    expect(after.resumed).toEqual([]);
    expect(after.alreadyFollowed).toEqual([]);
  });

  it("a reconcile job on the queue runs through the workers; requests in one window collapse", async () => {
    const { enqueueReconcile } = await import("../../src/jobs/reconcile.js");
    const now = Date.now();
    const id = await enqueueReconcile(h.booted.rt, now);
    expect(await enqueueReconcile(h.booted.rt, now)).toBe(id);
    const summary = await h.waitFor(
      async () =>
        (await h.booted.rt.queues.events.getJob(id))?.returnvalue as
          { installations: number; resumed: string[] } | undefined,
      10_000,
      "reconcile job result",
    );
    expect(summary.installations).toBeGreaterThanOrEqual(1);
    expect(summary.resumed).toEqual([]);
    const jobs = await h.booted.rt.queues.events.getJobs(["completed", "waiting", "active", "delayed"]);
    expect(jobs.filter((j) => j.name === "reconcile")).toHaveLength(1);
  });
});

/**
 * A poll job that completed without handing its scan to a report (as the poll of a scan whose token was
 * missing did): its check run is unfinished and nothing follows the scan, so reconciliation resumes it
 * instead of counting it as followed.
 */
describe("reconciliation: a completed poll job whose check run is unfinished", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ sandbox: { scenario: "demo", scanDurationMs: 3_000, retryAfterSeconds: 1 } });
  });
  afterAll(async () => h?.close());

  it("is not counted as followed: the scan is polled again and reported", { timeout: 60_000 }, async () => {
    const head = sha(0x4b1);
    const pr = await sendOpened(h, { head, repo: "stale-poll" });
    const scanId = await launchedScan(h, head);
    const scans = h.booted.rt.queues.scans;
    const poll = await h.waitFor(() => scans.getJob(jobId("poll", scanId)), 10_000, "poll job");
    const worker = h.booted.workers.find((w) => w.name === scans.name)!;
    await worker.pause(); // waits for its running jobs and ends its blocking fetch
    // the poll job ends "no-token" without concluding the check run (what an earlier poll did)
    const data = poll.data as Record<string, unknown>;
    await poll.remove();
    await scans.add(poll.name, data, { ...poll.opts, delay: 0 });
    const manual = new Worker(scans.name, null, { connection: h.booted.rt.redis, prefix: h.prefix });
    try {
      const job = await h.waitFor(() => manual.getNextJob("manual"), 5_000, "the poll job");
      expect(job.id).toBe(jobId("poll", scanId));
      await job.moveToCompleted("no-token", "manual", false);
    } finally {
      await manual.close();
    }
    worker.resume();
    const unfinished = await h.waitFor(
      () => checkRuns(h, pr.owner, pr.repo, head).find((c) => c.externalId === scanId),
      10_000,
      "the scan id on the check run",
    );
    expect(unfinished.status).not.toBe("completed");

    const summary = await h.booted.reconcile();
    expect(summary.alreadyFollowed).not.toContain(scanId);
    expect(summary.resumed).toContain(scanId);
    const done = await completedRun(h, pr.owner, pr.repo, head, 30_000);
    expect(done.conclusion).toBe("failure");
    expect(h.github.state.reviews(pr.owner, pr.repo, pr.number)).toHaveLength(1);
  });
});

/**
 * A check run created before its scan id was written (the launch waits out `debounceSeconds`, or the scan-id
 * write waits in the write lane): Redis is lost, and reconciliation follows the scan the service has for the
 * head since the check run was created, or, when it has none, decides the head's launch again (launched once).
 */
describe("reconciliation: a check run without a scan id after a Redis flush", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ sandbox: { scenario: "demo", scanDurationMs: 3_000, retryAfterSeconds: 1 } });
  });
  afterAll(async () => h?.close());

  const scansOf = (head: string) => [...h.sandbox.state.scans.values()].filter((s) => s.commitHash === head);

  it(
    "flush inside the debounce window: the head is launched once and reported",
    { timeout: 60_000 },
    async () => {
      const head = sha(0x4d1);
      const pr = await sendOpened(h, {
        head,
        repo: "debounce-flush",
        config: demoConfig().replace("debounceSeconds: 0", "debounceSeconds: 600"),
      });
      const queued = await h.waitFor(
        () => checkRuns(h, pr.owner, pr.repo, head).find((c) => c.status === "queued"),
        10_000,
        "the queued check run",
      );
      expect(queued.externalId).toBeFalsy();
      await h.waitFor(
        async () => ((await h.booted.rt.queues.launch.getJobCounts("delayed")).delayed ?? 0) > 0,
        10_000,
        "the delayed launch",
      );
      expect(await flushPrefix(h.prefix)).toBeGreaterThan(0);

      const summary = await h.booted.reconcile();
      expect(summary.errors).toBe(0);
      expect(summary.redecided).toEqual([queued.id]);
      const done = await completedRun(h, pr.owner, pr.repo, head, 30_000);
      expect(done.id).toBe(queued.id);
      expect(done.conclusion).toBe("failure");
      expect(scansOf(head)).toHaveLength(1);
      expect(done.externalId).toBe(scansOf(head)[0]!.id);
      expect(h.github.state.reviews(pr.owner, pr.repo, pr.number)).toHaveLength(1);

      const after = await h.booted.reconcile();
      expect(after.redecided).toEqual([]);
      expect(after.resumed).toEqual([]);
      expect(scansOf(head)).toHaveLength(1);
    },
  );

  it(
    "scan launched, its scan id not yet on the check run: the scan is followed, never launched again",
    { timeout: 60_000 },
    async () => {
      const head = sha(0x4d2);
      const scans = h.booted.rt.queues.scans;
      const worker = h.booted.workers.find((w) => w.name === scans.name)!;
      const pr = await sendOpened(h, { head, repo: "unlinked-flush" });
      const scanId = await launchedScan(h, head);
      const run = await h.waitFor(
        () => checkRuns(h, pr.owner, pr.repo, head).find((c) => c.externalId === scanId),
        10_000,
        "the scan id on the check run",
      );
      await worker.pause(); // nothing reports the scan before the flush
      try {
        expect(run.status).not.toBe("completed");
        // as if the scan-id write had not reached GitHub (waiting in the lane, or lost with the process)
        run.externalId = null;
        expect(await flushPrefix(h.prefix)).toBeGreaterThan(0);
      } finally {
        worker.resume();
      }
      const summary = await h.booted.reconcile();
      expect(summary.errors).toBe(0);
      expect(summary.resumed).toEqual([scanId]);
      expect(summary.redecided).toEqual([]);
      // the scan id is on the check run again before the report
      await h.waitFor(() => run.externalId === scanId, 10_000, "the scan id written back");
      const done = await completedRun(h, pr.owner, pr.repo, head, 30_000);
      expect(done.id).toBe(run.id);
      expect(done.externalId).toBe(scanId);
      expect(done.conclusion).toBe("failure");
      expect(scansOf(head)).toHaveLength(1);
      expect(h.github.state.reviews(pr.owner, pr.repo, pr.number)).toHaveLength(1);
    },
  );
});
