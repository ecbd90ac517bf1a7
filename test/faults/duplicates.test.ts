import { afterEach, describe, expect, it } from "vitest";
import { startHarness, type Harness } from "../../dev/harness/harness.js";
import { WORKER_TIMING, expectExactlyOnce, spawnWorker, type WorkerProcess } from "../support/faults.js";
import { completedRun, seedPull } from "../support/pr.js";
import { freePort, startRedisServer } from "../support/redis-server.js";

describe("duplicate deliveries, racing workers, Redis restarted", () => {
  let h: Harness | undefined;
  const procs: WorkerProcess[] = [];
  const cleanups: Array<() => Promise<void>> = [];
  afterEach(async () => {
    await Promise.all(procs.splice(0).map((p) => p.stop()));
    await h?.close();
    h = undefined;
    for (const c of cleanups.splice(0)) await c();
  });

  it("the same webhook delivered twice (same and new delivery ids) to two racing workers: one scan, one report", async () => {
    h = await startHarness({
      sandbox: { scenario: "demo", scanDurationMs: 1_500, retryAfterSeconds: 1 },
      boot: { workerTiming: WORKER_TIMING },
    });
    const other = spawnWorker(h); // a second worker process on the same queues
    procs.push(other);
    await other.ready;
    const head = "5".repeat(40);
    const pr = seedPull(h, { head });
    const answers = await Promise.all([
      h.send("pull_request", pr.payload, "dup-1"),
      h.send("pull_request", pr.payload, "dup-1"),
      h.send("pull_request", pr.payload, "dup-2"),
      h.send("pull_request", pr.payload, "dup-3"),
    ]);
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200]);
    await completedRun(h, pr.owner, pr.repo, head);
    // Let any straggling duplicate job finish before counting.
    await h.waitFor(
      async () => {
        const c = await h!.booted.rt.queues.events.getJobCounts("waiting", "active", "delayed");
        return (c.waiting ?? 0) + (c.active ?? 0) + (c.delayed ?? 0) === 0;
      },
      10_000,
      "events queue drained",
    );
    expectExactlyOnce(h, pr, head);
    const outcomes = (await h.booted.rt.queues.events.getCompleted()).map((j) => j.returnvalue as string);
    expect(outcomes.sort()).toEqual(["duplicate-delivery", "duplicate-delivery", "launch-enqueued"]);
  });

  it("Redis restarted mid-scan (persistence on): workers reconnect, the scan is reported once", async () => {
    // persistence on: SIGTERM makes Redis write its append-only file before it exits
    const redis = await startRedisServer(await freePort(), ["--appendonly", "yes"]);
    cleanups.push(() => redis.stop());
    const url = `redis://127.0.0.1:${redis.port}`;
    h = await startHarness({
      redisUrl: url,
      sandbox: { scenario: "demo", scanDurationMs: 3_000, retryAfterSeconds: 1 },
      boot: { workerTiming: WORKER_TIMING },
    });
    const head = "4".repeat(40);
    const pr = seedPull(h, { head });
    expect((await h.send("pull_request", pr.payload)).status).toBe(200);
    await h.waitFor(
      () => h!.github.state.checkRuns(pr.owner, pr.repo).find((c) => c.externalId),
      15_000,
      "scan launched",
    );
    // SIGTERM: Redis writes its append-only file and exits; then it comes back on the same port.
    await redis.restart(500);
    await completedRun(h, pr.owner, pr.repo, head, 25_000);
    expectExactlyOnce(h, pr, head);
  });
});
