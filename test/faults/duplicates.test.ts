import { spawn } from "node:child_process";
import { afterEach, describe, expect, it } from "vitest";
import { startHarness, type Harness } from "../../dev/harness/harness.js";
import {
  WORKER_TIMING,
  expectExactlyOnce,
  openPull,
  spawnWorker,
  waitCompleted,
  type WorkerProcess,
} from "./helpers.js";

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
    const p = openPull(h, head);
    const answers = await Promise.all([
      h.send("pull_request", p, "dup-1"),
      h.send("pull_request", p, "dup-1"),
      h.send("pull_request", p, "dup-2"),
      h.send("pull_request", p, "dup-3"),
    ]);
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200]);
    await waitCompleted(h, p, head);
    // Let any straggling duplicate job finish before counting.
    await h.waitFor(
      async () => {
        const c = await h!.booted.rt.queues.events.getJobCounts("waiting", "active", "delayed");
        return (c.waiting ?? 0) + (c.active ?? 0) + (c.delayed ?? 0) === 0;
      },
      10_000,
      "events queue drained",
    );
    expectExactlyOnce(h, p, head);
    const outcomes = (await h.booted.rt.queues.events.getCompleted()).map((j) => j.returnvalue as string);
    expect(outcomes.sort()).toEqual(["duplicate-delivery", "duplicate-delivery", "launch-enqueued"]);
  });

  it("Redis restarted mid-scan (persistence on): workers reconnect, the scan is reported once", async () => {
    const port = 20_000 + Math.floor(Math.random() * 20_000);
    const dir = `/tmp/dw-redis-${process.pid}-${port}`;
    const startRedis = () =>
      spawn(
        "redis-server",
        ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "yes", "--dir", dir],
        {
          stdio: "ignore",
        },
      );
    await import("node:fs/promises").then((fs) => fs.mkdir(dir, { recursive: true }));
    let redis = startRedis();
    cleanups.push(async () => {
      redis.kill("SIGKILL");
      await import("node:fs/promises").then((fs) => fs.rm(dir, { recursive: true, force: true }));
    });
    const url = `redis://127.0.0.1:${port}`;
    h = await startHarness({
      redisUrl: url,
      sandbox: { scenario: "demo", scanDurationMs: 3_000, retryAfterSeconds: 1 },
      boot: { workerTiming: WORKER_TIMING },
    });
    const head = "4".repeat(40);
    const p = openPull(h, head);
    expect((await h.send("pull_request", p)).status).toBe(200);
    await h.waitFor(
      () => h!.github.state.checkRuns(p.repository.owner.login, p.repository.name).find((c) => c.externalId),
      15_000,
      "scan launched",
    );
    // SIGTERM: Redis writes its append-only file and exits; then it comes back on the same port.
    const exited = new Promise((r) => redis.once("exit", r));
    redis.kill("SIGTERM");
    await exited;
    await new Promise((r) => setTimeout(r, 500));
    redis = startRedis();
    await waitCompleted(h, p, head, 25_000);
    expectExactlyOnce(h, p, head);
  });
});
