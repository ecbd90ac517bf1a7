import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

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
      ["-p", String(port), ...(password ? ["--no-auth-warning", "-a", password] : []), "PING"],
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
