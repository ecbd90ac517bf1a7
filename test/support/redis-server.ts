/**
 * Redis processes of the tests: one `redis-server` (the spawner the demo uses too, dev/harness/redis.ts)
 * and a local Redis Cluster of them.
 */
import { spawnSync } from "node:child_process";
import { createServer } from "node:net";
import { freePort, startRedisServer, type RedisServerProcess } from "../../dev/harness/redis.js";

export { freePort, startRedisServer, type RedisServerProcess };

/** A local Redis Cluster of test processes. */
export interface RedisClusterProcess {
  /** `127.0.0.1:port` of each master, for `REDIS_CLUSTER_NODES` */
  nodes: string[];
  servers: RedisServerProcess[];
  stop(): Promise<void>;
}

/** A free port whose cluster bus port (port + 10000, Redis Cluster specification) is free too. */
async function freeClusterPort(taken: Set<number>): Promise<number> {
  for (;;) {
    const port = await freePort();
    if (port + 10_000 > 65_535 || taken.has(port)) continue;
    const bus = await new Promise<boolean>((done) => {
      const s = createServer()
        .once("error", () => done(false))
        .listen(port + 10_000, "127.0.0.1", () => s.close(() => done(true)));
    });
    if (bus) return port;
  }
}

/**
 * Starts `masters` redis-server processes with `--cluster-enabled yes` and joins them into one cluster with
 * `redis-cli --cluster create … --cluster-replicas 0 --cluster-yes` (the Redis Cluster tutorial's commands),
 * then waits until every node reports `cluster_state:ok`.
 */
export async function startRedisCluster(masters = 3): Promise<RedisClusterProcess> {
  const taken = new Set<number>();
  const servers: RedisServerProcess[] = [];
  try {
    for (let i = 0; i < masters; i++) {
      const port = await freeClusterPort(taken);
      taken.add(port);
      servers.push(
        await startRedisServer(port, [
          "--cluster-enabled",
          "yes",
          "--cluster-config-file",
          `nodes-${port}.conf`,
          "--cluster-node-timeout",
          "2000",
        ]),
      );
    }
    const nodes = servers.map((s) => `127.0.0.1:${s.port}`);
    const created = spawnSync(
      "redis-cli",
      ["--cluster", "create", ...nodes, "--cluster-replicas", "0", "--cluster-yes"],
      { encoding: "utf8", timeout: 30_000 },
    );
    if (created.status !== 0)
      throw new Error(`redis-cli --cluster create failed: ${created.stdout}${created.stderr}`);
    const until = Date.now() + 20_000;
    for (;;) {
      const ok = servers.every((s) =>
        /cluster_state:ok/.test(
          spawnSync("redis-cli", ["-p", String(s.port), "CLUSTER", "INFO"], { encoding: "utf8" }).stdout ??
            "",
        ),
      );
      if (ok) break;
      if (Date.now() > until) throw new Error("the cluster did not reach cluster_state:ok");
      await new Promise((r) => setTimeout(r, 200));
    }
    return { nodes, servers, stop: async () => void (await Promise.all(servers.map((s) => s.stop()))) };
  } catch (error) {
    await Promise.all(servers.map((s) => s.stop()));
    throw error;
  }
}
