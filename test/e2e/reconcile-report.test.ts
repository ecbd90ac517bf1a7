import { Worker } from "bullmq";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startHarness, type Harness } from "../../dev/harness/harness.js";
import { QUEUE_NAMES, jobId } from "../../src/runtime/names.js";
import { seedPull } from "../support/pr.js";
import { JOBS } from "../../src/job-catalogue/index.js";

/**
 * A poll job hands a terminal scan's report to `report-<scanId>` (queue `diffward-reports`) and completes.
 * When that report job failed for good, reconciliation retries it: the completed poll job alone would count
 * the scan as followed and leave its check run in progress.
 */
describe("reconcile resumes a failed report job of a completed poll", () => {
  let h: Harness;
  let worker: { scans: Worker; reports: Worker } | undefined;
  beforeAll(async () => {
    // no workers: the test sets the jobs' states itself
    h = await startHarness({ workers: false, sandbox: { scenario: "demo" } });
  });
  afterAll(async () => {
    await worker?.scans.close();
    await worker?.reports.close();
    await h?.close();
  });

  it("the failed report job is retried and the scan counted as resumed", async () => {
    const head = "d".repeat(39) + "5";
    const { owner, repo, payload } = seedPull(h, { head });
    const scanId = "scan_reconcile_report";
    // diffward's check run in progress with the scan id, as a launch leaves it
    const octokit = await h.booted.rt.octokit(payload.installation.id as number);
    await octokit.rest.checks.create({
      owner,
      repo,
      name: "diffward",
      head_sha: head,
      status: "in_progress",
      external_id: scanId,
    });

    const connection = h.booted.rt.redis;
    const opts = { connection, prefix: h.prefix, autorun: false };
    worker = {
      scans: new Worker(QUEUE_NAMES.scans, null, opts),
      reports: new Worker(QUEUE_NAMES.reports, null, opts),
    };
    // the poll job completed after handing the report over; the report job failed on its last attempt
    await h.booted.rt.queues.scans.add(JOBS.poll.name, {}, { jobId: jobId("poll", scanId) });
    const poll = (await worker.scans.getNextJob("t1"))!;
    await poll.moveToCompleted("report-queued", "t1", false);
    await h.booted.rt.queues.reports.add(
      JOBS.report.name,
      {},
      { jobId: jobId("report", scanId), attempts: 1 },
    );
    const report = (await worker.reports.getNextJob("t2"))!;
    await report.moveToFailed(new Error("GitHub 502 on every attempt"), "t2", false);
    expect(await report.getState()).toBe("failed");

    const summary = await h.booted.reconcile();
    expect(summary.resumed).toEqual([scanId]);
    expect(summary.alreadyFollowed).toEqual([]);
    const after = (await h.booted.rt.queues.reports.getJob(jobId("report", scanId)))!;
    expect(await after.getState()).toBe("waiting");
    expect(await (await h.booted.rt.queues.scans.getJob(jobId("poll", scanId)))!.getState()).toBe(
      "completed",
    );
  });
});
