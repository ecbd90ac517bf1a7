import { randomBytes } from "node:crypto";
import { Redis } from "ioredis";
import { Worker } from "bullmq";
import { afterAll, describe, expect, it } from "vitest";
import { createQueues } from "../../src/runtime/queues.js";
import { failedJobs, queueKeys, queueStatus, retryFailed, setPaused } from "../../src/runtime/queue-admin.js";
import { flushPrefix } from "../support/flush.js";
import { addFailingJobs } from "../support/jobs.js";

const url = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
const redis = new Redis(url, { maxRetriesPerRequest: null });
const prefix = `{qa-${randomBytes(4).toString("hex")}}`;
const queues = createQueues({ connection: redis, prefix });

afterAll(async () => {
  await Promise.all(Object.values(queues).map((q) => q.close()));
  await flushPrefix(prefix, url);
  redis.disconnect();
});

describe("queue administration", () => {
  it("names queues by their short or full name, and refuses an unknown one", () => {
    expect(queueKeys([])).toEqual(["events", "launch", "scans", "reports"]);
    expect(queueKeys(["diffward-scans", "events"])).toEqual(["scans", "events"]);
    expect(() => queueKeys(["poll"])).toThrow(/unknown queue poll: one of events, launch, scans, reports/);
  });

  it("pauses and resumes for every process: a paused queue's jobs wait", async () => {
    await setPaused(queues, ["events"], true);
    await queues.events.add("pull-request", {}, { jobId: "held" });
    const worker = new Worker(queues.events.name, async () => "done", { connection: redis, prefix });
    try {
      const paused = (await queueStatus(queues)).find((s) => s.queue === "diffward-events")!;
      expect(paused).toMatchObject({ paused: true });
      expect((await queues.events.getJob("held"))!.finishedOn).toBeUndefined();
      await setPaused(queues, ["events"], false);
      await expect
        .poll(async () => (await queues.events.getJob("held"))!.getState(), { timeout: 5_000 })
        .toBe("completed");
      expect((await queueStatus(queues)).every((s) => !s.paused)).toBe(true);
    } finally {
      await worker.close();
    }
  });

  it("lists failed jobs with their reason and moves them back to waiting", async () => {
    await queues.reports.add("report", {}, { jobId: "report-a", attempts: 1 });
    await queues.reports.add("report", {}, { jobId: "report-b", attempts: 1 });
    const worker = new Worker(
      queues.reports.name,
      async () => {
        throw new Error("GitHub 502 on every attempt");
      },
      { connection: redis, prefix },
    );
    try {
      await expect.poll(async () => (await failedJobs(queues, "reports")).length, { timeout: 5_000 }).toBe(2);
    } finally {
      await worker.close();
    }
    const failed = await failedJobs(queues, "reports");
    expect(failed.map((j) => j.id).sort()).toEqual(["report-a", "report-b"]);
    expect(failed[0]).toMatchObject({
      name: "report",
      attemptsMade: 1,
      failedReason: "GitHub 502 on every attempt",
    });
    expect((await queueStatus(queues)).find((s) => s.queue === "diffward-reports")!.failed).toBe(2);

    expect(await retryFailed(queues, "reports", ["report-a", "no-such-job"])).toEqual(["report-a"]);
    expect(await (await queues.reports.getJob("report-a"))!.getState()).toBe("waiting");
    expect(await retryFailed(queues, "reports", "all")).toEqual(["report-b"]);
    expect((await queueStatus(queues)).find((s) => s.queue === "diffward-reports")).toMatchObject({
      failed: 0,
      waiting: 2,
    });
  });

  it("retries every failed job page by page, never reading more than a page at once, each once even when it fails again at once", async () => {
    const ids = Array.from({ length: 23 }, (_, i) => `paged-${i}`);
    const reads: [number, number][] = [];
    const getJobs = queues.launch.getJobs.bind(queues.launch);
    queues.launch.getJobs = ((types, start = 0, end = -1, asc = false) => {
      reads.push([start, end]);
      return getJobs(types, start, end, asc);
    }) as typeof queues.launch.getJobs;
    try {
      // the worker still fails every job it takes, so each retried one fails again while the retry goes on
      await addFailingJobs(queues.launch, ids, {
        connection: redis,
        prefix,
        reason: "the service answered 500",
        whileRunning: async () => {
          reads.length = 0;
          const retried = await retryFailed(queues, "launch", "all", 5);
          expect([...retried].sort()).toEqual([...ids].sort());
        },
      });
      expect(reads.length).toBeGreaterThanOrEqual(Math.ceil(ids.length / 5));
      for (const [start, end] of reads) {
        expect(end).toBeGreaterThanOrEqual(start);
        expect(end - start + 1).toBeLessThanOrEqual(5);
      }
    } finally {
      queues.launch.getJobs = getJobs;
    }
  });
});
