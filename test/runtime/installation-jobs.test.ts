import { randomBytes } from "node:crypto";
import { Worker } from "bullmq";
import { Redis } from "ioredis";
import { afterAll, describe, expect, it } from "vitest";
import { fairJobOptions } from "../../src/runtime/fairness.js";
import {
  COUNT_CHUNK,
  INDEX_RETENTION_MS,
  InstallationQueue,
  installationJobsKey,
  installationQueueCounts,
} from "../../src/runtime/installation-jobs.js";
import { flushPrefix } from "../support/flush.js";

const url = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
const redis = new Redis(url, { maxRetriesPerRequest: null });
const prefix = `{dwt-ij-${randomBytes(3).toString("hex")}}`;

describe("an installation's jobs per queue (real Redis, BullMQ's states)", () => {
  const queue = new InstallationQueue("ij", { connection: redis, prefix });
  afterAll(async () => {
    await queue.close();
    await flushPrefix(prefix, url);
    redis.disconnect();
  });

  it("counts each installation's own jobs by state: waiting, active, delayed, failed; completed and removed leave", async () => {
    await queue.add(
      "hold",
      { installationId: 1 },
      await fairJobOptions(redis, queue, 1, { jobId: "1-hold" }),
    );
    await queue.add("fail", { installationId: 1 }, { jobId: "1-fail", attempts: 1 });
    await queue.add("ok", { installationId: 1 }, { jobId: "1-ok" });
    await queue.add("later", { installationId: 1 }, { jobId: "1-later", delay: 60_000 });
    await queue.add("later", { installationId: 1 }, { jobId: "1-removed", delay: 60_000 });
    await queue.add("later", { installationId: 2 }, { jobId: "2-later", delay: 60_000 });
    await queue.add("ok", { installationId: 2 }, { jobId: "2-waits", priority: 5 });
    await queue.add("ok", { note: "no installation" }, { jobId: "none" });
    await queue.add("ok", { installationId: 2 }, { jobId: "2-waits" }); // a duplicate add counts once

    expect(await installationQueueCounts(queue, 1)).toEqual({
      queue: "ij",
      waiting: 3,
      active: 0,
      delayed: 2,
      failed: 0,
    });
    expect(await installationQueueCounts(queue, 2)).toMatchObject({ waiting: 1, delayed: 1 });
    expect(await installationQueueCounts(queue, 3)).toMatchObject({ waiting: 0, delayed: 0 });

    await (await queue.getJob("1-removed"))!.remove();
    let release = () => undefined as void;
    const held = new Promise<void>((r) => (release = r));
    const finished = new Set<string>();
    const worker = new Worker(
      "ij",
      async (job) => {
        if (job.name === "hold") await held;
        if (job.name === "fail") throw new Error("boom");
      },
      { connection: redis, prefix, concurrency: 5 },
    );
    worker.on("completed", (j) => finished.add(j.id!));
    worker.on("failed", (j) => j && finished.add(j.id!));
    try {
      for (let t = 0; t < 200 && !["1-fail", "1-ok", "2-waits", "none"].every((id) => finished.has(id)); t++)
        await new Promise((r) => setTimeout(r, 25));
      expect(await installationQueueCounts(queue, 1)).toEqual({
        queue: "ij",
        waiting: 0,
        active: 1,
        delayed: 1,
        failed: 1,
      });
      expect(await installationQueueCounts(queue, 2)).toMatchObject({ waiting: 0, active: 0, delayed: 1 });
      // the completed and the removed jobs left the index; the failed one stays until BullMQ removes it
      expect((await redis.zrange(installationJobsKey(queue, 1), "0", "-1")).sort()).toEqual([
        "1-fail",
        "1-hold",
        "1-later",
      ]);
    } finally {
      release();
      await worker.close();
    }
  });

  it("keeps its index past the longest delay added plus the failed jobs' retention", async () => {
    await queue.add("later", { installationId: 4 }, { jobId: "4-later", delay: 30 * 24 * 3600_000 });
    const ttl = await redis.pttl(installationJobsKey(queue, 4));
    expect(ttl).toBeGreaterThan(30 * 24 * 3600_000 + INDEX_RETENTION_MS - 60_000);
  });

  it("counts past one script's chunk, jobs added in bulk included", async () => {
    const n = COUNT_CHUNK + 30;
    await queue.addBulk(
      Array.from({ length: n }, (_, i) => ({
        name: "bulk",
        data: { installationId: 5 },
        opts: { jobId: `5-${i}`, delay: 60_000 },
      })),
    );
    for (let i = 0; i < 40; i++) await (await queue.getJob(`5-${i * 7}`))!.remove();
    expect(await installationQueueCounts(queue, 5)).toMatchObject({ delayed: n - 40, waiting: 0 });
    expect(await redis.zcard(installationJobsKey(queue, 5))).toBe(n - 40);
  });
});
