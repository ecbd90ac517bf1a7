/**
 * Redis processes for the demo and the tests, one spawner for both: `ensureRedis` gives `npm run demo`
 * (scripts/demo.ts) and `npm test` (test/support/redis-global.ts) a Redis on a fresh machine —
 * `REDIS_URL` (default `redis://127.0.0.1:6379`) when one answers PING, else a private `redis-server`
 * (Debian's package) on a free port of 127.0.0.1 — and `startRedisServer` starts one on a chosen port
 * (with a password, TLS, Cluster mode or persistence) for the tests that need their own.
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { connect, createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** True when the Redis at `url` answers PING within 1 s. */
export function pingRedis(url: string): Promise<boolean> {
  return new Promise((done) => {
    const u = new URL(url);
    const s = connect(Number(u.port || 6379), u.hostname);
    const t = setTimeout(() => (s.destroy(), done(false)), 1000);
    s.on("connect", () => s.write("PING\r\n"));
    s.on("data", (d) => (clearTimeout(t), s.end(), done(String(d).startsWith("+PONG"))));
    s.on("error", () => (clearTimeout(t), done(false)));
  });
}

/** A free TCP port on 127.0.0.1 (the OS picks it). */
export function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const s = createServer().listen(0, "127.0.0.1", () => {
      const { port } = s.address() as { port: number };
      s.close(() => done(port));
    });
    s.on("error", fail);
  });
}

/** A `redis-server` child process with its own directory. */
export interface RedisServerProcess {
  port: number;
  child: ChildProcess;
  /** what the process wrote to stdout and stderr, all its lives */
  output(): string;
  /**
   * SIGTERM (Redis writes its append-only file when `--appendonly yes`), then the same server again on the
   * same port and directory after `pauseMs`, answering PING.
   */
  restart(pauseMs?: number): Promise<void>;
  /** SIGKILL, then removes the directory. */
  stop(): Promise<void>;
}

/**
 * Starts Debian's `redis-server` (no snapshots, no append-only file unless `args` say so) on `port` of
 * 127.0.0.1 with extra arguments, and waits until it answers PING (`redis-cli` with `password` and
 * `cliArgs`, e.g. `--tls --cacert ca.crt`). The CI machine installs `redis-server` when it is missing
 * (`.ci/run`).
 * @throws when `redis-server` is not installed or does not answer within 10 s.
 */
export async function startRedisServer(
  port: number,
  args: string[] = [],
  password?: string,
  cliArgs: string[] = [],
): Promise<RedisServerProcess> {
  if (spawnSync("redis-server", ["--version"]).status !== 0)
    throw new Error("redis-server is not installed (Debian: apt-get install redis-server; .ci/run does it)");
  const dir = mkdtempSync(join(tmpdir(), `diffward-redis-${port}-`));
  const base = ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"];
  const ping = [
    "-p",
    String(port),
    ...cliArgs,
    ...(password ? ["--no-auth-warning", "-a", password] : []),
    "PING",
  ];
  let out = "";
  const launch = async () => {
    const child = spawn("redis-server", [...base, "--dir", dir, ...args], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    child.stdout!.on("data", (b: Buffer) => (out += b.toString()));
    child.stderr!.on("data", (b: Buffer) => (out += b.toString()));
    const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
    for (const until = Date.now() + 10_000; ;) {
      if (spawnSync("redis-cli", ping, { encoding: "utf8" }).stdout?.trim() === "PONG")
        return { child, exited };
      if (child.exitCode !== null || Date.now() > until) {
        child.kill("SIGKILL");
        rmSync(dir, { recursive: true, force: true });
        throw new Error(`redis-server on port ${port} did not start: ${out}`);
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  };
  let life = await launch();
  const server: RedisServerProcess = {
    port,
    child: life.child,
    output: () => out,
    async restart(pauseMs = 500) {
      life.child.kill("SIGTERM");
      await life.exited;
      await new Promise((r) => setTimeout(r, pauseMs));
      life = await launch();
      server.child = life.child;
    },
    async stop() {
      if (life.child.exitCode === null && life.child.signalCode === null) life.child.kill("SIGKILL");
      await life.exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
  return server;
}

/**
 * The Redis to use: `{ url }` when `REDIS_URL` (or 127.0.0.1:6379) answers, else `{ url, stop }` of a
 * `redis-server` started here on a free port (the caller calls `stop` when done).
 * @throws Error when none answers and `redis-server` cannot be started (not installed) or does not answer
 *   within 10 s.
 */
export async function ensureRedis(): Promise<{ url: string; stop?: () => Promise<void> }> {
  const url = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
  if (await pingRedis(url)) return { url };
  const server = await startRedisServer(await freePort()).catch((error: Error) => {
    throw new Error(`No Redis answers at ${url} and none could be started here: ${error.message}`);
  });
  return { url: `redis://127.0.0.1:${server.port}`, stop: () => server.stop() };
}
