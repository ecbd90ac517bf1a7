/**
 * The workers check each job's data against its kind's schema when they take it (`src/workers/workers.ts`): data
 * that does not match fails the job for good on its first attempt (BullMQ `UnrecoverableError`), with a log
 * naming what does not match, and the worker goes on with its next job. Real Redis, real BullMQ workers; the
 * jobs are added to the queues directly, as another version of diffward (or a hand) could have.
 */
import { randomBytes } from "node:crypto";
import { Writable } from "node:stream";
import type { Worker } from "bullmq";
import pino from "pino";
import { afterAll, describe, expect, it } from "vitest";
import { JOBS } from "../../src/job-catalogue/index.js";
import { MAX_STALLED_COUNT, startWorkers } from "../../src/workers/workers.js";
import { createRedis } from "../../src/runtime/connection.js";
import { createQueues } from "../../src/runtime/queues.js";
import type { Runtime } from "../../src/runtime/runtime.js";
import { flushPrefix } from "../support/flush.js";

describe("workers: a job whose data fails its schema", () => {
  const url = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
  const redis = createRedis(url);
  const prefix = `dwt-workers-${randomBytes(3).toString("hex")}`;
  const queues = createQueues({ connection: redis, prefix });
  const logged: Array<Record<string, unknown>> = [];
  const log = pino(
    { level: "error" },
    new Writable({
      write(chunk: Buffer, _enc, done) {
        logged.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
        done();
      },
    }),
  );
  // what a job that fails its schema reaches of the runtime: its logger (and Redis, for fairness releases)
  const rt = { redis, log, now: () => Date.now(), queues } as unknown as Runtime;
  let workers: Worker[] = [];
  afterAll(async () => {
    await Promise.all(workers.map((w) => w.close()));
    await Promise.all(Object.values(queues).map((q) => q.close()));
    await flushPrefix(prefix, url);
    redis.disconnect();
  });

  it("fails for good on its first attempt with a log naming the problems; the worker takes the next job", async () => {
    workers = startWorkers(rt, { connection: redis, prefix });
    // a launch job (8 attempts) whose data lost its config and check run, and a second one behind it
    const first = await queues.launch.add(
      JOBS.launch.name,
      { installationId: 7, owner: "acme", repo: "web" },
      { ...JOBS.launch.options, jobId: "bad-launch-1" },
    );
    const second = await queues.launch.add(
      JOBS.launch.name,
      { installationId: 7, owner: "acme", repo: "web", checkRunId: "21" },
      { ...JOBS.launch.options, jobId: "bad-launch-2" },
    );
    for (const job of [first, second])
      await expect.poll(() => job.getState(), { timeout: 10_000 }).toBe("failed");

    const failed = (await queues.launch.getJob("bad-launch-1"))!;
    expect(failed.attemptsMade).toBe(1);
    expect(failed.failedReason).toMatch(/^job launch: its data does not match its schema \(.*config: /);
    const entry = logged.find((l) => l.job === "bad-launch-1");
    expect(entry).toMatchObject({
      msg: "job data does not match its schema: the job fails for good",
      name: "launch",
      queue: "launch",
    });
    expect(entry?.problems).toEqual(
      expect.arrayContaining([expect.stringMatching(/^config: /), expect.stringMatching(/^checkRunId: /)]),
    );
    expect((await queues.launch.getJob("bad-launch-2"))!.attemptsMade).toBe(1);
    expect(workers.every((w) => w.isRunning())).toBe(true);
  });
});

describe("workers: a job whose worker died", () => {
  const url = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";

  it("is taken again after up to five stalls (BullMQ's default is one), unless the timing says otherwise", async () => {
    const redis = createRedis(url);
    const prefix = `dwt-stalls-${randomBytes(3).toString("hex")}`;
    const queues = createQueues({ connection: redis, prefix });
    const rt = { redis, log: pino({ level: "silent" }), now: () => Date.now(), queues } as unknown as Runtime;
    const started = startWorkers(rt, { connection: redis, prefix });
    const tuned = startWorkers(rt, { connection: redis, prefix, timing: { maxStalledCount: 2 } });
    try {
      expect(MAX_STALLED_COUNT).toBe(5);
      expect(started.length).toBeGreaterThan(0);
      for (const w of started) expect(w.opts.maxStalledCount).toBe(MAX_STALLED_COUNT);
      for (const w of tuned) expect(w.opts.maxStalledCount).toBe(2);
    } finally {
      await Promise.all([...started, ...tuned].map((w) => w.close()));
      await Promise.all(Object.values(queues).map((q) => q.close()));
      await flushPrefix(prefix, url);
      redis.disconnect();
    }
  });
});
