import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort } from "../../dev/harness/redis.js";

export { freePort };

/** A `redis-server` child process of a test, with its own directory; `stop()` kills it and removes the directory. */
export interface RedisServerProcess {
  port: number;
  child: ChildProcess;
  output(): string;
  stop(): Promise<void>;
}

/**
 * Starts Debian's `redis-server` (no persistence) on `port` with extra arguments, and waits until it
 * answers PING. The CI machine installs `redis-server` when it is missing (`.ci/run`).
 * @throws when `redis-server` is not installed or does not answer within 10 s.
 */
export async function startRedisServer(
  port: number,
  args: string[] = [],
  password?: string,
  /** extra redis-cli arguments for the readiness PING (e.g. `--tls --cacert ca.crt`) */
  cliArgs: string[] = [],
): Promise<RedisServerProcess> {
  if (spawnSync("redis-server", ["--version"]).status !== 0)
    throw new Error("redis-server is not installed (Debian: apt-get install redis-server; .ci/run does it)");
  const dir = mkdtempSync(join(tmpdir(), `diffward-redis-${port}-`));
  const child = spawn(
    "redis-server",
    [
      "--port",
      String(port),
      "--bind",
      "127.0.0.1",
      "--save",
      "",
      "--appendonly",
      "no",
      "--dir",
      dir,
      ...args,
    ],
    { stdio: ["ignore", "pipe", "pipe"] },
  );
  let out = "";
  child.stdout!.on("data", (b: Buffer) => (out += b.toString()));
  child.stderr!.on("data", (b: Buffer) => (out += b.toString()));
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const until = Date.now() + 10_000;
  for (;;) {
    const r = spawnSync(
      "redis-cli",
      ["-p", String(port), ...cliArgs, ...(password ? ["--no-auth-warning", "-a", password] : []), "PING"],
      {
        encoding: "utf8",
      },
    );
    if (r.stdout?.trim() === "PONG") break;
    if (child.exitCode !== null || Date.now() > until) {
      child.kill("SIGKILL");
      rmSync(dir, { recursive: true, force: true });
      throw new Error(`redis-server on port ${port} did not start: ${out}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    port,
    child,
    output: () => out,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
      await exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

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
