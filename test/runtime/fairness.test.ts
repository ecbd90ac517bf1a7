import { randomBytes } from "node:crypto";
import { Queue, Worker, type JobsOptions } from "bullmq";
import { afterAll, describe, expect, it } from "vitest";
import { createRedis } from "../../src/runtime/connection.js";
import {
  WALK_PRIORITY,
  fairJobOptions,
  fairPending,
  releaseFairOnFinish,
} from "../../src/runtime/fairness.js";

const redis = createRedis(process.env.REDIS_URL ?? "redis://127.0.0.1:6379");
const prefix = `dwt-fair-${randomBytes(3).toString("hex")}`;

/** Adds a job as `addJob` does with `fair` (`src/job-catalogue/add-job.ts`): its fair options, then the add. */
async function addFair(
  queue: Queue,
  name: string,
  data: { installationId: number; i: number },
  opts: JobsOptions,
  fair?: { graceMs?: number },
) {
  return queue.add(name, data, await fairJobOptions(redis, queue, data.installationId, opts, fair));
}

describe("fair queueing across installations (real Redis, BullMQ priorities)", () => {
  const queue = new Queue("fair", { connection: redis, prefix });
  afterAll(async () => {
    await queue.obliterate({ force: true }).catch(() => undefined);
    await queue.close();
    redis.disconnect();
  });

  it("one installation's burst does not make another installation's single job wait behind it", async () => {
    for (let i = 0; i < 20; i++) await addFair(queue, "job", { installationId: 1, i }, {});
    await addFair(queue, "job", { installationId: 2, i: 0 }, {});
    const order: string[] = [];
    const worker = new Worker(
      "fair",
      async (job) => {
        order.push(`${job.data.installationId}:${job.data.i}`);
      },
      { connection: redis, prefix, concurrency: 1 },
    );
    releaseFairOnFinish(redis, worker, queue);
    while (order.length < 21) await new Promise((r) => setTimeout(r, 20));
    await worker.close();
    // installation 2's only job runs right after installation 1's first, not 21st
    expect(order.indexOf("2:0")).toBeLessThanOrEqual(1);
    // and the counters are released once every job is done
    await new Promise((r) => setTimeout(r, 100));
    expect(await fairPending(redis, queue, 1)).toBe(0);
    expect(await fairPending(redis, queue, 2)).toBe(0);
  });

  it("a recovery walk's jobs waiting in the queue are taken after every webhook's job, fair or plain", async () => {
    const q = new Queue("fair-walk", { connection: redis, prefix });
    try {
      // the walk got there first: 30 resumed jobs wait before any webhook arrives
      for (let i = 0; i < 30; i++) await q.add("walk", { installationId: 1, i }, { priority: WALK_PRIORITY });
      // then one installation's burst (fair priorities 1..10) and a job added with no priority
      for (let i = 0; i < 10; i++) await addFair(q, "hook", { installationId: 1, i }, {});
      await q.add("plain", { installationId: 2, i: 0 });
      const order: string[] = [];
      const worker = new Worker(
        "fair-walk",
        async (job) => {
          order.push(job.name);
        },
        { connection: redis, prefix, concurrency: 1 },
      );
      releaseFairOnFinish(redis, worker, q);
      while (order.length < 41) await new Promise((r) => setTimeout(r, 20));
      await worker.close();
      expect(order.slice(0, 11).sort()).toEqual([...Array(10).fill("hook"), "plain"].sort());
      expect(order.slice(11)).toEqual(Array(30).fill("walk"));
    } finally {
      await q.obliterate({ force: true }).catch(() => undefined);
      await q.close();
    }
  });

  it("counters never leak: de-duplicated, removed, completed and failed jobs all come down", async () => {
    const q = new Queue("fair-leak", { connection: redis, prefix });
    try {
      const inst = 7;
      // a redelivery of the same job id is de-duplicated by BullMQ: it must not count twice
      await addFair(q, "job", { installationId: inst, i: 0 }, { jobId: "same" });
      await addFair(q, "job", { installationId: inst, i: 0 }, { jobId: "same" });
      expect(await fairPending(redis, q, inst)).toBe(1);
      // a removed job (a superseded debounce launch) no longer counts once the grace period has passed
      const removed = await addFair(
        q,
        "job",
        { installationId: inst, i: 1 },
        { jobId: "gone", delay: 60_000 },
      );
      await removed.remove();
      await addFair(q, "job", { installationId: inst, i: 2 }, { jobId: "kept" }, { graceMs: 0 });
      expect(await fairPending(redis, q, inst)).toBe(2); // "same" and "kept"
      // completed and failed (last attempt) jobs come down
      await addFair(q, "fail", { installationId: inst, i: 3 }, { jobId: "fails", attempts: 2 });
      let finished = 0;
      const worker = new Worker(
        "fair-leak",
        async (job) => {
          if (job.name === "fail") throw new Error("boom");
        },
        { connection: redis, prefix, concurrency: 1 },
      );
      worker.on("completed", () => void finished++);
      worker.on("failed", (job) => {
        if (job && job.attemptsMade >= 2) finished++;
      });
      releaseFairOnFinish(redis, worker, q);
      while (finished < 3) await new Promise((r) => setTimeout(r, 20));
      await worker.close();
      await new Promise((r) => setTimeout(r, 100));
      expect(await fairPending(redis, q, inst)).toBe(0);
      // after its burst, the installation's next job is first in line again
      const next = await addFair(q, "job", { installationId: inst, i: 4 }, { jobId: "next" });
      expect(next.opts.priority).toBe(1);
    } finally {
      await q.obliterate({ force: true }).catch(() => undefined);
      await q.close();
    }
  });
});
