import { randomBytes } from "node:crypto";
import { Queue, Worker } from "bullmq";
import { afterAll, describe, expect, it } from "vitest";
import { createRedis } from "../../src/queue/connection.js";
import { addFair, releaseFairOnFinish } from "../../src/queue/fairness.js";

const redis = createRedis(process.env.REDIS_URL ?? "redis://127.0.0.1:6379");
const prefix = `dwt-fair-${randomBytes(3).toString("hex")}`;

describe("fair queueing across installations (real Redis, BullMQ priorities)", () => {
  const queue = new Queue("fair", { connection: redis, prefix });
  afterAll(async () => {
    await queue.obliterate({ force: true }).catch(() => undefined);
    await queue.close();
    redis.disconnect();
  });

  it("one installation's burst does not make another installation's single job wait behind it", async () => {
    for (let i = 0; i < 20; i++) await addFair(redis, queue, "job", { installationId: 1, i }, {});
    await addFair(redis, queue, "job", { installationId: 2, i: 0 }, {});
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
    expect(Number(await redis.get(`${prefix}:fair:fair:1`))).toBe(0);
    expect(Number(await redis.get(`${prefix}:fair:fair:2`))).toBe(0);
  });
});
