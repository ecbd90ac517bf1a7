import { Cluster } from "ioredis";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startHarness, type Harness } from "../../dev/harness/harness.js";
import { startRedisCluster, type RedisClusterProcess } from "../support/redis-server.js";
import { WORKER_TIMING, expectExactlyOnce, spawnWorker, type WorkerProcess } from "../support/faults.js";
import { completedRun, seedPull } from "../support/pr.js";

/**
 * diffward on a real Redis Cluster (three masters, no replicas: `redis-server --cluster-enabled yes` and
 * `redis-cli --cluster create`), scaled out as in production: one web process (this test process, webhooks
 * only) and two worker processes. BullMQ runs under a hash-tagged prefix and every multi-key operation of
 * diffward's state (MULTI, Lua) stays in one slot, or Redis would refuse it with CROSSSLOT.
 */
describe("Redis Cluster, one web process and two worker processes", () => {
  let cluster: RedisClusterProcess;
  let h: Harness;
  const procs: WorkerProcess[] = [];
  beforeAll(async () => {
    cluster = await startRedisCluster(3);
  }, 60_000);
  afterAll(async () => cluster?.stop(), 60_000);
  beforeEach(async () => {
    h = await startHarness({
      workers: false,
      sandbox: { scenario: "demo", scanDurationMs: 1_500, retryAfterSeconds: 1 },
      boot: { redisClusterNodes: cluster.nodes, workerTiming: WORKER_TIMING },
    });
  });
  afterEach(async () => {
    await Promise.all(procs.splice(0).map((p) => p.stop()));
    await h?.close();
  }, 60_000);

  const worker = (killAfter?: string) => {
    const w = spawnWorker(h, { clusterNodes: cluster.nodes, ...(killAfter ? { killAfter } : {}) });
    procs.push(w);
    return w;
  };

  it("a pull request's flow completes, launched once, reported once", async () => {
    const [a, b] = [worker(), worker()];
    await Promise.all([a.ready, b.ready]);
    const head = "a".repeat(39) + "1";
    const pr = seedPull(h, { head, number: 1 });
    expect((await h.send("pull_request", pr.payload)).status).toBe(200);
    const done = await completedRun(h, pr.owner, pr.repo, head, 40_000);
    expect(done.conclusion).toBe("failure"); // the demo scenario's confirmed critical finding
    expectExactlyOnce(h, pr, head);

    // the keys really are spread over the cluster's masters by slot, and ours share one slot
    const c = new Cluster(cluster.nodes.map((n) => ({ host: "127.0.0.1", port: Number(n.split(":")[1]) })));
    try {
      await c.ping(); // connected: the slot map is known
      expect(c.nodes("master")).toHaveLength(3);
      const perMaster = await Promise.all(c.nodes("master").map((m) => m.keys(`${h.prefix}:*`)));
      const ours = perMaster.flat();
      expect(ours.length).toBeGreaterThan(5);
      expect(perMaster.filter((keys) => keys.length > 0)).toHaveLength(1);
      expect(new Set(await Promise.all(ours.map((k) => c.cluster("KEYSLOT", k)))).size).toBe(1);
    } finally {
      c.disconnect();
    }
  }, 120_000);

  it("a worker killed with SIGKILL mid-scan: the other workers finish it, nothing lost, nothing doubled", async () => {
    // alone, so the scan is certainly followed by the doomed worker: it dies right after its first scan read
    const doomed = worker("GET /api/v1/projects/[^/]+/scans/[^/]+$");
    await doomed.ready;
    const head = "a".repeat(39) + "2";
    const pr = seedPull(h, { head, number: 2 });
    expect((await h.send("pull_request", pr.payload)).status).toBe(200);
    const exit = await doomed.exited;
    expect(exit.signal, doomed.output()).toBe("SIGKILL");
    expect([...h.sandbox.state.scans.values()].filter((s) => s.commitHash === head)).toHaveLength(1);

    const [a, b] = [worker(), worker()];
    await Promise.all([a.ready, b.ready]);
    const done = await completedRun(h, pr.owner, pr.repo, head, 40_000);
    expect(done.conclusion).toBe("failure");
    expectExactlyOnce(h, pr, head);
  }, 120_000);
});
